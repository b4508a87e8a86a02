// ncclTopoTuneModel (src/graph/tuning.cc) re-implemented: per collective, algorithm and protocol, the
// algorithm bandwidth and the latency NCCL's cost model derives from the topology graphs and the tuner
// constants, written as CellForms (terms.h) that tuneModel and ShapeModel both evaluate, then the
// enable rules (enable_rules.cc) that set a bandwidth to 0, which the cost table turns into IGNORE.
#include <algorithm>

#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

constexpr float kNvlsEfficiency[formats::kNumCompCaps] = {0.0f, 0.0f, 0.85f, 0.74f};  // Volta..Blackwell
constexpr float kPciBw = 12.0f;  // PCI_BW in src/graph/topo.h (Gen3 x16)

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

// The hwLatencies entry NCCL reads: on POWER it copies Ring/Simple's PCI latency over Tree/Simple's, to
// favour Tree, after the tuner's init (tuning.cc:278-280@v2.30.7), so Tree/Simple over PCI reads Ring's.
ConstId hwId(const ModelContext& m, int link, Algorithm a, Protocol p) {
  if (m.topo.cpuArch == CpuArch::Power && link == kHwPci && a == Algorithm::Tree && p == Protocol::Simple)
    a = Algorithm::Ring;
  return hwLatencyId(static_cast<HwLink>(link), a, p);
}

// Per-channel bandwidth of NVLS and NVLSTree before NVLSTree's cap: NVLink efficiency, pipelining, and
// the network side.
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
  return std::min(intraBw, interBw);
}

// NCCL's per-algorithm refinements of the bus bandwidth, each a factor and a cap.
void addRefinements(const ModelContext& m, Collective c, Algorithm a, Protocol p, BandwidthForm& f) {
  const double nCh = m.graph(a).nChannels;
  const int row = m.compCapIndex, col = m.scaleCol;
  auto step = [&f](double num, double den, ConstId cap, double scale) { f.steps[f.nSteps++] = {num, den, cap, scale}; };
  if (a == Algorithm::Ring && p == Protocol::LL) step(.5, 1, capId(CapArray::LlMax, m.llRow, col), 1);
  if (a == Algorithm::Ring && p == Protocol::LL128) step(0.92, 1, capId(CapArray::RingLL128, row, col), nCh);
  if (a == Algorithm::Tree && c == Collective::AllReduce) step(.92, 1, capId(CapArray::Tree, row, col), nCh);
  if (a == Algorithm::Tree && p == Protocol::LL) step(1.0, 3.8, capId(CapArray::LlMax, m.llRow, col), 1);
  if (a == Algorithm::Tree && p == Protocol::LL128)
    step(m.shape.nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0, 1, capId(CapArray::TreeLL128, row, col), nCh);
  if (a == Algorithm::Tree && m.topo.tree.pattern == TopoPattern::Tree) f.post = .85;
  if (a == Algorithm::Pat) f.post = .75;
}

BandwidthForm bandwidthForm(const ModelContext& m, Collective c, Algorithm a, Protocol p) {
  const Graph& g = m.graph(a);
  BandwidthForm f;
  f.perChannel = m.shape.nNodes <= 2 || isCollNet(a) ? g.bwIntra : g.bwInter;
  if (isNvls(a)) f.perChannel = nvlsChannelBandwidth(m, c, a);
  if (a == Algorithm::NvlsTree) f.channelCap = capId(CapArray::NvlsTree, m.compCapIndex, m.scaleCol);
  f.nChannels = static_cast<float>(g.nChannels);
  addRefinements(m, c, a, p, f);
  // CollNet is not emulated (NCCL also zeroes it without CollNet support); multi-node NVLS
  // AllGather/ReduceScatter needs CollNet's iallgather/ireducescatter.
  f.zero = isCollNet(a) || (a == Algorithm::Nvls && isAllGatherOrReduceScatter(c) && m.shape.nNodes > 1);
  // Bus bandwidth to algorithm bandwidth, except non-Ring AllGather/ReduceScatter.
  if (!(a != Algorithm::Ring && isAllGatherOrReduceScatter(c))) {
    const bool ringLike = a == Algorithm::Ring || isNvls(a);
    f.ratio = ringLike ? static_cast<double>(m.shape.nRanks) / nsteps(c, m.shape.nRanks) : .5;
  }
  return f;
}

double netOverheadUs(const ModelContext& m) {
  if (m.knobs.netOverheadNs != -2) return static_cast<double>(m.knobs.netOverheadNs) * .001;
  if (m.topo.cpuArch == CpuArch::X86 && m.topo.cpuVendor == CpuVendor::Amd) return 2.0;
  return 1.0;  // Intel x86 and everything else
}

void ringForm(const ModelContext& m, Collective c, Protocol p, LatencyForm& f) {
  const int ai = static_cast<int>(Algorithm::Ring);
  const int nNodes = m.shape.nNodes, steps = nsteps(c, m.shape.nRanks);
  if (c == Collective::Reduce || c == Collective::Broadcast) {
    f.shape = LatencyShape::RingRoot;
    const bool sameChannels = m.graph(Algorithm::Ring).sameChannels;
    // Without the same channels NCCL adds a chunk latency per step (Tree's for Simple).
    const Algorithm stepAlgo = !sameChannels && p == Protocol::Simple ? Algorithm::Tree : Algorithm::Ring;
    f.intra = hwId(m, m.hw[ai], stepAlgo, p);
    f.intraCount = sameChannels ? 1 : steps;
    return;
  }
  f.shape = LatencyShape::Ring;
  // Inter-node rings still launch nsteps network posts.
  if (nNodes > 1) f.netOverhead = netOverheadUs(m) * (p == Protocol::Simple ? 3 : 1);
  const int nInterSteps = nNodes == 1 ? 0 : (c == Collective::AllReduce ? 2 * (nNodes - 1) : nNodes - 1);
  f.intraCount = steps - nInterSteps;
  f.interCount = nInterSteps;
}

void setCounts(LatencyForm& f, LatencyShape shape, int intraCount, int interCount, int extraCount) {
  f.shape = shape;
  f.intraCount = intraCount;
  f.interCount = interCount;
  f.extraCount = extraCount;
}

LatencyForm latencyForm(const ModelContext& m, Collective c, Algorithm a, Protocol p) {
  const int nRanks = m.shape.nRanks, nNodes = m.shape.nNodes, ppnInt = nRanks / nNodes;
  LatencyForm f;
  f.base = baseLatencyId(a, p);
  f.intra = hwId(m, m.intraHw[static_cast<int>(a)], a, p);
  // With one rank per node latencies are fully exposed: the Tree network latency is used.
  f.inter = hwId(m, kHwNet, m.ppn == 1.0f ? Algorithm::Tree : a, p);
  f.latencyInter = static_cast<double>(m.graph(a).latencyInter);
  f.flush = p == Protocol::Simple;
  switch (a) {
    case Algorithm::Ring:
      ringForm(m, c, p, f);
      break;
    case Algorithm::Tree:
      if (c == Collective::AllReduce) setCounts(f, LatencyShape::Tree, ppnInt - 1, log2i(nNodes), 0);
      break;
    case Algorithm::CollNetDirect:  // 0.4 us of arity serialization per local rank
      setCounts(f, LatencyShape::CollNetDirect, std::min(1, ppnInt - 1), 0, ppnInt - 1);
      break;
    case Algorithm::CollNetChain:
      setCounts(f, LatencyShape::CollNetChain, 2 * (ppnInt - 1), 0, 0);
      break;
    case Algorithm::Nvls:
      f.base = kNoConst;  // NCCL overwrites the base latency
      setCounts(f, LatencyShape::Nvls, 1, nNodes > 1 ? 1 : 0, 0);
      break;
    case Algorithm::NvlsTree:
      setCounts(f, LatencyShape::NvlsTree, 1, 2 * log2i(nNodes), 0);
      break;
    case Algorithm::Pat:  // a log part over the network, and a linear part of 2.8 us per rank
      if (isAllGatherOrReduceScatter(c)) setCounts(f, LatencyShape::Pat, 0, log2i(nNodes), nRanks);
      break;
  }
  return f;
}

}  // namespace

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

CellForm cellForm(const ModelContext& m, Collective c, Algorithm a, Protocol p) {
  return CellForm{latencyForm(m, c, a, p), bandwidthForm(m, c, a, p)};
}

int log2i(long n) {
  if (n <= 0) return -1;
  int r = 0;
  while (n >>= 1) r++;
  return r;
}

ModelContext::ModelContext(NcclVersion v, const CommShape& s, const TopologyFacts& t, const NcclKnobs& k)
    : version(v), shape(s), topo(t), knobs(k) {
  const int cc = t.minCompCap;
  compCapIndex = cc >= 100 ? 3 : cc >= 90 ? 2 : cc >= 80 ? 1 : 0;
  scaleCol = s.nNodes <= 2 ? s.nNodes - 1 : 2;
  // LL: on one node the GPU type decides; across nodes the CPU vendor (AMD or mixed: row 1, else 0).
  llRow = s.nNodes == 1 ? compCapIndex : (t.cpuVendor == CpuVendor::Amd || t.cpuVendor == CpuVendor::Mixed ? 1 : 0);
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

void fillModelledCells(const ModelContext& m, const CostModelConstants& constants, TunedModel& model) {
  for (int c = 0; c < kNumCollectives; c++) {
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        const auto coll = static_cast<Collective>(c);
        const auto algo = static_cast<Algorithm>(a);
        const auto proto = static_cast<Protocol>(p);
        if (!cellModelled(m, coll, algo, proto)) continue;
        const CellForm f = cellForm(m, coll, algo, proto);
        model.bandwidths[c][a][p] = static_cast<float>(f.bandwidth.value(constants));
        model.latencies[c][a][p] = static_cast<float>(f.latency.value(constants));
      }
    }
  }
}

}  // namespace railtune::ncclmodel
