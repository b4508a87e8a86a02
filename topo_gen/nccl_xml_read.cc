// NCCL topology XML reader: our own files and real NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE inputs back into a
// fabric::Host. It accepts what NCCL's parser accepts and rejects, with file:line:column, what it rejects
// or silently truncates: a prolog, tabs between tokens, more than 16 attributes, more than 256 elements,
// names or values over 253 characters, a missing or wrong `version`, missing required attributes.
#include <pugixml.hpp>

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/regular_file.h"
#include "topo_gen/nccl_xml.h"

namespace railtune::topo {
namespace {

using fabric::Host;

class Reader {
 public:
  Reader(const std::string& text, std::string source) : text_(text), source_(std::move(source)) {}
  Host read();

 private:
  [[noreturn]] void fail(ptrdiff_t offset, const std::string& reason) const;
  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& reason) const {
    fail(tagStart(node), "<" + std::string(node.name()) + ">: " + reason);
  }
  ptrdiff_t tagStart(const pugi::xml_node& node) const;
  void checkWhitespace() const;
  void checkLimits(const pugi::xml_node& node, int& elements) const;
  std::string required(const pugi::xml_node& node, const char* attr) const;
  int intAttr(const pugi::xml_node& node, const char* attr) const;
  int intAttr(const pugi::xml_node& node, const char* attr, int fallback) const;
  void readCpu(const pugi::xml_node& cpu);
  void readPci(const pugi::xml_node& pci, int numa);
  void pairC2cNics(const std::vector<size_t>& gpus, const std::vector<size_t>& nics);
  void readGpu(const pugi::xml_node& pci, const std::string& busId, int numa);
  void readNic(const pugi::xml_node& nic, const std::string& busId, const std::string& cls, int numa);

  const std::string& text_;
  std::string source_;
  Host host_;
};

void Reader::fail(ptrdiff_t offset, const std::string& reason) const {
  int line = 1, column = 1;
  for (ptrdiff_t i = 0; i < offset && static_cast<size_t>(i) < text_.size(); ++i) {
    if (text_[static_cast<size_t>(i)] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  throw NcclXmlError(fabric::SourceLoc{source_, line, column}, reason);
}

// pugixml reports the offset of a tag's name; point at its '<' instead, where an editor's eye goes.
ptrdiff_t Reader::tagStart(const pugi::xml_node& node) const {
  ptrdiff_t pos = node.offset_debug();
  while (pos > 0 && static_cast<size_t>(pos) <= text_.size() && text_[static_cast<size_t>(pos) - 1] != '<') --pos;
  return pos > 0 ? pos - 1 : 0;
}

// NCCL's tokenizer treats only ' ', '\n' and '\r' as blanks: a tab outside a quoted value breaks it.
void Reader::checkWhitespace() const {
  char quote = 0;
  bool inComment = false;
  for (size_t i = 0; i < text_.size(); ++i) {
    const char c = text_[i];
    if (inComment) {
      if (text_.compare(i, 3, "-->") == 0) inComment = false;
    } else if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (text_.compare(i, 4, "<!--") == 0) {
      inComment = true;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '\t') {
      fail(static_cast<ptrdiff_t>(i), "tab character: NCCL's parser accepts only spaces and newlines between tokens");
    }
  }
}

void Reader::checkLimits(const pugi::xml_node& node, int& elements) const {
  if (node.type() == pugi::node_declaration) fail(tagStart(node), "XML prolog: NCCL's parser does not accept one");
  if (node.type() == pugi::node_pi || node.type() == pugi::node_doctype || node.type() == pugi::node_cdata)
    fail(tagStart(node), "processing instruction, DOCTYPE or CDATA: NCCL's parser does not accept them");
  if (node.type() == pugi::node_pcdata) fail(node.offset_debug(), "text between elements: NCCL expects '<'");
  if (node.type() != pugi::node_element) return;
  if (++elements > kNcclMaxElements)
    fail(node, "element " + std::to_string(elements) + ": NCCL loads at most " + std::to_string(kNcclMaxElements));
  if (std::string_view(node.name()).size() > static_cast<size_t>(kNcclMaxTextLen)) fail(node, "element name too long");
  int attrs = 0, children = 0;
  for (const pugi::xml_attribute& a : node.attributes()) {
    ++attrs;
    if (std::string_view(a.name()).size() > static_cast<size_t>(kNcclMaxTextLen) ||
        std::string_view(a.value()).size() > static_cast<size_t>(kNcclMaxTextLen))
      fail(node, "attribute '" + std::string(a.name()).substr(0, 40) + "' is longer than NCCL's " +
                     std::to_string(kNcclMaxTextLen) + "-character limit");
  }
  if (attrs > kNcclMaxAttrs)
    fail(node, std::to_string(attrs) + " attributes; NCCL keeps only the first " + std::to_string(kNcclMaxAttrs));
  for (const pugi::xml_node& c : node.children()) {
    if (c.type() == pugi::node_element && ++children > kNcclMaxChildren)
      fail(c, "more than " + std::to_string(kNcclMaxChildren) + " children in one element");
    checkLimits(c, elements);
  }
}

std::string Reader::required(const pugi::xml_node& node, const char* attr) const {
  const pugi::xml_attribute a = node.attribute(attr);
  if (!a) fail(node, std::string("missing required attribute '") + attr + "'");
  return a.value();
}

int Reader::intAttr(const pugi::xml_node& node, const char* attr) const {
  const std::string value = required(node, attr);
  int out = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, out);
  if (value.empty() || ec != std::errc() || ptr != end)
    fail(node, std::string("attribute '") + attr + "' is '" + value + "', not an integer");
  return out;
}

int Reader::intAttr(const pugi::xml_node& node, const char* attr, int fallback) const {
  return node.attribute(attr) ? intAttr(node, attr) : fallback;
}

void Reader::readCpu(const pugi::xml_node& cpu) {
  fabric::Cpu out;
  out.numa = intAttr(cpu, "numaid");
  const std::string arch = required(cpu, "arch");
  if (arch == "x86_64")
    out.arch = fabric::CpuArch::X86_64;
  else if (arch == "arm64")
    out.arch = fabric::CpuArch::Arm64;
  else if (arch == "ppc64")
    out.arch = fabric::CpuArch::Ppc64;
  else
    fail(cpu, "arch '" + arch + "' is not one NCCL knows (x86_64, arm64, ppc64)");
  out.vendor = out.arch == fabric::CpuArch::X86_64 ? required(cpu, "vendor") : cpu.attribute("vendor").value();
  // NCCL picks x86 inter-socket bandwidths by vendor; an empty one is as unusable as a missing one.
  if (out.arch == fabric::CpuArch::X86_64 && out.vendor.empty()) fail(cpu, "attribute 'vendor' is empty on x86_64");
  const bool needsModel = out.vendor == "GenuineIntel" || out.vendor == "CentaurHauls" || out.vendor == "  Shanghai  ";
  out.familyId = needsModel ? intAttr(cpu, "familyid") : intAttr(cpu, "familyid", -1);
  out.modelId = needsModel ? intAttr(cpu, "modelid") : intAttr(cpu, "modelid", -1);
  if (needsModel && (out.familyId < 0 || out.modelId < 0))
    fail(cpu, "familyid and modelid must be CPU family and model numbers (>= 0) for " + out.vendor);
  out.affinity = cpu.attribute("affinity").value();
  host_.cpus.push_back(out);
  std::vector<size_t> c2cGpus, cpuNics;
  for (const pugi::xml_node& c : cpu.children()) {
    const size_t gpus = host_.gpus.size(), nics = host_.nics.size();
    if (std::string_view(c.name()) == "pci") readPci(c, out.numa);
    if (std::string_view(c.name()) == "nic") readNic(c, "", "", out.numa);
    const std::string_view cls = std::string_view(c.name()) == "pci" ? c.attribute("class").value() : "";
    if (cls.rfind("0x03", 0) == 0 && host_.gpus.size() == gpus + 1 && host_.gpus.back().c2cLinks > 0)
      c2cGpus.push_back(gpus);
    for (size_t i = nics; cls.rfind("0x02", 0) == 0 && i < host_.nics.size(); ++i) cpuNics.push_back(i);
  }
  pairC2cNics(c2cGpus, cpuNics);
}

// GPUs that reach Grace over C2C and NICs on Grace's PCIe are both children of the <cpu>: nothing in NCCL's
// tree pairs them. As discovery does (docs/fabric.md, "Nearest GPU"), the k-th NIC of the CPU (the planes
// of one NIC, PCI functions of one device, count once) serves the k-th C2C GPU; the writer emits them so.
void Reader::pairC2cNics(const std::vector<size_t>& gpus, const std::vector<size_t>& nics) {
  size_t k = 0;
  std::string device;
  for (size_t i : nics) {
    fabric::Nic& nic = host_.nics[i];
    const std::string dev = nic.busId.substr(0, nic.busId.size() - 2);  // dddd:bb:dd of dddd:bb:dd.f
    if (!device.empty() && dev != device) ++k;
    device = dev;
    if (nic.nearestGpu < 0 && k < gpus.size()) nic.nearestGpu = host_.gpus[gpus[k]].index;
  }
}

// A GPU and the NICs under the same bridge are each other's nearest: the NICs get the GPU's index (the
// first GPU below the bridge when a wider bridge holds several switches).
void Reader::readPci(const pugi::xml_node& pci, int numa) {
  const std::string busId = required(pci, "busid");
  const std::string cls = required(pci, "class");
  required(pci, "link_speed");
  intAttr(pci, "link_width");
  if (!isNcclBusId(busId)) fail(pci, "busid '" + busId + "' is not a lowercase dddd:bb:dd.f PCI address");
  if (cls.rfind("0x03", 0) == 0) return readGpu(pci, busId, numa);
  if (cls.rfind("0x02", 0) == 0) return readNic(pci.child("nic"), busId, cls, numa);
  const size_t firstNic = host_.nics.size();
  const size_t firstGpu = host_.gpus.size();
  for (const pugi::xml_node& c : pci.children()) {
    if (std::string_view(c.name()) == "pci") readPci(c, numa);
    if (std::string_view(c.name()) == "nic") readNic(c, busId, cls, numa);
  }
  if (host_.gpus.size() == firstGpu) return;
  for (size_t i = firstNic; i < host_.nics.size(); ++i)
    if (host_.nics[i].nearestGpu < 0) host_.nics[i].nearestGpu = host_.gpus[firstGpu].index;
}

void Reader::readGpu(const pugi::xml_node& pci, const std::string& busId, int numa) {
  fabric::Gpu gpu;
  gpu.busId = busId;
  gpu.numa = numa;
  gpu.index = static_cast<int>(host_.gpus.size());  // a partial file (PCI tree only) has no dev
  const pugi::xml_node g = pci.child("gpu");
  if (g) {
    gpu.index = intAttr(g, "dev");
    gpu.sm = intAttr(g, "sm");
    for (const pugi::xml_node& link : g.children("nvlink")) {
      required(link, "target");
      required(link, "tclass");
      gpu.nvlinks += intAttr(link, "count");
    }
    if (const pugi::xml_node c2c = g.child("c2c")) {
      gpu.c2cBwMBps = intAttr(c2c, "bw");
      gpu.c2cLinks = intAttr(c2c, "count");
    }
  }
  host_.gpus.push_back(gpu);
}

uint64_t parseGuid(const std::string& text, bool* ok) {
  uint64_t v = 0;
  const bool hex = text.rfind("0x", 0) == 0;
  const char* begin = text.data() + (hex ? 2 : 0);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, v, hex ? 16 : 10);
  *ok = begin != end && ec == std::errc() && ptr == end;
  return v;
}

void Reader::readNic(const pugi::xml_node& nic, const std::string& busId, const std::string& cls, int numa) {
  fabric::Nic base;
  base.busId = busId;
  base.numa = numa;
  base.linkLayer = cls.rfind("0x0207", 0) == 0 ? "InfiniBand" : "Ethernet";
  if (!nic || !nic.child("net")) {  // partial file: the PCI function only
    if (!busId.empty()) host_.nics.push_back(base);
    return;
  }
  for (const pugi::xml_node& net : nic.children("net")) {
    fabric::Nic n = base;
    n.hca = required(net, "name");
    n.speedMbps = intAttr(net, "speed", 0);
    n.port = intAttr(net, "port", 1);
    n.rail = intAttr(net, "rail", -1);
    n.plane = intAttr(net, "plane", -1);
    if (net.attribute("guid")) {
      bool ok = false;
      n.guid = parseGuid(net.attribute("guid").value(), &ok);
      if (!ok) fail(net, "guid '" + std::string(net.attribute("guid").value()) + "' is not a number");
    }
    host_.nics.push_back(n);
  }
}

Host Reader::read() {
  checkWhitespace();
  pugi::xml_document doc;
  const unsigned flags = pugi::parse_declaration | pugi::parse_pi | pugi::parse_doctype | pugi::parse_cdata;
  const pugi::xml_parse_result parsed = doc.load_buffer(text_.data(), text_.size(), flags, pugi::encoding_utf8);
  if (!parsed) fail(parsed.offset, std::string("malformed XML: ") + parsed.description());
  int elements = 0;
  for (const pugi::xml_node& n : doc.children()) checkLimits(n, elements);
  const pugi::xml_node system = doc.document_element();
  if (!system || std::string_view(system.name()) != "system")
    fail(system ? tagStart(system) : 0, "the top element must be <system version=\"1\">");
  if (intAttr(system, "version") != 1) fail(system, "version must be 1 (NCCL_TOPO_XML_VERSION)");
  host_.name = system.attribute("name").value();
  for (const pugi::xml_node& cpu : system.children("cpu")) readCpu(cpu);
  return host_;
}

}  // namespace

Host readNcclXml(const std::string& text, const std::string& source) {
  return Reader(text, source).read();
}

Host readNcclXmlFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw NcclXmlError(fabric::SourceLoc{path, 0, 0}, file.reason);
  return readNcclXml(file.bytes, path);
}

}  // namespace railtune::topo
