// Which cells the model offers, their latency (NCCL's formulas, src/graph/tuning.cc) and the time.
#include "tuner_plugin/model/cost_model.h"

#include <algorithm>

#include "tuner_plugin/model/cost_model_internal.h"

namespace railtune::tuner::model {
namespace detail {

int nsteps(Collective c, int nRanks) {
  if (c == Collective::AllReduce) return 2 * (nRanks - 1);
  if (c == Collective::AllGather || c == Collective::ReduceScatter) return nRanks - 1;
  return nRanks;
}

int log2i(long n) {
  if (n <= 0) return -1;
  int r = 0;
  while (n >>= 1) r++;
  return r;
}

}  // namespace detail

namespace {

constexpr int kHwNvlink = 0, kHwNet = 2;   // NCCL's NCCL_HW_NVLINK, NCCL_HW_NET
constexpr int kMaxDevWorkBatchColls = 10;  // NCCL_MAX_DEV_WORK_BATCH_COLLS = 1024 / sizeof(ncclDevWorkColl)
constexpr double kNetOverheadUs = 1.0;     // NCCL's netOverhead on non-AMD CPUs (Grace included)
// comm->nChannels for the ring plateau's threshold: twice the 16 ring channels of an NVLink-bound ring.
// A network-bound ring has half as many, which moves the threshold by one power of two only.
constexpr long kCommChannels = 32;

// NCCL's treeCorrectionFactor per log2(nBytes / 64): trees stray from the alpha-beta line at mid sizes.
constexpr double kTreeCorrection[kNumProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

bool isNvls(Algorithm a) {
  return a == Algorithm::Nvls || a == Algorithm::NvlsTree;
}
bool isAllGatherOrReduceScatter(Collective c) {
  return c == Collective::AllGather || c == Collective::ReduceScatter;
}

bool algorithmFitsCollective(Collective c, Algorithm a) {
  if (c == Collective::Broadcast || c == Collective::Reduce) return a == Algorithm::Ring;
  if (isAllGatherOrReduceScatter(c)) return a == Algorithm::Ring || a == Algorithm::Nvls || a == Algorithm::Pat;
  return a != Algorithm::Pat;  // AllReduce
}

double ringLatency(const ModelInputs& in, Collective c, Protocol p, double intraLat, double interLat) {
  const auto& k = in.constants;
  const int ai = static_cast<int>(Algorithm::Ring), pi = static_cast<int>(p);
  const int steps = detail::nsteps(c, in.nRanks);
  // Broadcast and Reduce pipeline along one ring whose channels are alike: one hop of latency.
  if (c == Collective::Broadcast || c == Collective::Reduce)
    return k.hwLatencies[in.nNodes == 1 ? kHwNvlink : kHwNet][ai][pi];
  const double netOverhead = in.nNodes > 1 ? kNetOverheadUs * (p == Protocol::Simple ? 3 : 1) : 0.0;
  intraLat = std::max(intraLat, netOverhead);
  const int nInter = in.nNodes == 1 ? 0 : (c == Collective::AllReduce ? 2 * (in.nNodes - 1) : in.nNodes - 1);
  return (steps - nInter) * intraLat + nInter * interLat;
}

double latencyUs(const ModelInputs& in, Collective c, Algorithm a, Protocol p) {
  const auto& k = in.constants;
  const int ai = static_cast<int>(a), pi = static_cast<int>(p), ppn = detail::ranksPerNode(in);
  const double base = k.baseLatencies[ai][pi];
  const double intraLat = k.hwLatencies[kHwNvlink][ai][pi];
  // One rank per node exposes the network fully: NCCL then uses the Tree's network latency.
  const double interLat = k.hwLatencies[kHwNet][ppn == 1 ? static_cast<int>(Algorithm::Tree) : ai][pi];
  const int logNodes = detail::log2i(in.nNodes);
  switch (a) {
    case Algorithm::Ring:
      return base + ringLatency(in, c, p, intraLat, interLat);
    case Algorithm::Tree:
      return base + 2 * ((ppn - 1) * intraLat + logNodes * interLat);
    case Algorithm::Nvls:
      return intraLat + (in.nNodes > 1 ? interLat : 0.0);
    case Algorithm::NvlsTree:
      return base + intraLat + 2 * logNodes * interLat;
    case Algorithm::Pat:
      return base + logNodes * (interLat / 3.5) + in.nRanks * 2.8;
    default:
      return base;
  }
}

// The algorithm bandwidth (GB/s) nBytes travel at: bus bandwidth over NCCL's steps per byte.
double algorithmBandwidth(const ModelInputs& in, Collective c, Algorithm a, Protocol p) {
  const double bus = busBandwidth(in, c, a, p);
  if (a != Algorithm::Ring && isAllGatherOrReduceScatter(c)) return bus;  // NCCL converts these not at all
  if (a == Algorithm::Ring || isNvls(a)) return bus * in.nRanks / detail::nsteps(c, in.nRanks);
  return bus * 0.5;
}

}  // namespace

bool cellUsable(const ModelInputs& in, Collective c, Algorithm a, Protocol p) {
  if (a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain) return false;
  if (in.nRanks <= 1) return a == Algorithm::Ring && p == Protocol::Simple;
  if (!algorithmFitsCollective(c, a)) return false;
  const int ppn = detail::ranksPerNode(in);
  if (isNvls(a)) {
    if (p != Protocol::Simple || ppn < 2) return false;
    if (c != Collective::AllReduce && ppn > detail::kNvlsMaxArity) return false;
    if (a == Algorithm::Nvls && in.nNodes > 1) return false;  // multi-node NVLS needs CollNet
    if (a == Algorithm::NvlsTree && in.nNodes == 1) return false;
  }
  if (a == Algorithm::Pat && (p != Protocol::Simple || in.nRanks != in.nNodes)) return false;
  return true;
}

double predictTimeUs(const ModelInputs& in, const CollQuery& q, Algorithm a, Protocol p) {
  if (!cellUsable(in, q.collective, a, p)) return -1.0;
  if (in.nRanks <= 1) return 0.0;  // NCCL copies locally
  double bw = algorithmBandwidth(in, q.collective, a, p);
  if (bw <= 0) return -1.0;
  double lat = latencyUs(in, q.collective, a, p);
  const int logSize = detail::log2i(static_cast<long>(q.nBytes >> 6));
  if (a == Algorithm::Tree && q.nBytes >= 64 && logSize < 23) bw *= kTreeCorrection[static_cast<int>(p)][logSize];
  const long commChannels = kCommChannels * in.nRanks;
  if (a == Algorithm::Ring && p == Protocol::Simple && in.nNodes > 1 && q.collective == Collective::AllReduce &&
      static_cast<long>(q.nBytes) / commChannels >= 64)
    lat *= 1.4;  // NCCL's ring plateau on sm80 and newer
  const int pipeOps = std::max(1, q.numPipeOps);
  const int latCount = a == Algorithm::Ring ? pipeOps : (pipeOps + kMaxDevWorkBatchColls - 1) / kMaxDevWorkBatchColls;
  return lat * latCount + static_cast<double>(q.nBytes) / (1000.0 * bw);
}

}  // namespace railtune::tuner::model
