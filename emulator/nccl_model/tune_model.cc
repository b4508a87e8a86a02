// ncclTopoTuneModel (src/graph/tuning.cc) re-implemented: per collective, algorithm and protocol, the
// algorithm bandwidth and the latency NCCL's cost model derives from the topology graphs and the tuner
// constants, then the enable rules (NCCL_ALGO/NCCL_PROTO, LL128 by default, NVLSTree on one node,
// CollNet) that set a bandwidth to 0, which the cost table turns into IGNORE.
#include <algorithm>
#include <cfloat>

#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

constexpr float kNvlsEfficiency[formats::kNumCompCaps] = {0.0f, 0.0f, 0.85f, 0.74f};  // Volta..Blackwell
constexpr float kPciBw = 12.0f;  // PCI_BW in src/graph/topo.h (Gen3 x16)

bool isCollNet(Algorithm a) {
  return a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain;
}
bool isNvls(Algorithm a) {
  return a == Algorithm::Nvls || a == Algorithm::NvlsTree;
}
bool isAllGatherOrReduceScatter(Collective c) {
  return c == Collective::AllGather || c == Collective::ReduceScatter;
}

int nsteps(Collective c, int nRanks) {
  if (c == Collective::AllReduce) return 2 * (nRanks - 1);
  if (isAllGatherOrReduceScatter(c)) return nRanks - 1;
  return nRanks;
}

// PAT in NCCL_PAT_ENABLE's auto mode: SM60+, one GPU per node, and no device-offloaded network.
bool patEnabled(const TopologyFacts& topo, const CommShape& shape, const NcclKnobs& knobs) {
  if (topo.minCompCap < 60) return false;
  if (knobs.patEnable != 2) return knobs.patEnable != 0;
  return shape.nNodes == shape.nRanks;
}

// The (function, algorithm, protocol) combinations NCCL's model loop visits at all.
bool cellModelled(const ModelContext& m, Collective c, Algorithm a, Protocol p) {
  if ((c == Collective::Broadcast || c == Collective::Reduce) && a != Algorithm::Ring) return false;
  if (isAllGatherOrReduceScatter(c) && a != Algorithm::Pat && a != Algorithm::Ring && a != Algorithm::Nvls &&
      a != Algorithm::CollNetDirect)
    return false;
  if (c == Collective::AllReduce && a == Algorithm::Pat) return false;
  if (isNvls(a) && p != Protocol::Simple) return false;
  if (isAllGatherOrReduceScatter(c) && a == Algorithm::Pat && (p != Protocol::Simple || !m.patEnabled)) return false;
  if (isNvls(a) && m.graph(a).nChannels < 2) return false;  // NVLS needs at least 2 channels
  return true;
}

// Per-channel bandwidth of NVLS and NVLSTree: NVLink efficiency, pipelining, and the network side.
float nvlsChannelBandwidth(const ModelContext& m, Collective c, Algorithm a) {
  const Graph& g = m.graph(a);
  float intraBw = g.bwIntra * kNvlsEfficiency[m.compCapIndex] * static_cast<float>(g.nChannels - 1) /
                  static_cast<float>(g.nChannels);
  if (c == Collective::AllReduce) {
    intraBw *= 2.0f;  // AllReduce pipelines two operations
  } else {
    intraBw *= (m.ppn - 1) / m.ppn;
  }
  const float interBw = g.bwInter * ((m.shape.nNodes <= 2 && a == Algorithm::NvlsTree) ? 2.0f : 1.0f);
  const float cap = a == Algorithm::NvlsTree ? static_cast<float>(m.perChMaxNVLSTreeBw) : FLT_MAX;
  return std::min({intraBw, interBw, cap});
}

// The bus bandwidth after NCCL's per-algorithm refinements.
double refinedBusBandwidth(const ModelContext& m, Collective c, Algorithm a, Protocol p, double busBw) {
  const double nCh = m.graph(a).nChannels;
  const int nNodes = m.shape.nNodes;
  if (a == Algorithm::Ring && p == Protocol::LL) busBw = std::min(m.llMaxBw, busBw * .5);
  if (a == Algorithm::Ring && p == Protocol::LL128) busBw = std::min(busBw * 0.92, nCh * m.perChMaxRingLL128Bw);
  if (a == Algorithm::Tree && c == Collective::AllReduce) busBw = std::min(busBw * .92, nCh * m.perChMaxTreeBw);
  if (a == Algorithm::Tree && p == Protocol::LL) busBw = std::min(busBw * 1.0 / 3.8, m.llMaxBw);
  if (a == Algorithm::Tree && p == Protocol::LL128)
    busBw = std::min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), nCh * m.perChMaxTreeLL128Bw);
  if (a == Algorithm::Tree && m.topo.tree.pattern == TopoPattern::Tree) busBw *= .85;
  if (a == Algorithm::Pat) busBw *= .75;
  if (isCollNet(a)) busBw = 0;  // CollNet is not emulated (NCCL also zeroes it without CollNet support)
  // Multi-node NVLS AllGather/ReduceScatter needs CollNet's iallgather/ireducescatter.
  if (a == Algorithm::Nvls && isAllGatherOrReduceScatter(c) && nNodes > 1) busBw = 0;
  return busBw;
}

double algorithmBandwidth(const ModelContext& m, Collective c, Algorithm a, Protocol p) {
  const Graph& g = m.graph(a);
  float bw = m.shape.nNodes <= 2 || isCollNet(a) ? g.bwIntra : g.bwInter;
  if (isNvls(a)) bw = nvlsChannelBandwidth(m, c, a);
  double busBw = refinedBusBandwidth(m, c, a, p, static_cast<double>(static_cast<float>(g.nChannels) * bw));
  // Bus bandwidth to algorithm bandwidth, except non-Ring AllGather/ReduceScatter.
  if (!(a != Algorithm::Ring && isAllGatherOrReduceScatter(c))) {
    const bool ringLike = a == Algorithm::Ring || isNvls(a);
    busBw *= ringLike ? static_cast<double>(m.shape.nRanks) / nsteps(c, m.shape.nRanks) : .5;
  }
  return busBw;
}

double netOverheadUs(const ModelContext& m) {
  if (m.knobs.netOverheadNs != -2) return static_cast<double>(m.knobs.netOverheadNs) * .001;
  if (m.topo.cpuArch == CpuArch::X86 && m.topo.cpuVendor == CpuVendor::Amd) return 2.0;
  return 1.0;  // Intel x86 and everything else
}

double ringLatency(const ModelContext& m, Collective c, Protocol p, double intraLat, double interLat) {
  const int ai = static_cast<int>(Algorithm::Ring), pi = static_cast<int>(p);
  const int nNodes = m.shape.nNodes, steps = nsteps(c, m.shape.nRanks);
  double hwLat = m.hwLat[m.hw[ai]][ai][pi];
  if (c == Collective::Reduce || c == Collective::Broadcast) {
    if (m.graph(Algorithm::Ring).sameChannels) return hwLat;
    if (p == Protocol::Simple) hwLat = m.hwLat[m.hw[ai]][static_cast<int>(Algorithm::Tree)][pi];
    return steps * hwLat;
  }
  // Inter-node rings still launch nsteps network posts.
  double netOverhead = 0.0;
  if (nNodes > 1) netOverhead = netOverheadUs(m) * (p == Protocol::Simple ? 3 : 1);
  intraLat = std::max(intraLat, netOverhead);
  const int nInterSteps = nNodes == 1 ? 0 : (c == Collective::AllReduce ? 2 * (nNodes - 1) : nNodes - 1);
  return (steps - nInterSteps) * intraLat + nInterSteps * interLat;
}

double cellLatency(const ModelContext& m, Collective c, Algorithm a, Protocol p) {
  const int ai = static_cast<int>(a), pi = static_cast<int>(p);
  const Graph& g = m.graph(a);
  const int nRanks = m.shape.nRanks, nNodes = m.shape.nNodes;
  const double base = m.constants.baseLatencies[ai][pi];
  const double intraLat = m.hwLat[m.intraHw[ai]][ai][pi];
  // With one rank per node latencies are fully exposed: the Tree network latency is used.
  const int netAlgo = m.ppn == 1.0f ? static_cast<int>(Algorithm::Tree) : ai;
  double interLat = m.hwLat[kHwNet][netAlgo][pi] + static_cast<double>(g.latencyInter);
  if (p == Protocol::Simple) interLat += static_cast<double>(g.latencyInter);  // the flush
  const int ppnInt = nRanks / nNodes;
  switch (a) {
    case Algorithm::Ring:
      return base + ringLatency(m, c, p, intraLat, interLat);
    case Algorithm::Tree:
      return c == Collective::AllReduce ? base + 2 * ((ppnInt - 1) * intraLat + log2i(nNodes) * interLat) : base;
    case Algorithm::CollNetDirect:
      return base + 2 * (std::min(1, ppnInt - 1) * intraLat + (ppnInt - 1) * 0.4) + interLat;
    case Algorithm::CollNetChain:
      return base + 2 * (ppnInt - 1) * intraLat + interLat;
    case Algorithm::Nvls:
      return intraLat + (nNodes > 1 ? interLat : 0.0);
    case Algorithm::NvlsTree:
      return base + intraLat + 2 * log2i(nNodes) * interLat;
    case Algorithm::Pat:
      return isAllGatherOrReduceScatter(c) ? base + log2i(nNodes) * (interLat / 3.5) + nRanks * 2.8 : base;
  }
  return base;
}

}  // namespace

int log2i(long n) {
  if (n <= 0) return -1;
  int r = 0;
  while (n >>= 1) r++;
  return r;
}

ModelContext::ModelContext(NcclVersion v, const CommShape& s, const TopologyFacts& t, const CostModelConstants& c,
                           const NcclKnobs& k)
    : version(v), shape(s), topo(t), constants(c), knobs(k) {
  const int cc = t.minCompCap;
  compCapIndex = cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0;
  const int index2 = s.nNodes <= 2 ? s.nNodes - 1 : 2;
  // LL: on one node the GPU type decides; across nodes the CPU vendor (AMD or mixed: row 1, else 0).
  const int index1 =
      s.nNodes == 1 ? compCapIndex : (t.cpuVendor == CpuVendor::Amd || t.cpuVendor == CpuVendor::Mixed ? 1 : 0);
  llMaxBw = c.llMaxBws[index1][index2];
  perChMaxTreeBw = c.perChMaxTreeBws[compCapIndex][index2];
  perChMaxRingLL128Bw = c.perChMaxRingLL128Bws[compCapIndex][index2];
  perChMaxTreeLL128Bw = c.perChMaxTreeLL128Bws[compCapIndex][index2];
  perChMaxNVLSTreeBw = c.perChMaxNVLSTreeBws[compCapIndex][index2];
  std::copy(&c.hwLatencies[0][0][0], &c.hwLatencies[0][0][0] + sizeof(hwLat) / sizeof(double), &hwLat[0][0][0]);
  // NCCL de-penalizes Tree/Simple over PCI on POWER to favour Tree.
  if (t.cpuArch == CpuArch::Power)
    hwLat[kHwPci][static_cast<int>(Algorithm::Tree)][2] = hwLat[kHwPci][static_cast<int>(Algorithm::Ring)][2];
  ppn = static_cast<float>(s.nRanks) / static_cast<float>(s.nNodes);
  for (int a = 0; a < kNumAlgorithms; a++) {
    intraHw[a] = graph(static_cast<Algorithm>(a)).typeIntra == PathType::NVL ? kHwNvlink : kHwPci;
    hw[a] = s.nNodes == 1 ? intraHw[a] : kHwNet;
  }
  patEnabled = ncclmodel::patEnabled(t, s, k);
}

const Graph& ModelContext::graph(Algorithm a) const {
  // CollNet: without CollNet support NCCL never searches its graphs, which stay zeroed (PATH_LOC).
  static const Graph kNoGraph{0, 0, 0, PathType::LOC, PathType::LOC, TopoPattern::Ring, false, 0};
  switch (a) {
    case Algorithm::Tree:
    case Algorithm::Pat:
      return topo.tree;
    case Algorithm::Ring:
      return topo.ring;
    case Algorithm::Nvls:
    case Algorithm::NvlsTree:
      return topo.nvls;
    default:
      return kNoGraph;
  }
}

void fillThreads(TunedModel& model) {
  const Graph& ring = model.topo.ring;
  const int ringSimple = ring.bwIntra * static_cast<float>(ring.nChannels) <= kPciBw ? 256 : 512;
  auto& t = model.maxThreads;
  const int tree = static_cast<int>(Algorithm::Tree), rg = static_cast<int>(Algorithm::Ring);
  t[rg][2] = ringSimple;
  t[tree][2] = 512;
  for (Algorithm a : {Algorithm::CollNetDirect, Algorithm::CollNetChain, Algorithm::Nvls, Algorithm::NvlsTree})
    t[static_cast<int>(a)][2] = 640;
  t[rg][0] = t[tree][0] = 512;
  t[rg][1] = t[tree][1] = 640;
  for (auto& row : model.threadThresholds) {
    row[0] = 8;   // NCCL_LL_THREAD_THRESHOLD
    row[1] = 8;   // NCCL_LL128_THREAD_THRESHOLD
    row[2] = 64;  // NCCL_SIMPLE_THREAD_THRESHOLD
  }
  model.threadThresholds[rg][0] *= model.shape.nRanks;
  model.threadThresholds[static_cast<int>(Algorithm::CollNetDirect)][2] = 512;
  model.threadThresholds[static_cast<int>(Algorithm::CollNetChain)][2] = 512;
}

void fillModelledCells(const ModelContext& m, TunedModel& model) {
  for (int c = 0; c < kNumCollectives; c++) {
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        const auto coll = static_cast<Collective>(c);
        const auto algo = static_cast<Algorithm>(a);
        const auto proto = static_cast<Protocol>(p);
        if (!cellModelled(m, coll, algo, proto)) continue;
        model.bandwidths[c][a][p] = static_cast<float>(algorithmBandwidth(m, coll, algo, proto));
        model.latencies[c][a][p] = static_cast<float>(cellLatency(m, coll, algo, proto));
      }
    }
  }
}

}  // namespace railtune::ncclmodel
