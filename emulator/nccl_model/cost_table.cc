// What NCCL does per collective call with the model ncclTopoTuneModel built: the cost table it hands
// the tuner (updateCollCostTable and ncclTopoGetAlgoTime, src/enqueue.cc and src/graph/tuning.cc), its
// pick from that table, and the channel and thread count for the pick (topoGetAlgoInfo).
#include <algorithm>
#include <stdexcept>

#include "emulator/nccl_model/model_internal.h"
#include "emulator/tuner_driver.h"
#include "formats/nccl_defaults.h"

namespace railtune::ncclmodel {
namespace {

// Trees stray from the model at medium sizes; NCCL's static correction per log2(nBytes / 64). 2.30 added
// a 24th column (used only by its NVLSTree correction).
constexpr float kTreeCorrection[kNumProtocols][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

// NCCL_MAX_DEV_WORK_BATCH_COLLS: 1024 / sizeof(ncclDevWorkColl) = 1024 / 96.
constexpr int kMaxDevWorkBatchColls = 10;

AlgoTimeFacts algoTimeFacts(const TunedModel& m) {
  return AlgoTimeFacts{m.version, m.shape.nRanks, m.shape.nNodes, m.topo.nChannels, m.topo.minCompCap, m.topo.cpuArch};
}

}  // namespace

CostModelConstants defaultCostModelConstants(NcclVersion v) {
  return formats::ncclDefaultConstants(v == NcclVersion::V2_28 ? formats::NcclRelease::V2_28
                                                               : formats::NcclRelease::V2_30);
}

bool algorithmOffered(const CommShape& shape, const TopologyFacts& topo, Collective c, Algorithm a) {
  const int localRanks = shape.nRanks / shape.nNodes;
  if (a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain) return false;  // no CollNet support
  if ((a == Algorithm::Nvls || a == Algorithm::NvlsTree) &&
      (!topo.nvlsSupport || (c != Collective::AllReduce && localRanks > 32)))  // NCCL_MAX_NVLS_ARITY
    return false;
  if (a == Algorithm::Nvls && shape.nNodes > 1) return false;  // multi-node NVLS needs CollNet
  return true;
}

PerCallFactors perCallFactors(const AlgoTimeFacts& f, const CollRequest& r, int a, int p) {
  PerCallFactors k;
  const int logSize = log2i(static_cast<long>(r.nBytes >> 6));
  const bool allReduce = r.collective == Collective::AllReduce;
  if (a == static_cast<int>(Algorithm::Tree) && allReduce && logSize >= 0 && logSize < 23)
    k.bandwidthFactor = kTreeCorrection[p][logSize];
  if (f.version >= NcclVersion::V2_30 && a == static_cast<int>(Algorithm::NvlsTree) && allReduce && logSize >= 0 &&
      logSize < 24 && f.minCompCap >= 100 && f.cpuArch == CpuArch::X86)
    k.bandwidthFactor = kTreeCorrection[p][logSize];
  const long perChannelRank = static_cast<long>(f.nChannels) * f.nRanks;
  if (a == static_cast<int>(Algorithm::Ring) && p == static_cast<int>(Protocol::Simple) && f.nNodes > 1 && allReduce &&
      perChannelRank > 0 && static_cast<long>(r.nBytes) / perChannelRank >= 64)
    k.latencyFactor = f.minCompCap < 80 ? 1.9f : 1.4f;  // the ring's plateau
  // Tree pipelining saves latency when operations are aggregated.
  k.latCount = a == static_cast<int>(Algorithm::Ring)
                   ? r.numPipeOps
                   : (r.numPipeOps + kMaxDevWorkBatchColls - 1) / kMaxDevWorkBatchColls;
  return k;
}

float algoTime(float bw, float lat, const AlgoTimeFacts& f, const CollRequest& r, int a, int p) {
  if (bw == 0) return kIgnore;
  const PerCallFactors k = perCallFactors(f, r, a, p);
  bw *= k.bandwidthFactor;  // factors of 1 leave the value bitwise unchanged
  lat *= k.latencyFactor;
  return lat * static_cast<float>(k.latCount) + static_cast<float>(r.nBytes) / (1000.0f * bw);
}

CostTable computeCostTable(const TunedModel& m, const CollRequest& r) {
  CostTable table;
  for (auto& row : table) row.fill(kIgnore);
  if (m.shape.nRanks == 1) {
    table[static_cast<int>(Algorithm::Ring)][static_cast<int>(Protocol::Simple)] = 0.0f;
    return table;
  }
  for (int a = 0; a < kNumAlgorithms; a++) {
    if (!algorithmOffered(m.shape, m.topo, r.collective, static_cast<Algorithm>(a))) continue;
    const int c = static_cast<int>(r.collective);
    for (int p = 0; p < kNumProtocols; p++)
      table[a][p] = algoTime(m.bandwidths[c][a][p], m.latencies[c][a][p], algoTimeFacts(m), r, a, p);
  }
  return table;
}

CostTable computeCostTable(NcclVersion v, const CollRequest& request, const CommShape& shape, const TopologyFacts& topo,
                           const CostModelConstants& constants, const NcclKnobs& knobs) {
  return computeCostTable(tuneModel(v, shape, topo, constants, knobs), request);
}

std::optional<Pick> ncclPick(const CostTable& table) {
  std::optional<Pick> best;
  for (int a = 0; a < kNumAlgorithms; a++) {
    for (int p = 0; p < kNumProtocols; p++) {
      const float t = table[a][p];
      if (t < 0.0f) continue;
      if (!best || t < best->timeUs)  // strictly smaller: ties keep the lower algorithm, then protocol
        best = Pick{static_cast<Algorithm>(a), static_cast<Protocol>(p), t};
    }
  }
  return best;
}

ChannelChoice selectChannels(const TunedModel& m, const Pick& pick, size_t nBytes) {
  const int a = static_cast<int>(pick.algorithm), p = static_cast<int>(pick.protocol);
  if (pick.algorithm == Algorithm::CollNetDirect || pick.algorithm == Algorithm::CollNetChain)
    throw std::invalid_argument("NCCL model: CollNet is not emulated");
  const bool nvls = pick.algorithm == Algorithm::Nvls || pick.algorithm == Algorithm::NvlsTree;
  const long long bytes = static_cast<long long>(nBytes);
  long long nc = m.topo.nChannels;
  long long nt = m.maxThreads[a][p];
  const long long threshold = m.threadThresholds[a][p];
  if (nvls) {
    // Multi-node NVLS is capped by the collective channels; NVLSTree and one-node NVLS are not.
    nc = m.shape.nNodes > 1 && pick.algorithm == Algorithm::Nvls ? std::min(m.topo.nvlsChannels, m.topo.nChannels)
                                                                 : m.topo.nvlsChannels;
  } else {
    while (bytes < nc * nt * threshold && nc >= 2) nc--;           // fewer channels for small operations
    while (bytes < nc * nt * threshold && nt % 128 == 0) nt /= 2;  // then fewer threads
  }
  if (pick.protocol == Protocol::Simple) {
    if (pick.algorithm == Algorithm::Ring) nt += 32;      // an extra warp for synchronisation
    if (pick.algorithm == Algorithm::Tree) nt += 4 * 32;  // the split thread model
  }
  if (nt / 32 < 3) nt = 3 * 32;
  if (pick.algorithm == Algorithm::Tree || pick.algorithm == Algorithm::Pat) nt = 640;  // NCCL_MAX_NTHREADS
  return ChannelChoice{static_cast<int>(nc), static_cast<int>(nt)};
}

}  // namespace railtune::ncclmodel
