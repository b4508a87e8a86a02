// This host discovered from its sources (discover_host.h).
#include "fabric/discover/discover_host.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/regular_file.h"
#include "fabric/discover/hwloc_source.h"
#include "fabric/discover/sysfs_source.h"
#include "fabric/validate.h"

namespace railtune::fabric::discover {
namespace {

std::string readFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error("cannot read " + file.describe());
  return file.bytes;
}

struct ReadSources {
  HwlocTopology hwloc;
  SysfsInventory sysfs;
  NvmlInventory nvml;
  bool haveHwloc = false;
};

// The live topology is optional (discovery goes on without it); a file the user named is not: a file hwloc
// cannot have written stops discovery rather than describing the host from half of it.
void readHwloc(const HostDiscoveryRequest& request, ReadSources& src, HostDiscovery& out) {
  if (request.noHwloc) return;
  std::vector<std::string> errors;
  src.hwloc = request.hwlocXml.empty() ? readLiveHwloc(errors)
                                       : readHwlocXml(readFile(request.hwlocXml), request.hwlocXml, errors);
  src.haveHwloc = errors.empty();
  for (const std::string& w : src.hwloc.warnings) out.findings.push_back({Severity::Warning, "hwloc: " + w});
  for (const std::string& e : errors)
    out.findings.push_back({request.hwlocXml.empty() ? Severity::Warning : Severity::Error, "hwloc: " + e});
  if (!errors.empty() && !request.hwlocXml.empty())
    out.refusal = "cannot use " + request.hwlocXml + " (errors above); nothing written";
}

void readOthers(const HostDiscoveryRequest& request, ReadSources& src, HostDiscovery& out) {
  src.sysfs = readSysfs(request.sysfsRoot);
  for (const std::string& note : src.sysfs.notes) out.findings.push_back({Severity::Note, "sysfs: " + note});
  if (!request.readNvml) return;
  src.nvml = request.readNvml();
  if (!src.nvml.loaded) out.findings.push_back({Severity::Note, src.nvml.error});
  for (const std::string& note : src.nvml.notes) out.findings.push_back({Severity::Note, "NVML: " + note});
}

std::string headerOf(const HostDiscoveryRequest& request, const ReadSources& src) {
  std::string text = "railtune topo discover on " + request.assemble.host + ": hwloc " +
                     (!src.haveHwloc             ? "not read"
                      : request.hwlocXml.empty() ? "live"
                                                 : "from " + request.hwlocXml) +
                     ", sysfs " + std::to_string(src.sysfs.rdma.size()) + " RDMA device(s), NVML " +
                     (src.nvml.loaded ? "driver " + src.nvml.driverVersion : "absent") + ".\n";
  text += "Switches are placeholders (rail group rg0, spine0): merge hosts with `railtune topo merge`\n";
  text += "and name your fabric's switches before emitting scheduler topology.";
  return text;
}

}  // namespace

HostDiscovery discoverHost(const HostDiscoveryRequest& request) {
  HostDiscovery out;
  DiscoverOptions assemble = request.assemble;
  if (!request.nodeLabels.empty()) {
    assemble.cliqueLabel = cliqueFromNodeLabels(request.nodeLabels);
    assemble.cliqueLabelGiven = true;
  }
  ReadSources src;
  readHwloc(request, src, out);
  if (!out.refusal.empty()) return out;
  readOthers(request, src, out);
  const Sources sources{src.haveHwloc ? &src.hwloc : nullptr, &src.sysfs, request.readNvml ? &src.nvml : nullptr};
  out.found = assembleHost(sources, assemble);
  out.findings.insert(out.findings.end(), out.found.findings.begin(), out.found.findings.end());
  const Host& host = out.found.fabric.hosts.front();
  out.noGpu = host.gpus.empty();
  if (out.noGpu) return out;
  if (host.nics.empty())
    out.findings.push_back({Severity::Warning, "no RDMA NIC found: NCCL would fall back to sockets between hosts"});
  validate(out.found.fabric, out.diagnostics);
  out.header = headerOf(request, src);
  return out;
}

std::string cliqueFromNodeLabels(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not JSON: " + e.what());
  }
  const nlohmann::json* labels = &doc;
  if (doc.is_object() && doc.contains("metadata")) {
    const nlohmann::json& meta = doc["metadata"];
    if (!meta.is_object() || !meta.contains("labels")) return "";
    labels = &meta["labels"];
  }
  if (!labels->is_object()) throw std::runtime_error(path + ": expected a JSON object of node labels");
  auto it = labels->find("nvidia.com/gpu.clique");
  if (it == labels->end()) return "";
  if (!it->is_string()) throw std::runtime_error(path + ": nvidia.com/gpu.clique is not a string");
  return it->get<std::string>();
}

}  // namespace railtune::fabric::discover
