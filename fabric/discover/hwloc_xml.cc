// Reads an hwloc XML export (hwloc 2.x or 3.0) into an HwlocTopology. One walk over the object tree
// carries what an I/O object inherits from above it: the NUMA node of its nearest non-I/O ancestor,
// the package it sits in, and the chain of PCI bridges between it and the host.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <pugixml.hpp>

#include "fabric/discover/hwloc_source.h"
#include "fabric/model.h"

namespace railtune::fabric::discover {
namespace {

// Past this many problems the input is not an hwloc export gone slightly wrong, and a longer list
// helps nobody.
constexpr size_t kMaxErrors = 100;

bool isIoType(std::string_view type) {
  return type == "Bridge" || type == "PCIDev" || type == "OSDev" || type == "Misc";
}

template <typename T>
bool parseNumber(std::string_view text, T& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::map<std::string, std::string> readInfos(pugi::xml_node object) {
  std::map<std::string, std::string> infos;
  for (pugi::xml_node info : object.children("info")) {
    infos.emplace(info.attribute("name").value(), info.attribute("value").value());
  }
  return infos;
}

std::string infoOr(const std::map<std::string, std::string>& infos, const std::string& name) {
  const auto it = infos.find(name);
  return it == infos.end() ? std::string() : it->second;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& source, std::vector<std::string>& errors)
      : text_(text), source_(source), errors_(errors) {}

  HwlocTopology read();

 private:
  // What an object inherits from its ancestors, besides the bridges above it (upstream_).
  struct Context {
    int numa = -1;     // first NUMA os_index of the nearest non-I/O ancestor
    int package = -1;  // index into topo_.packages
  };

  bool checkRoot(pugi::xml_node root);
  void walk(pugi::xml_node object, const Context& parent, int depth);
  void readMachine(pugi::xml_node object);
  void readPackage(pugi::xml_node object, Context& ctx);
  void readNuma(pugi::xml_node object, const Context& ctx);
  std::string bridgeKey(pugi::xml_node object);
  void readPciDevice(pugi::xml_node object, const Context& ctx);
  void readOsDevices(pugi::xml_node pci, HwlocPciDevice& device);
  bool keepDuplicate(pugi::xml_node object, const std::string& busId, uint16_t classId, ptrdiff_t firstAt);
  void error(pugi::xml_node node, const std::string& what) { errorAt(node.offset_debug(), what); }
  void errorAt(ptrdiff_t offset, const std::string& what);
  std::string where(ptrdiff_t offset);

  std::string_view text_;
  const std::string& source_;
  std::vector<std::string>& errors_;
  std::vector<size_t> lineStarts_;  // filled on the first error
  HwlocTopology topo_;
  bool bitmask_ = false;  // osdev_type is the 3.0 bitmask
  bool stopped_ = false;  // a cap was reached: the walk ends
  bool machineSeen_ = false;
  size_t bridgeOrder_ = 0;
  std::vector<std::string> upstream_;  // keys of the bridges above the object being read, host bridge first
  std::map<std::string, ptrdiff_t> busIdsSeen_;
};

std::string Reader::where(ptrdiff_t offset) {
  if (offset < 0) return source_;
  if (lineStarts_.empty()) {
    lineStarts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') lineStarts_.push_back(i + 1);
  }
  // pugixml points at an element's name; step back to its '<', where an editor's eye goes.
  size_t pos = std::min(static_cast<size_t>(offset), text_.size());
  if (pos > 0 && text_[pos - 1] == '<') --pos;
  const auto next = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), pos);
  const size_t line = static_cast<size_t>(std::distance(lineStarts_.begin(), next));
  const size_t column = pos - *std::prev(next) + 1;
  return source_ + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void Reader::errorAt(ptrdiff_t offset, const std::string& what) {
  if (stopped_) return;
  errors_.push_back(where(offset) + ": " + what);
  if (errors_.size() >= kMaxErrors) {
    errors_.push_back(source_ + ": too many errors, stopped reading");
    stopped_ = true;
  }
}

bool Reader::checkRoot(pugi::xml_node root) {
  if (std::string_view(root.name()) != "topology") {
    error(root, std::string("not an hwloc topology: the root element is <") + root.name() +
                    ">, expected <topology> (export one with `lstopo --of xml`)");
    return false;
  }
  const std::string version = root.attribute("version").value();
  if (version.empty() || version.rfind("1.", 0) == 0) {
    error(root,
          "hwloc 1.x XML is not supported (no version=\"2.0\" or \"3.0\" on <topology>): export the "
          "topology with hwloc >= 2 (`lstopo --of xml`)");
    return false;
  }
  if (version.rfind("2.", 0) != 0 && version.rfind("3.", 0) != 0) {
    error(root, "unsupported hwloc XML version \"" + version + "\": railtune reads hwloc 2.x and 3.0 exports");
    return false;
  }
  topo_.version = version;
  bitmask_ = version[0] == '3';
  return true;
}

HwlocTopology Reader::read() {
  if (text_.size() > kHwlocMaxXmlBytes) {
    errors_.push_back(source_ + ": " + std::to_string(text_.size()) + " bytes is more than the " +
                      std::to_string(kHwlocMaxXmlBytes) + " an hwloc export can reasonably be");
    return {};
  }
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed =
      doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    errorAt(parsed.offset, std::string("malformed XML: ") + parsed.description());
    return {};
  }
  const pugi::xml_node root = doc.document_element();
  if (!root) {
    errorAt(0, "no XML element: not an hwloc topology");
    return {};
  }
  if (!checkRoot(root)) return {};
  for (pugi::xml_node object : root.children("object")) walk(object, Context{}, 1);
  // hwloc 3.0 writes the topology's own infos (Architecture, ...) at the top level.
  const auto infos = readInfos(root);
  if (topo_.architecture.empty()) topo_.architecture = infoOr(infos, "Architecture");
  if (topo_.product.empty()) topo_.product = infoOr(infos, "DMIProductName");
  return std::move(topo_);
}

void Reader::walk(pugi::xml_node object, const Context& parent, int depth) {
  if (stopped_) return;
  if (depth > kHwlocMaxDepth) {
    error(object, "objects nested deeper than " + std::to_string(kHwlocMaxDepth) +
                      " levels: not a real machine; reading stopped here");
    stopped_ = true;
    return;
  }
  const std::string_view type = object.attribute("type").value();
  Context ctx = parent;
  if (!isIoType(type) && object.attribute("nodeset")) {
    const auto first = hwlocBitmapFirst(object.attribute("nodeset").value());
    if (first) ctx.numa = *first;
    if (!first)
      error(object, std::string("nodeset \"") + object.attribute("nodeset").value() + "\" is not an hwloc bitmap");
  }
  if (type == "Machine") readMachine(object);
  if (type == "Package") readPackage(object, ctx);
  if (type == "NUMANode") readNuma(object, ctx);
  if (type == "PCIDev") {
    readPciDevice(object, ctx);
    return;  // its children are its OS devices, read with it
  }
  const bool bridge = type == "Bridge";
  if (bridge) upstream_.push_back(bridgeKey(object));
  for (pugi::xml_node child : object.children("object")) walk(child, ctx, depth + 1);
  if (bridge) upstream_.pop_back();
}

void Reader::readMachine(pugi::xml_node object) {
  if (machineSeen_) return;  // the first Machine is the host; hwloc writes exactly one
  machineSeen_ = true;
  const auto infos = readInfos(object);
  topo_.architecture = infoOr(infos, "Architecture");
  topo_.product = infoOr(infos, "DMIProductName");
}

void Reader::readPackage(pugi::xml_node object, Context& ctx) {
  if (topo_.packages.size() == kHwlocMaxPackages) {
    error(object, "more than " + std::to_string(kHwlocMaxPackages) + " packages: not a real machine");
    stopped_ = true;
    return;
  }
  HwlocPackage package;
  // hwloc omits os_index when the OS does not number packages; the document position stands in.
  package.osIndex = static_cast<int>(topo_.packages.size());
  if (object.attribute("os_index") && !parseNumber(object.attribute("os_index").value(), package.osIndex)) {
    error(object, std::string("Package os_index \"") + object.attribute("os_index").value() + "\" is not a number");
  }
  const auto infos = readInfos(object);
  package.vendor = infoOr(infos, "CPUVendor");
  package.model = infoOr(infos, "CPUModel");
  const std::pair<const char*, int*> numbers[] = {{"CPUFamilyNumber", &package.familyId},
                                                  {"CPUModelNumber", &package.modelId}};
  for (const auto& [name, field] : numbers) {
    const std::string value = infoOr(infos, name);
    if (!value.empty() && !parseNumber(value, *field)) {
      error(object, std::string("Package info ") + name + " \"" + value + "\" is not a number");
      *field = -1;
    }
  }
  ctx.package = static_cast<int>(topo_.packages.size());
  topo_.packages.push_back(std::move(package));
}

void Reader::readNuma(pugi::xml_node object, const Context& ctx) {
  if (topo_.numas.size() == kHwlocMaxNumaNodes) {
    error(object, "more than " + std::to_string(kHwlocMaxNumaNodes) + " NUMA nodes: not a real machine");
    stopped_ = true;
    return;
  }
  HwlocNuma numa;
  if (!parseNumber(object.attribute("os_index").value(), numa.osIndex) || numa.osIndex < 0) {
    error(object, std::string("NUMANode os_index \"") + object.attribute("os_index").value() +
                      "\" is not a non-negative number");
    return;
  }
  const auto cpumap = hwlocBitmapToCpumap(object.attribute("cpuset").value());
  if (!cpumap) {
    error(object, "NUMANode " + std::to_string(numa.osIndex) + ": cpuset \"" + object.attribute("cpuset").value() +
                      "\" is not a finite hwloc bitmap (\"0xffffffff,0x00000003\")");
    return;
  }
  numa.cpumap = *cpumap;
  if (ctx.package >= 0) topo_.packages[static_cast<size_t>(ctx.package)].numas.push_back(numa.osIndex);
  topo_.numas.push_back(std::move(numa));
}

// A bridge below a host bridge has a PCI address, which is what sysfs paths show too; a host
// bridge has none, so its gp_index (unique in an export) or its place in the document names it.
std::string Reader::bridgeKey(pugi::xml_node object) {
  ++bridgeOrder_;
  const pugi::xml_attribute busId = object.attribute("pci_busid");
  if (busId) {
    if (const auto normal = normalizeBusId(busId.value())) return *normal;
    error(object, std::string("Bridge pci_busid \"") + busId.value() + "\" is not a PCI bus id (dddd:bb:dd.f)");
  }
  const pugi::xml_attribute gp = object.attribute("gp_index");
  return gp ? std::string("hostbridge#") + gp.value() : "hostbridge@" + std::to_string(bridgeOrder_);
}

void Reader::readPciDevice(pugi::xml_node object, const Context& ctx) {
  if (topo_.pciDevices.size() == kHwlocMaxPciDevices) {
    error(object, "more than " + std::to_string(kHwlocMaxPciDevices) + " PCI devices: not a real machine");
    stopped_ = true;
    return;
  }
  const char* rawBusId = object.attribute("pci_busid").value();
  const auto busId = normalizeBusId(rawBusId);
  if (!busId) {
    error(object, std::string("PCIDev pci_busid \"") + rawBusId + "\" is not a PCI bus id (dddd:bb:dd.f)");
    return;
  }
  const auto [seen, fresh] = busIdsSeen_.emplace(*busId, object.offset_debug());
  const auto type = parsePciType(object.attribute("pci_type").value());
  if (!type) {
    error(object, "PCIDev " + *busId + ": pci_type \"" + object.attribute("pci_type").value() +
                      "\" is not \"CCCC [VVVV:DDDD] [SVVV:SDDD] rev progif\"");
    return;
  }
  if (!fresh && !keepDuplicate(object, *busId, type->classId, seen->second)) return;
  HwlocPciDevice device;
  device.busId = *busId;
  device.classId = type->classId;
  device.vendorId = type->vendorId;
  device.deviceId = type->deviceId;
  device.subtype = object.attribute("subtype").value();
  const pugi::xml_attribute speed = object.attribute("pci_link_speed");
  if (speed && (!parseNumber(std::string_view(speed.value()), device.linkGBps) || !std::isfinite(device.linkGBps) ||
                device.linkGBps < 0)) {
    error(object, "PCIDev " + *busId + ": pci_link_speed \"" + speed.value() + "\" is not a number of GB/s");
    device.linkGBps = 0;
  }
  device.numa = ctx.numa;
  device.upstream = upstream_;
  readOsDevices(object, device);
  topo_.pciDevices.push_back(std::move(device));
}

// Discovery uses GPUs (display/3D controllers) and NICs (network controllers) only.
bool isDiscoveredKind(uint16_t classId) {
  return (classId >> 8) == 0x03 || (classId >> 8) == 0x02;
}

std::string pciClassText(uint16_t classId) {
  char text[8];
  std::snprintf(text, sizeof text, "%04x", static_cast<unsigned>(classId));
  return text;
}

// Machines with several host bridges in PCI domain 0 can number a bus from 0 under each of them, so a
// real export can hold two devices with one bus id (hwloc's own test set has a SATA controller and a
// ConnectX-4 both at 0000:04:00.0). Bus ids name GPUs and NICs everywhere else (NVML, sysfs, NCCL), so
// two GPUs or NICs sharing one stay an error, as do two devices under one host bridge (a broken export); a
// device that is neither GPU nor NIC is dropped with a warning and discovery goes on. Returns whether the
// device at `object` is to be read.
bool Reader::keepDuplicate(pugi::xml_node object, const std::string& busId, uint16_t classId, ptrdiff_t firstAt) {
  const auto first = std::find_if(topo_.pciDevices.begin(), topo_.pciDevices.end(),
                                  [&busId](const HwlocPciDevice& d) { return d.busId == busId; });
  const bool firstUsed = first != topo_.pciDevices.end() && isDiscoveredKind(first->classId);
  const bool sameHostBridge = first != topo_.pciDevices.end() && !first->upstream.empty() && !upstream_.empty() &&
                              first->upstream.front() == upstream_.front();
  if ((isDiscoveredKind(classId) && firstUsed) || sameHostBridge) {
    error(object, "PCIDev " + busId + " appears twice (first at " + where(firstAt) + ")");
    return false;
  }
  const std::string here = where(object.offset_debug());
  if (!isDiscoveredKind(classId)) {
    topo_.warnings.push_back(here + ": PCIDev " + busId + " (class " + pciClassText(classId) +
                             ", neither GPU nor NIC) has the bus id of the device at " + where(firstAt) +
                             "; this one is left out");
    return false;
  }
  if (first != topo_.pciDevices.end()) {
    topo_.warnings.push_back(where(firstAt) + ": PCIDev " + busId + " (class " + pciClassText(first->classId) +
                             ", neither GPU nor NIC) has the bus id of the device at " + here + "; it is left out");
    topo_.pciDevices.erase(first);
  }
  return true;
}

void Reader::readOsDevices(pugi::xml_node pci, HwlocPciDevice& device) {
  for (pugi::xml_node object : pci.children("object")) {
    if (std::string_view(object.attribute("type").value()) != "OSDev") continue;
    if (device.osdevs.size() == kHwlocMaxOsDevsPerPci) {
      error(object, "PCIDev " + device.busId + " has more than " + std::to_string(kHwlocMaxOsDevsPerPci) +
                        " OS devices; the rest are not read");
      return;
    }
    HwlocOsDev osdev;
    osdev.name = object.attribute("name").value();
    long type = 0;
    if (osdev.name.empty() || !parseNumber(std::string_view(object.attribute("osdev_type").value()), type)) {
      error(object, "OSDev \"" + osdev.name + "\" under " + device.busId + ": needs a name and a numeric osdev_type");
      continue;
    }
    osdev.kind = osDevKindFromHwloc(type, bitmask_);
    osdev.info = readInfos(object);
    device.osdevs.push_back(std::move(osdev));
  }
}

}  // namespace

HwlocTopology readHwlocXml(std::string_view text, const std::string& sourceName, std::vector<std::string>& errors) {
  return Reader(text, sourceName, errors).read();
}

HwlocTopology readHwlocXmlFile(const std::string& path, std::vector<std::string>& errors) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    errors.push_back(path + ": cannot open the hwloc XML file");
    return {};
  }
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kHwlocMaxXmlBytes) break;  // readHwlocXml rejects it with the size
  }
  return readHwlocXml(text, path, errors);
}

}  // namespace railtune::fabric::discover
