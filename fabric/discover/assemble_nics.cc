// Compute NICs of the discovered host: which RDMA devices NCCL should use, which GPU each serves,
// and their rails and planes (rules in assemble.h).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "fabric/discover/assemble_parts.h"
#include "fabric/discover/sysfs_source.h"

namespace railtune::fabric::discover::detail {
namespace {

// One RDMA device as the NIC rules see it, whichever source described it.
struct Device {
  std::string name, busId, netdev, linkLayer = "InfiniBand";
  std::vector<std::string> upstream;
  int numa = -1, port = 1, rateMbps = 0, gidIndex = -1;
  std::string state, gid;
  uint16_t deviceId = 0;
  uint64_t guid = 0;  // system image GUID (one per NIC ASIC), else node GUID
};

// A physical NIC: its devices (one per plane) in PCI function order.
struct PhysicalNic {
  std::vector<Device> devices;
  int nearestGpu = -1;
  int switchDepth = 0;  // > 0: shares a PCI switch with nearestGpu
  std::string busId() const { return devices.front().busId; }
};

const std::string kIpv4Mapped = "0000:0000:0000:0000:0000:ffff:";

// The GID NCCL's IB transport would use by default: index 0 on InfiniBand; on RoCE the first RoCE v2
// GID holding an IPv4 address (NCCL_IB_ADDR_FAMILY=AF_INET, NCCL_IB_ROCE_VERSION_NUM=2).
void pickGid(const RdmaPort& port, Device& dev) {
  for (const GidEntry& g : port.gids) {
    const bool wanted =
        dev.linkLayer == "Ethernet" ? g.type == "RoCE v2" && g.gid.rfind(kIpv4Mapped, 0) == 0 : g.index == 0;
    if (wanted) {
      dev.gidIndex = g.index;
      dev.gid = g.gid;
      return;
    }
  }
}

Device fromSysfs(const Sources& sources, const RdmaDevice& rdma, Discovery& out) {
  Device dev;
  dev.name = rdma.name;
  dev.busId = rdma.busId;
  dev.deviceId = rdma.deviceId;
  dev.guid = rdma.sysImageGuid ? rdma.sysImageGuid : rdma.nodeGuid;
  const HwlocPciDevice* pci = hwlocDevice(sources, rdma.busId);
  // hwloc's chain when it has one, so GPU and NIC chains come from the same source.
  dev.upstream = pci ? pci->upstream : rdma.upstream;
  dev.numa = rdma.numa >= 0 ? rdma.numa : (pci ? pci->numa : -1);
  if (!rdma.netdevs.empty()) dev.netdev = rdma.netdevs.front();
  if (rdma.ports.empty()) return dev;
  auto active =
      std::find_if(rdma.ports.begin(), rdma.ports.end(), [](const RdmaPort& p) { return p.state == "ACTIVE"; });
  const RdmaPort& port = active != rdma.ports.end() ? *active : rdma.ports.front();
  if (active == rdma.ports.end())
    add(out, Severity::Warning,
        rdma.name + " port " + std::to_string(port.port) + " is " +
            (port.state.empty() ? "in an unknown state" : port.state) + ", not ACTIVE");
  dev.port = port.port;
  dev.state = port.state;
  dev.rateMbps = port.rateMbps;
  if (!port.linkLayer.empty()) dev.linkLayer = port.linkLayer;
  for (const GidEntry& g : port.gids)
    if (!g.netdev.empty()) dev.netdev = g.netdev;  // the port's own netdev (multi-port HCAs list several)
  pickGid(port, dev);
  return dev;
}

// Without sysfs (an hwloc export from another machine), hwloc's OpenFabrics devices and their infos.
std::vector<Device> fromHwlocOnly(const HwlocTopology& hwloc) {
  std::vector<Device> devices;
  for (const HwlocPciDevice& pci : hwloc.pciDevices) {
    for (const HwlocOsDev& os : pci.osdevs) {
      if (os.kind != OsDevKind::OpenFabrics) continue;
      Device dev;
      dev.name = os.name;
      dev.busId = pci.busId;
      dev.upstream = pci.upstream;
      dev.numa = pci.numa;
      dev.deviceId = pci.deviceId;
      auto info = [&](const char* key) {
        auto it = os.info.find(key);
        return it == os.info.end() ? std::string() : it->second;
      };
      dev.guid = parseGuid(info("SysImageGUID")).value_or(0);
      if (dev.guid == 0) dev.guid = parseGuid(info("NodeGUID")).value_or(0);
      if (pci.classId == 0x0200) dev.linkLayer = "Ethernet";
      for (const HwlocOsDev& net : pci.osdevs)
        if (net.kind == OsDevKind::Network) dev.netdev = net.name;
      devices.push_back(dev);
    }
  }
  return devices;
}

std::vector<PhysicalNic> groupPhysical(std::vector<Device> devices) {
  std::sort(devices.begin(), devices.end(), [](const Device& a, const Device& b) { return a.busId < b.busId; });
  std::map<std::string, size_t> byKey;
  std::vector<PhysicalNic> nics;
  for (Device& dev : devices) {
    // Planes of one NIC share the ASIC's system image GUID; without one, the PCI device (all but the function).
    char guid[20];
    std::snprintf(guid, sizeof guid, "%016llx", static_cast<unsigned long long>(dev.guid));
    const std::string key = dev.guid ? std::string(guid) : dev.busId.substr(0, dev.busId.size() - 2);
    auto [it, fresh] = byKey.emplace(key, nics.size());
    if (fresh) nics.push_back({});
    nics[it->second].devices.push_back(std::move(dev));
  }
  return nics;
}

std::string describe(const PhysicalNic& nic) {
  const Device& d = nic.devices.front();
  char id[8];
  std::snprintf(id, sizeof id, "%04x", d.deviceId);
  return d.name + " (" + d.busId + ", device 0x" + id + ", " + d.linkLayer +
         (d.rateMbps ? " " + std::to_string(d.rateMbps / 1000) + " Gb/s" : "") + ")";
}

void pairBySwitch(std::vector<PhysicalNic>& nics, const Sources& sources, const std::vector<Gpu>& gpus) {
  for (PhysicalNic& nic : nics)
    for (const Gpu& gpu : gpus) {
      const HwlocPciDevice* pci = hwlocDevice(sources, gpu.busId);
      const int depth = pci ? sharedSwitchDepth(nic.devices.front().upstream, pci->upstream) : 0;
      if (depth > nic.switchDepth) {
        nic.switchDepth = depth;
        nic.nearestGpu = gpu.index;
      }
    }
}

// GPUs hanging off the CPU by C2C share no switch with any NIC: pair the k-th NIC of a NUMA node
// with the k-th GPU of that node, among the GPUs and NICs still unpaired.
void pairByNuma(std::vector<PhysicalNic*>& nics, const std::vector<Gpu>& gpus) {
  std::set<int> taken;
  for (const PhysicalNic* nic : nics)
    if (nic->nearestGpu >= 0) taken.insert(nic->nearestGpu);
  std::map<int, std::vector<int>> freeGpus;
  for (const Gpu& gpu : gpus)
    if (!taken.count(gpu.index)) freeGpus[gpu.numa].push_back(gpu.index);
  std::map<int, size_t> next;
  for (PhysicalNic* nic : nics) {
    if (nic->nearestGpu >= 0) continue;
    const int numa = nic->devices.front().numa;
    std::vector<int>& candidates = freeGpus[numa];
    size_t& k = next[numa];
    if (k < candidates.size()) {
      taken.insert(candidates[k]);
      nic->nearestGpu = candidates[k++];
    }
  }
}

// Without PCI or NUMA evidence (no hwloc, GPU NUMA unknown), the k-th remaining NIC in bus order serves
// the k-th remaining GPU in index (= bus) order, as on every DGX-style board. Says so: it is a guess.
void pairByBusOrder(std::vector<PhysicalNic*>& nics, const std::vector<Gpu>& gpus, Discovery& out) {
  std::set<int> taken;
  for (const PhysicalNic* nic : nics)
    if (nic->nearestGpu >= 0) taken.insert(nic->nearestGpu);
  std::vector<int> freeGpus;
  for (const Gpu& gpu : gpus)
    if (!taken.count(gpu.index)) freeGpus.push_back(gpu.index);
  size_t k = 0;
  for (PhysicalNic* nic : nics)
    if (nic->nearestGpu < 0 && k < freeGpus.size()) {
      nic->nearestGpu = freeGpus[k++];
      add(out, Severity::Note,
          describe(*nic) + ": paired with GPU " + std::to_string(nic->nearestGpu) +
              " by PCI bus order (no shared PCI switch or NUMA node to go by)");
    }
}

}  // namespace

namespace {

std::vector<PhysicalNic> explicitNics(std::vector<PhysicalNic>& all, const std::vector<std::string>& hcas,
                                      Discovery& out) {
  std::vector<PhysicalNic> chosen;
  for (PhysicalNic& nic : all) {
    PhysicalNic kept = nic;
    kept.devices.clear();
    for (const Device& dev : nic.devices)
      if (std::find(hcas.begin(), hcas.end(), dev.name) != hcas.end()) kept.devices.push_back(dev);
    if (!kept.devices.empty()) chosen.push_back(std::move(kept));
  }
  for (const std::string& name : hcas) {
    const bool found = std::any_of(all.begin(), all.end(), [&](const PhysicalNic& nic) {
      return std::any_of(nic.devices.begin(), nic.devices.end(), [&](const Device& d) { return d.name == name; });
    });
    if (!found) add(out, Severity::Error, "--hca " + name + ": no such RDMA device on this host");
  }
  return chosen;
}

// The NIC model (PCI device id) NCCL should use when no NIC shares a switch with a GPU: the one with
// as many NICs as GPUs, InfiniBand first; else the largest InfiniBand model, else the largest.
uint16_t computeModel(const std::vector<PhysicalNic>& all, size_t gpus) {
  std::map<uint16_t, std::pair<size_t, bool>> models;  // device id -> count, is InfiniBand
  for (const PhysicalNic& nic : all) {
    auto& [count, ib] = models[nic.devices.front().deviceId];
    ++count;
    ib = ib || nic.devices.front().linkLayer == "InfiniBand";
  }
  auto score = [&](const std::pair<size_t, bool>& m) { return std::make_tuple(m.first == gpus, m.second, m.first); };
  auto best = std::max_element(models.begin(), models.end(),
                               [&](const auto& a, const auto& b) { return score(a.second) < score(b.second); });
  return best->first;
}

std::vector<PhysicalNic> computeNics(std::vector<PhysicalNic>& all, const std::vector<Gpu>& gpus,
                                     const DiscoverOptions& options, Discovery& out) {
  if (!options.hcas.empty()) return explicitNics(all, options.hcas, out);
  std::vector<PhysicalNic> chosen;
  const bool anyShared = std::any_of(all.begin(), all.end(), [](const PhysicalNic& n) { return n.switchDepth > 0; });
  const uint16_t model = all.empty() || anyShared ? 0 : computeModel(all, gpus.size());
  for (PhysicalNic& nic : all) {
    const bool keep = anyShared ? nic.switchDepth > 0 : nic.devices.front().deviceId == model;
    if (keep)
      chosen.push_back(nic);
    else
      add(out, Severity::Note,
          describe(nic) + ": not a compute NIC (" +
              (anyShared ? "shares no PCI switch with a GPU" : "another NIC model serves the GPUs") +
              "); name it with --hca to use it");
  }
  return chosen;
}

Nic toNic(const Device& dev, const PhysicalNic& nic, int rail, int plane, const std::vector<Gpu>& gpus,
          bool hwlocOnly) {
  Nic out;
  out.hca = dev.name;
  out.netdev = dev.netdev;
  out.busId = dev.busId;
  out.port = dev.port;
  out.speedMbps = dev.rateMbps;
  out.guid = dev.guid;
  out.rail = rail;
  out.plane = plane;
  out.nearestGpu = nic.nearestGpu;
  out.numa = dev.numa;
  if (out.numa < 0)
    for (const Gpu& gpu : gpus)
      if (gpu.index == nic.nearestGpu) out.numa = gpu.numa;
  if (out.numa < 0) out.numa = 0;
  out.linkLayer = dev.linkLayer;
  out.gidIndex = dev.gidIndex;
  out.gid = dev.gid;
  out.loc.file = hwlocOnly ? "hwloc" : "sysfs";
  return out;
}

}  // namespace

int sharedSwitchDepth(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  int depth = 0;
  for (size_t i = 1; i < a.size() && i < b.size() && a[i] == b[i]; ++i) ++depth;
  return depth;
}

std::vector<Nic> assembleNics(const Sources& sources, const std::vector<Gpu>& gpus, const DiscoverOptions& options,
                              Discovery& out) {
  std::vector<Device> devices;
  const bool hwlocOnly = !sources.sysfs || sources.sysfs->rdma.empty();
  if (!hwlocOnly)
    for (const RdmaDevice& rdma : sources.sysfs->rdma) devices.push_back(fromSysfs(sources, rdma, out));
  else if (sources.hwloc)
    devices = fromHwlocOnly(*sources.hwloc);
  if (hwlocOnly && !devices.empty())
    add(out, Severity::Note, "NICs from hwloc only (no sysfs RDMA devices): port speed and state unknown");
  std::vector<PhysicalNic> all = groupPhysical(std::move(devices));
  pairBySwitch(all, sources, gpus);
  std::vector<PhysicalNic> chosen = computeNics(all, gpus, options, out);
  std::vector<PhysicalNic*> pointers;
  for (PhysicalNic& nic : chosen) pointers.push_back(&nic);
  std::sort(pointers.begin(), pointers.end(), [](auto* a, auto* b) { return a->busId() < b->busId(); });
  pairByNuma(pointers, gpus);
  pairByBusOrder(pointers, gpus, out);
  std::sort(chosen.begin(), chosen.end(), [](const PhysicalNic& a, const PhysicalNic& b) {
    const int ga = a.nearestGpu < 0 ? 1 << 30 : a.nearestGpu, gb = b.nearestGpu < 0 ? 1 << 30 : b.nearestGpu;
    return std::tie(ga, a.devices.front().busId) < std::tie(gb, b.devices.front().busId);
  });
  size_t planes = 1;
  for (const PhysicalNic& nic : chosen) planes = std::max(planes, nic.devices.size());
  std::vector<Nic> nics;
  for (size_t rail = 0; rail < chosen.size(); ++rail) {
    const PhysicalNic& nic = chosen[rail];
    if (nic.devices.size() != planes)
      add(out, Severity::Warning,
          describe(nic) + ": " + std::to_string(nic.devices.size()) + " plane(s), other NICs have " +
              std::to_string(planes));
    if (nic.nearestGpu < 0) add(out, Severity::Warning, describe(nic) + ": no GPU to pair it with");
    for (size_t p = 0; p < nic.devices.size(); ++p)
      nics.push_back(
          toNic(nic.devices[p], nic, static_cast<int>(rail), planes > 1 ? static_cast<int>(p) : -1, gpus, hwlocOnly));
  }
  return nics;
}

}  // namespace railtune::fabric::discover::detail
