// NCCL topology XML writer: fabric::Host → element tree → text in NCCL's own dumper style.
//
// Choices (docs/formats.md, "NCCL topology XML"):
//  - `<gpu>` carries dev and sm but neither `rank` nor `gdr`. NCCL sets both on the GPU of the loading
//    process (rank = its communicator rank, gdr = what it detected; xmlInitAttrInt keeps a value already in
//    the file, so a written gdr="1" would claim GPUDirect RDMA without checking). The other GPUs of the host
//    reach NCCL through the local all-gather, each from its own process; a fixed rank in a shared file would
//    be wrong for every job but one.
//  - A GPU without C2C (DGX boards) sits under a synthetic PCI switch (`ffff:ff:NN.0`, the form Azure's
//    published files use) together with the NICs whose nearestGpu it is, so NCCL sees GPU and NIC at PIX
//    distance, as on the boards' PCIe switches.
//  - A GPU with C2C (GB200/GB300: Grace-Blackwell) is written as NCCL's own dump writes it: its PCI function
//    directly under its Grace `<cpu>` (NCCL's sysfs walk, src/graph/xml.cc:761-777, stops at the root
//    complex and adds no bridge for a root port), and its NICs directly under the `<cpu>` of their NUMA
//    node too, since they hang off Grace's PCIe. NCCL then joins GPU and Grace by the `<c2c>` link
//    (src/graph/topo.cc:905-944) and rates the GPU-to-NIC path P2C (C2C + PHB, src/graph/paths.cc:203-207
//    and 794-808), which is what enables GPUDirect RDMA there (NCCL_NET_GDR_C2C, paths.cc:464-511). NICs
//    follow in the order of their nearest GPU, which is how the reader pairs them back.
//  - One `<nvlink target="fffffff:ff:ff.0" tclass="0x068000">` with the GPU's link count: NCCL folds every
//    NVSwitch target into one NVS node anyway, and on NVL72 the switches are outside the host.
//  - `<net>` has name (the HCA, which NCCL's IB transport and railtune's net plugin both report, so NCCL
//    can find it and rewrite dev), dev (the NIC's position on the host), speed, port, guid, rail, plane.
#include "topo_gen/nccl_xml.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace railtune::topo {
namespace {

using fabric::Cpu;
using fabric::Gpu;
using fabric::Host;
using fabric::Nic;

std::string hex16(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* archName(fabric::CpuArch arch) {
  switch (arch) {
    case fabric::CpuArch::X86_64:
      return "x86_64";
    case fabric::CpuArch::Arm64:
      return "arm64";
    case fabric::CpuArch::Ppc64:
      return "ppc64";
  }
  return "arm64";
}

// NCCL derives PCI bandwidth from link_speed × link_width. Blackwell GPUs run Gen6.
const char* gpuLinkSpeed(const Gpu& gpu) {
  return gpu.sm >= 100 ? "64.0 GT/s PCIe" : "32.0 GT/s PCIe";
}
// Only ConnectX-8 runs 800G ports or splits a port into planes (2 x 400G), and it is a Gen6 device.
const char* nicLinkSpeed(const Nic& nic) {
  return nic.speedMbps >= 800000 || nic.plane >= 0 ? "64.0 GT/s PCIe" : "32.0 GT/s PCIe";
}

void requireBusId(const Host& host, const std::string& what, const std::string& busId) {
  if (!isNcclBusId(busId))
    throw std::invalid_argument("host " + host.name + ": " + what + " has bus id '" + busId +
                                "', not a lowercase dddd:bb:dd.f PCI address");
}

XmlElement cpuElement(const Cpu& cpu) {
  XmlElement e{"cpu", {}, {}};
  e.attr("numaid", std::to_string(cpu.numa));
  if (!cpu.affinity.empty()) e.attr("affinity", cpu.affinity);
  e.attr("arch", archName(cpu.arch));
  if (!cpu.vendor.empty()) e.attr("vendor", cpu.vendor);
  if (cpu.familyId >= 0) e.attr("familyid", std::to_string(cpu.familyId));
  if (cpu.modelId >= 0) e.attr("modelid", std::to_string(cpu.modelId));
  return e;
}

XmlElement gpuPci(const Gpu& gpu) {
  XmlElement pci{"pci", {}, {}};
  pci.attr("busid", gpu.busId).attr("class", "0x030200").attr("link_speed", gpuLinkSpeed(gpu)).attr("link_width", "16");
  XmlElement& g = pci.child("gpu");
  g.attr("dev", std::to_string(gpu.index)).attr("sm", std::to_string(gpu.sm));
  if (gpu.nvlinks > 0)
    g.child("nvlink")
        .attr("target", kNvSwitchTarget)
        .attr("count", std::to_string(gpu.nvlinks))
        .attr("tclass", kNvSwitchClass);
  if (gpu.c2cLinks > 0)
    g.child("c2c").attr("bw", std::to_string(gpu.c2cBwMBps)).attr("count", std::to_string(gpu.c2cLinks));
  return pci;
}

XmlElement netElement(const Nic& nic, int dev) {
  XmlElement net{"net", {}, {}};
  net.attr("name", nic.hca).attr("dev", std::to_string(dev)).attr("speed", std::to_string(nic.speedMbps));
  net.attr("port", std::to_string(nic.port));
  if (nic.guid != 0) net.attr("guid", hex16(nic.guid));
  net.attr("rail", std::to_string(nic.rail)).attr("plane", std::to_string(nic.plane));
  return net;
}

// NICs sharing a PCI function (ports of one device) share one <pci><nic>, each port its own <net>.
void addNics(const Host& host, const std::vector<size_t>& nicIdx, XmlElement& parent) {
  std::map<std::string, XmlElement*> byBus;
  for (size_t i : nicIdx) {
    const Nic& nic = host.nics[i];
    requireBusId(host, "NIC " + nic.hca, nic.busId);
    XmlElement*& nicElem = byBus[nic.busId];
    if (nicElem == nullptr) {
      XmlElement& pci = parent.child("pci");
      pci.attr("busid", nic.busId).attr("class", nic.linkLayer == "Ethernet" ? "0x020000" : "0x020700");
      pci.attr("link_speed", nicLinkSpeed(nic)).attr("link_width", "16");
      nicElem = &pci.child("nic");
    }
    nicElem->children.push_back(netElement(nic, static_cast<int>(i)));
  }
}

std::string bridgeBusId(int gpuIndex) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "ffff:ff:%02x.0", (gpuIndex + 1) & 0xff);
  return buf;
}

// The GPU a NIC shares a (synthetic) PCI switch with: its nearest GPU when that GPU has no C2C link.
const Gpu* switchGpu(const Host& host, const Nic& nic) {
  for (const Gpu& gpu : host.gpus)
    if (gpu.index == nic.nearestGpu && gpu.c2cLinks == 0) return &gpu;
  return nullptr;
}

// Position of the NIC's nearest GPU in the host's GPU list; NICs with none come last.
size_t nearestGpuOrder(const Host& host, const Nic& nic) {
  for (size_t g = 0; g < host.gpus.size(); ++g)
    if (host.gpus[g].index == nic.nearestGpu) return g;
  return host.gpus.size();
}

void addCpuChildren(const Host& host, const Cpu& cpu, XmlElement& cpuElem) {
  for (const Gpu& gpu : host.gpus) {
    if (gpu.numa != cpu.numa) continue;
    requireBusId(host, "GPU " + std::to_string(gpu.index), gpu.busId);
    if (gpu.c2cLinks > 0) {
      cpuElem.children.push_back(gpuPci(gpu));
      continue;
    }
    XmlElement& bridge = cpuElem.child("pci");
    bridge.attr("busid", bridgeBusId(gpu.index)).attr("class", "0x060400");
    bridge.attr("vendor", "0x0000").attr("device", "0x0000");
    bridge.attr("subsystem_vendor", "0x0000").attr("subsystem_device", "0x0000");
    bridge.attr("link_speed", gpuLinkSpeed(gpu)).attr("link_width", "16");
    bridge.children.push_back(gpuPci(gpu));
    std::vector<size_t> near;
    for (size_t i = 0; i < host.nics.size(); ++i)
      if (host.nics[i].nearestGpu == gpu.index) near.push_back(i);
    addNics(host, near, bridge);
  }
  // NICs with no GPU on their switch hang off the CPU of their NUMA node, in the order of their nearest GPU.
  std::vector<size_t> loose;
  for (size_t i = 0; i < host.nics.size(); ++i)
    if (switchGpu(host, host.nics[i]) == nullptr && host.nics[i].numa == cpu.numa) loose.push_back(i);
  std::stable_sort(loose.begin(), loose.end(), [&host](size_t a, size_t b) {
    return nearestGpuOrder(host, host.nics[a]) < nearestGpuOrder(host, host.nics[b]);
  });
  addNics(host, loose, cpuElem);
}

bool hasCpu(const Host& host, int numa) {
  for (const Cpu& cpu : host.cpus)
    if (cpu.numa == numa) return true;
  return false;
}

void requirePlaced(const Host& host) {
  for (const Gpu& gpu : host.gpus)
    if (!hasCpu(host, gpu.numa))
      throw std::invalid_argument("host " + host.name + ": GPU " + std::to_string(gpu.index) + " is on NUMA node " +
                                  std::to_string(gpu.numa) + ", which has no CPU");
  for (const Nic& nic : host.nics) {
    if (switchGpu(host, nic) == nullptr && !hasCpu(host, nic.numa))
      throw std::invalid_argument("host " + host.name + ": NIC " + nic.hca + " is on NUMA node " +
                                  std::to_string(nic.numa) + ", which has no CPU");
  }
}

void dumpElement(const XmlElement& e, int indent, std::string& out) {
  out.append(static_cast<size_t>(indent), ' ');
  out += '<';
  out += e.name;
  for (const auto& [key, value] : e.attrs) out += ' ' + key + "=\"" + value + '"';
  if (e.children.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  for (const XmlElement& c : e.children) dumpElement(c, indent + 2, out);
  out.append(static_cast<size_t>(indent), ' ');
  out += "</" + e.name + ">\n";
}

void collectViolations(const XmlElement& e, const std::string& path, std::vector<std::string>& out) {
  const std::string here = path.empty() ? e.name : path + "/" + e.name;
  if (static_cast<int>(e.attrs.size()) > kNcclMaxAttrs)
    out.push_back(here + ": " + std::to_string(e.attrs.size()) + " attributes, NCCL keeps only " +
                  std::to_string(kNcclMaxAttrs));
  if (static_cast<int>(e.children.size()) > kNcclMaxChildren)
    out.push_back(here + ": " + std::to_string(e.children.size()) + " children, NCCL's parser allows " +
                  std::to_string(kNcclMaxChildren));
  if (static_cast<int>(e.name.size()) > kNcclMaxTextLen) out.push_back(here + ": element name too long");
  for (const auto& [key, value] : e.attrs) {
    if (static_cast<int>(key.size()) > kNcclMaxTextLen || static_cast<int>(value.size()) > kNcclMaxTextLen)
      out.push_back(here + " " + key.substr(0, 40) + ": longer than the " + std::to_string(kNcclMaxTextLen) +
                    " characters NCCL's parser reads");
    if (value.find('"') != std::string::npos) out.push_back(here + " " + key + ": value contains a double quote");
  }
  for (const XmlElement& c : e.children) collectViolations(c, here, out);
}

}  // namespace

bool isNcclBusId(const std::string& text) {
  // dddd:bb:dd.f with lowercase hex digits: NCCL compares bus ids as strings when it fuses files.
  static constexpr const char* kShape = "xxxx:xx:xx.x";
  if (text.size() != 12) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool hexDigit = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (kShape[i] == 'x' ? !hexDigit : c != kShape[i]) return false;
  }
  return true;
}

XmlElement& XmlElement::attr(const std::string& key, const std::string& value) {
  attrs.emplace_back(key, value);
  return *this;
}

XmlElement& XmlElement::child(const std::string& childName) {
  children.push_back(XmlElement{childName, {}, {}});
  return children.back();
}

int XmlElement::countElements() const {
  int n = 1;
  for (const XmlElement& c : children) n += c.countElements();
  return n;
}

XmlElement buildNcclXml(const Host& host) {
  requirePlaced(host);
  XmlElement system{"system", {}, {}};
  system.attr("version", "1");
  if (!host.name.empty()) system.attr("name", host.name);
  for (const Cpu& cpu : host.cpus) {
    XmlElement cpuElem = cpuElement(cpu);
    addCpuChildren(host, cpu, cpuElem);
    system.children.push_back(std::move(cpuElem));
  }
  return system;
}

std::string dumpNcclXml(const XmlElement& root) {
  std::string out;
  dumpElement(root, 0, out);
  return out;
}

std::string writeNcclXml(const Host& host) {
  return dumpNcclXml(buildNcclXml(host));
}

std::vector<std::string> ncclLimitViolations(const XmlElement& root) {
  std::vector<std::string> out;
  const int elements = root.countElements();
  if (elements > kNcclMaxElements)
    out.push_back(std::to_string(elements) + " elements, NCCL loads at most " + std::to_string(kNcclMaxElements));
  collectViolations(root, "", out);
  return out;
}

}  // namespace railtune::topo
