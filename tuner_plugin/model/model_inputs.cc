// Building the model's inputs from communicator-wide values; see model_inputs.h.
#include "tuner_plugin/model/model_inputs.h"

#include <algorithm>
#include <map>
#include <set>

#include "formats/nccl_defaults.h"

namespace railtune::tuner::model {
namespace {

// NCCL's own NVLink figures for Blackwell (src/graph/topo.h SM100_NVLINK_BW, 18 NVLink5 links per GPU):
// the model starts from what NCCL's topology search would assume, not from the marketing 900 GB/s.
constexpr double kNcclNvlinkBwPerLinkSm100 = 40.1;
constexpr int kNvlinksPerGpu = 18;

void setDomains(const CommInfo& comm, ModelInputs& in) {
  in.nRanks = static_cast<int>(comm.nRanks);
  // At least one node, and no more nodes than ranks, so that ranks per node is never 0.
  in.nNodes = std::clamp(static_cast<int>(comm.nNodes), 1, std::max(1, in.nRanks));
  if (comm.nvl && comm.nvl->nDomains > 0 && comm.nvl->minRanksPerDomain > 0) {
    in.nDomains = comm.nvl->nDomains;
    in.ranksPerDomain = comm.nvl->minRanksPerDomain;
    in.nvlFromNccl = true;
  } else {
    in.nDomains = in.nNodes;  // the fallback the issue defines: (nNodes, nRanks / nNodes)
    in.ranksPerDomain = std::max(1, in.nRanks / in.nNodes);
  }
}

// One NIC per GPU, as on GB200 and GB300 trays; a domain larger than a tray spans trays.
FabricFacts defaultFabric(const ModelInputs& in, const FabricDefaults& defaults) {
  FabricFacts f;
  f.nvlinkBwPerGpu = kNcclNvlinkBwPerLinkSm100 * kNvlinksPerGpu;
  f.gpusPerHost = std::min(in.ranksPerDomain, defaults.gpusPerTray);
  f.largestHostGpus = defaults.gpusPerTray;
  f.railsPerHost = f.gpusPerHost;
  f.nicGbps = defaults.nicGbps;
  f.netBwPerGpu = defaults.nicGbps / 8.0;
  return f;
}

int distinctRails(const formats::RailMapHost& host) {
  std::set<int> rails;
  for (const auto& gpu : host.gpus)
    for (const auto& nic : gpu.nics)
      if (nic.rail >= 0) rails.insert(nic.rail);
  return static_cast<int>(rails.size());
}

// A host's network bandwidth in GB/s: the sum of its NIC ports' speeds (speed_mbps; two planes of
// 400G make an 800G rail), or rails x the default NIC speed when the map does not give speeds.
double hostNetGBs(const formats::RailMapHost& host, int rails, const FabricDefaults& defaults) {
  std::map<std::string, int> speedOf;  // per HCA: a NIC may be listed under several GPUs
  for (const auto& gpu : host.gpus)
    for (const auto& nic : gpu.nics) speedOf[nic.hca] = nic.speedMbps;
  double mbps = 0;
  for (const auto& [hca, speed] : speedOf) {
    if (speed <= 0) return rails * defaults.nicGbps / 8.0;
    mbps += speed;
  }
  return mbps / 8000.0;
}

// The cluster-wide minimum over hosts; a host's own section never decides alone.
bool applyRailMap(const formats::RailMap& map, const FabricDefaults& defaults, FabricFacts& f, BuildMessages& msgs) {
  bool any = false;
  for (const auto& host : map.hosts) {
    if (host.gpus.empty()) continue;  // a host without GPUs runs no rank
    const int gpus = static_cast<int>(host.gpus.size()), rails = distinctRails(host);
    const double perGpu = hostNetGBs(host, rails, defaults) / gpus;
    if (any && (gpus != f.gpusPerHost || rails != f.railsPerHost || perGpu != f.netBwPerGpu)) f.hostsDiffer = true;
    f.gpusPerHost = any ? std::min(f.gpusPerHost, gpus) : gpus;
    f.largestHostGpus = any ? std::max(f.largestHostGpus, gpus) : gpus;
    f.railsPerHost = any ? std::min(f.railsPerHost, rails) : rails;
    f.netBwPerGpu = any ? std::min(f.netBwPerGpu, perGpu) : perGpu;
    any = true;
  }
  if (!any) {
    msgs.errors.push_back("rail map of cluster '" + map.cluster + "' lists no host with GPUs; using the defaults");
    return false;
  }
  f.planes = map.planes;
  f.fromRailMap = true;
  if (f.railsPerHost > 0) f.nicGbps = f.netBwPerGpu * f.gpusPerHost * 8.0 / f.railsPerHost;
  if (f.hostsDiffer)
    msgs.notes.push_back("rail map hosts differ in GPUs or rails; the model uses the minimum over all hosts");
  return true;
}

}  // namespace

ModelInputs makeModelInputs(const CommInfo& comm, const CostModelConstants* constants, const formats::RailMap* railMap,
                            const FabricDefaults& defaults, BuildMessages& messages) {
  ModelInputs in;
  setDomains(comm, in);
  in.constantsFromNccl = constants != nullptr;
  in.constants = constants ? *constants : formats::ncclDefaultConstants(formats::NcclRelease::V2_30);
  in.fabric = defaultFabric(in, defaults);
  if (railMap == nullptr || !applyRailMap(*railMap, defaults, in.fabric, messages)) {
    in.fabric = defaultFabric(in, defaults);
    messages.notes.push_back("no rail map: one NIC of " + std::to_string(static_cast<int>(defaults.nicGbps)) +
                             " Gb/s per GPU assumed");
  }
  if (!constants) messages.notes.push_back("NCCL passed no cost-model constants: NCCL 2.30's defaults assumed");
  return in;
}

ModelInputs fromRailMapFile(const std::string& path, const CommInfo& comm, const CostModelConstants* constants,
                            const FabricDefaults& defaults, BuildMessages& messages) {
  if (path.empty()) return makeModelInputs(comm, constants, nullptr, defaults, messages);
  try {
    const formats::RailMap map = formats::readRailMapFile(path);
    return makeModelInputs(comm, constants, &map, defaults, messages);
  } catch (const formats::RailMapError& e) {
    messages.errors.push_back(e.what());
    return makeModelInputs(comm, constants, nullptr, defaults, messages);
  }
}

}  // namespace railtune::tuner::model
