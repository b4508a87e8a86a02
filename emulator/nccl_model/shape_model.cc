// ShapeModel: one communicator's cell formulas and enable rules, built once, then evaluated for any
// constants the way tuneModel and computeCostTable evaluate them (the same functions), so that a fitter
// gets NCCL's cost-table entry without rebuilding the model or allocating.
#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

int idx(Collective c) {
  return static_cast<int>(c);
}
int idx(Algorithm a) {
  return static_cast<int>(a);
}
int idx(Protocol p) {
  return static_cast<int>(p);
}

}  // namespace

ShapeModel::ShapeModel(NcclVersion v, const CommShape& shape, const TopologyFacts& topo, const NcclKnobs& knobs)
    : version_(v), shape_(shape), nChannels_(topo.nChannels), minCompCap_(topo.minCompCap), cpuArch_(topo.cpuArch) {
  checkCommunicator(shape, topo);
  if (shape.nRanks <= 1) return;  // one rank only ever runs Ring/Simple, at no cost
  const ModelContext m(v, shape_, topo, knobs);
  CellMask enabled;
  enabledCells(m, enabled);
  for (int c = 0; c < kNumCollectives; c++) {
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        const auto coll = static_cast<Collective>(c);
        const auto algo = static_cast<Algorithm>(a);
        const auto proto = static_cast<Protocol>(p);
        if (!cellModelled(m, coll, algo, proto)) continue;
        modelled_[c][a][p] = true;
        enabled_[c][a][p] = enabled[c][a][p];
        offered_[c][a][p] = enabled[c][a][p] && algorithmOffered(shape_, topo, coll, algo);
        cells_[c][a][p] = cellForm(m, coll, algo, proto);
      }
    }
  }
}

float ShapeModel::timeUs(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p, size_t nBytes,
                         int numPipeOps) const {
  if (shape_.nRanks == 1) return a == Algorithm::Ring && p == Protocol::Simple ? 0.0f : kIgnore;
  if (!offered_[idx(coll)][idx(a)][idx(p)]) return kIgnore;
  const CellForm& f = cells_[idx(coll)][idx(a)][idx(p)];
  const float bw = static_cast<float>(f.bandwidth.value(c));
  const float lat = static_cast<float>(f.latency.value(c));
  const AlgoTimeFacts facts{version_, shape_.nRanks, shape_.nNodes, nChannels_, minCompCap_, cpuArch_};
  return algoTime(bw, lat, facts, CollRequest{coll, nBytes, numPipeOps}, idx(a), idx(p));
}

CostTable ShapeModel::costTable(const CostModelConstants& c, Collective coll, size_t nBytes, int numPipeOps) const {
  CostTable table;
  for (int a = 0; a < kNumAlgorithms; a++)
    for (int p = 0; p < kNumProtocols; p++)
      table[a][p] = timeUs(c, coll, static_cast<Algorithm>(a), static_cast<Protocol>(p), nBytes, numPipeOps);
  return table;
}

bool ShapeModel::offered(Collective coll, Algorithm a, Protocol p) const {
  return offered_[idx(coll)][idx(a)][idx(p)];
}

const CellForm& ShapeModel::form(Collective coll, Algorithm a, Protocol p) const {
  return cells_[idx(coll)][idx(a)][idx(p)];
}

float ShapeModel::latencyUs(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const {
  if (!modelled_[idx(coll)][idx(a)][idx(p)]) return 0.0f;
  return static_cast<float>(form(coll, a, p).latency.value(c));
}

float ShapeModel::bandwidthGBs(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const {
  if (!enabled_[idx(coll)][idx(a)][idx(p)]) return 0.0f;
  return static_cast<float>(form(coll, a, p).bandwidth.value(c));
}

LatencyTerms ShapeModel::latencyTerms(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const {
  return ncclmodel::latencyTerms(form(coll, a, p).latency, c);
}

BandwidthTerms ShapeModel::bandwidthTerms(const CostModelConstants& c, Collective coll, Algorithm a, Protocol p) const {
  BandwidthTerms t = ncclmodel::bandwidthTerms(form(coll, a, p).bandwidth, c);
  if (!enabled_[idx(coll)][idx(a)][idx(p)]) {
    t.zero = true;  // a disabled cell's bandwidth is 0 whatever the constants
    t.algBw = 0;
  }
  return t;
}

PerCallFactors ShapeModel::perCall(Collective coll, Algorithm a, Protocol p, size_t nBytes, int numPipeOps) const {
  const AlgoTimeFacts facts{version_, shape_.nRanks, shape_.nNodes, nChannels_, minCompCap_, cpuArch_};
  return perCallFactors(facts, CollRequest{coll, nBytes, numPipeOps}, idx(a), idx(p));
}

}  // namespace railtune::ncclmodel
