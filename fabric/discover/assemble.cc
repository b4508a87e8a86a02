// assembleHost: one host's sources -> a one-domain Fabric in the full form (rules in assemble.h).
#include "fabric/discover/assemble.h"

#include <algorithm>

#include "fabric/discover/assemble_parts.h"

namespace railtune::fabric::discover {
namespace detail {

void add(Discovery& out, Severity severity, std::string text) {
  out.findings.push_back({severity, std::move(text)});
}

const HwlocPciDevice* hwlocDevice(const Sources& sources, const std::string& busId) {
  if (!sources.hwloc || busId.empty()) return nullptr;
  for (const HwlocPciDevice& dev : sources.hwloc->pciDevices)
    if (dev.busId == busId) return &dev;
  return nullptr;
}

}  // namespace detail

namespace {

using detail::add;

CpuArch archOf(const HwlocTopology& hwloc, const std::string& vendor) {
  const std::string& a = hwloc.architecture;
  if (a == "x86_64") return CpuArch::X86_64;
  if (a.rfind("ppc64", 0) == 0) return CpuArch::Ppc64;
  if (a == "aarch64" || a == "arm64") return CpuArch::Arm64;
  return vendor == "GenuineIntel" || vendor == "AuthenticAMD" ? CpuArch::X86_64 : CpuArch::Arm64;
}

bool hasCpus(const std::string& cpumap) {
  return cpumap.find_first_not_of("0,") != std::string::npos;
}

// One CPU entry per NUMA node that has CPUs (Grace-Blackwell also shows GPU memory as CPU-less nodes).
std::vector<Cpu> assembleCpus(const Sources& sources, Discovery& out) {
  std::vector<Cpu> cpus;
  if (!sources.hwloc) return cpus;
  bool assumedGrace = false;
  for (const HwlocNuma& numa : sources.hwloc->numas) {
    if (!hasCpus(numa.cpumap)) continue;
    Cpu cpu;
    cpu.numa = numa.osIndex;
    cpu.affinity = numa.cpumap;
    for (const HwlocPackage& pkg : sources.hwloc->packages)
      if (std::find(pkg.numas.begin(), pkg.numas.end(), numa.osIndex) != pkg.numas.end()) {
        cpu.vendor = pkg.vendor;
        cpu.familyId = pkg.familyId;
        cpu.modelId = pkg.modelId;
      }
    cpu.arch = archOf(*sources.hwloc, cpu.vendor);
    if (cpu.arch == CpuArch::Arm64 && cpu.vendor.empty()) {
      cpu.vendor = "NVIDIA";  // Grace: hwloc reports Arm's Neoverse cores, NCCL's XML says NVIDIA
      assumedGrace = true;
    }
    cpu.loc.file = "hwloc";
    cpus.push_back(cpu);
  }
  if (assumedGrace) add(out, Severity::Note, "arm64 CPUs without a vendor taken as NVIDIA Grace");
  return cpus;
}

// Placeholder switches so the description is complete: one leaf per rail (and plane) in rail group
// rg0, under spine0. Merging hosts keeps them; a real fabric's switch names replace them.
void addNetwork(Fabric& fabric, const Host& host) {
  Network& net = fabric.network;
  for (const Nic& nic : host.nics) {
    net.rails = std::max(net.rails, nic.rail + 1);
    net.planes = std::max(net.planes, nic.plane + 1);
  }
  if (!host.nics.empty()) net.linkLayer = host.nics.front().linkLayer;
  net.railGroups.push_back({"rg0", {fabric.domains.front().name}, "spine0", {}});
  fabric.domains.front().railGroup = "rg0";
  const int speedGbps = host.nics.empty() ? 0 : host.nics.front().speedMbps / 1000;
  for (int rail = 0; rail < net.rails; ++rail)
    for (int plane = 0; plane < net.planes; ++plane) {
      const bool planes = net.planes > 1;
      Switch leaf{"rg0-leaf-r" + std::to_string(rail) + (planes ? "-p" + std::to_string(plane) : ""),
                  SwitchTier::Leaf,
                  rail,
                  planes ? plane : -1,
                  "rg0",
                  speedGbps,
                  {"spine0"},
                  {}};
      net.switches.push_back(leaf);
    }
  net.switches.push_back({"spine0", SwitchTier::Spine, -1, -1, "", speedGbps, {}, {}});
}

const Profile* chosenProfile(const DiscoverOptions& options, Discovery& out) {
  if (options.profile.empty() || options.profile == "none") return nullptr;
  const Profile* profile = findProfile(options.profile);
  if (!profile)
    add(out, Severity::Error, "--profile " + options.profile + ": unknown profile (known: " + profileNameList() + ")");
  return profile;
}

}  // namespace

bool Discovery::hasErrors() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::Error; });
}

std::string guessProfile(const std::vector<Gpu>& gpus) {
  if (gpus.empty()) return "";
  const int sm = gpus.front().sm;
  if (std::any_of(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.sm != sm; })) return "";
  const bool c2c = gpus.front().c2cLinks > 0;
  if (c2c && gpus.size() == 4) return sm == 103 ? "gb300-nvl72" : sm == 100 ? "gb200-nvl72" : "";
  if (!c2c && gpus.size() == 8) return sm == 90 ? "dgx-h100" : sm == 100 ? "dgx-b200" : "";
  return "";
}

Discovery assembleHost(const Sources& sources, const DiscoverOptions& options) {
  Discovery out;
  const Profile* profile = chosenProfile(options, out);
  Host host;
  host.name = options.host;
  host.cpus = assembleCpus(sources, out);
  host.gpus = detail::assembleGpus(sources, profile, out);
  host.nics = detail::assembleNics(sources, host.gpus, options, out);
  host.profile = profile ? profile->name : options.profile == "none" ? "" : guessProfile(host.gpus);
  host.loc.file = "discovered";
  const std::string clique = detail::assembleClique(sources, options, out);
  NvlDomain domain;
  domain.name = !options.domain.empty() ? options.domain
                : !clique.empty()       ? "nvl-" + clique.substr(0, 8) + "-" + clique.substr(clique.rfind('.') + 1)
                                        : host.name;
  domain.rack = options.rack.empty() ? domain.name : options.rack;
  domain.cliqueId = clique;
  domain.hosts = {host.name};
  host.domain = domain.name;
  Fabric& fabric = out.fabric;
  fabric.name = domain.name;
  fabric.domains.push_back(domain);
  addNetwork(fabric, host);
  fabric.hosts.push_back(std::move(host));
  return out;
}

}  // namespace railtune::fabric::discover
