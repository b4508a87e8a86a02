// The second half of ncclTopoTuneModel: which (function, algorithm, protocol) cells stay enabled. A
// disabled cell gets bandwidth 0, which ncclTopoGetAlgoTime turns into IGNORE (-1) in the cost table.
#include <stdexcept>
#include <string>

#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

// LL128 is on by default only where NCCL trusts its 128-byte stores: the GPU-NIC path (up to PXN with
// NCCL_LL128_C2C on SM90+, else up to PXB), NVLink within the node, uniform or SM90+ compute capabilities.
bool ll128ByDefault(const ModelContext& m, Algorithm a) {
  const Graph& g = m.graph(a);
  const int minCc = m.topo.minCompCap, maxCc = m.topo.maxCompCap;
  bool enable = true;
  if (m.knobs.ll128C2c && minCc >= 90) {
    enable = enable && g.typeInter <= PathType::PXN;
  } else {
    enable = enable && g.typeInter <= PathType::PXB;
  }
  enable = enable && g.typeIntra <= PathType::NVB;
  // 2.30 lets Hopper and newer mix compute capabilities.
  const bool mixedOk = m.version >= NcclVersion::V2_30 && minCc >= 90;
  enable = enable && (minCc == maxCc || mixedOk);
  // (NCCL also disables Ring/LL128 AllReduce on 2 SM90 ranks with CUDA 11.8; CUDA 11.8 is not emulated.)
  enable = enable && minCc >= 70;
  return enable;
}

bool algorithmDisabled(const ModelContext& m, Algorithm a) {
  const int nNodes = m.shape.nNodes;
  if (nNodes == 1 && a == Algorithm::NvlsTree) return true;
  if (!m.knobs.collNetEnable &&
      (a == Algorithm::CollNetDirect || a == Algorithm::CollNetChain || (a == Algorithm::Nvls && nNodes > 1)))
    return true;
  return false;
}

}  // namespace

void enabledCells(const ModelContext& m, CellMask& enabled) {
  int protoEnable[kNumCollectives * kNumProtocols];
  int algoEnable[kNumCollectives * kNumAlgorithms];
  for (int f = 0; f < kNumCollectives; f++) {
    for (int p = 0; p < kNumProtocols; p++) protoEnable[f * kNumProtocols + p] = p == 1 ? 2 : 1;  // 2: LL128 auto
    for (int a = 0; a < kNumAlgorithms; a++) algoEnable[f * kNumAlgorithms + a] = 1;
  }
  if (!m.knobs.proto.empty()) parseEnableList(m.knobs.proto, kProtoNames, kNumProtocols, protoEnable);
  if (!m.knobs.algo.empty()) parseEnableList(m.knobs.algo, kAlgoNames, kNumAlgorithms, algoEnable);
  for (int f = 0; f < kNumCollectives; f++)
    for (int a = 0; a < kNumAlgorithms; a++)
      if (algorithmDisabled(m, static_cast<Algorithm>(a))) algoEnable[f * kNumAlgorithms + a] = 0;

  for (int c = 0; c < kNumCollectives; c++) {
    for (int a = 0; a < kNumAlgorithms; a++) {
      for (int p = 0; p < kNumProtocols; p++) {
        int pEnable = protoEnable[c * kNumProtocols + p];
        if (pEnable == 2 && p == static_cast<int>(Protocol::LL128))
          pEnable = ll128ByDefault(m, static_cast<Algorithm>(a)) ? 1 : 0;
        enabled[c][a][p] = pEnable != 0 && algoEnable[c * kNumAlgorithms + a] != 0;
      }
    }
  }
}

void applyEnableRules(const ModelContext& m, TunedModel& model) {
  CellMask enabled;
  enabledCells(m, enabled);
  for (int c = 0; c < kNumCollectives; c++)
    for (int a = 0; a < kNumAlgorithms; a++)
      for (int p = 0; p < kNumProtocols; p++)
        if (!enabled[c][a][p]) model.bandwidths[c][a][p] = 0;
}

void checkCommunicator(const CommShape& shape, const TopologyFacts& topo) {
  if (shape.nRanks < 1 || shape.nNodes < 1 || shape.nNodes > shape.nRanks)
    throw std::invalid_argument("NCCL model: need 1 <= nNodes <= nRanks (got nRanks " + std::to_string(shape.nRanks) +
                                ", nNodes " + std::to_string(shape.nNodes) + ")");
  if (shape.nRanks > 1 && (topo.nChannels < 1 || topo.nvlsChannels < 0))
    throw std::invalid_argument("NCCL model: a communicator needs at least 1 collective channel (got " +
                                std::to_string(topo.nChannels) + ")");
}

TunedModel tuneModel(NcclVersion v, const CommShape& shape, const TopologyFacts& topo,
                     const CostModelConstants& constants, const NcclKnobs& knobs) {
  checkCommunicator(shape, topo);
  TunedModel model;
  model.version = v;
  model.shape = shape;
  model.topo = topo;
  fillThreads(model);
  if (shape.nRanks <= 1) return model;  // NCCL stops here: one rank only ever runs Ring/Simple
  const ModelContext m(v, model.shape, model.topo, knobs);
  fillModelledCells(m, constants, model);
  applyEnableRules(m, model);
  return model;
}

}  // namespace railtune::ncclmodel
