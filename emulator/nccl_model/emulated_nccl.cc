// EmulatedNccl: the profile's graph data, NCCL's model, and NCCL's decision, in one place for the CLI.
#include "emulator/nccl_model/emulated_nccl.h"

namespace railtune::ncclmodel {

EmulatedNccl::EmulatedNccl(NcclVersion v, const std::string& profile, const CommShape& shape, const NcclKnobs& knobs,
                           const std::optional<CostModelConstants>& constants)
    : shape_(&builtinGraphData(profile).shapeFor(shape)),
      label_(std::string("emulated NCCL ") + emu::behaviourName(v)) {
  model_ = tuneModel(v, shape, shape_->factsFor(v), constants.value_or(defaultCostModelConstants(v)), knobs);
}

void EmulatedNccl::useTuningTable(const TuningTable& table, const std::string& origin) {
  applyTuningTable(model_, table);
  label_ = std::string("NCCL ") + emu::behaviourName(model_.version) + " TUNING log " + origin;
}

CostTable EmulatedNccl::costTable(Collective c, size_t nBytes, int numPipeOps) const {
  return computeCostTable(model_, CollRequest{c, nBytes, numPipeOps});
}

std::optional<NcclDecision> EmulatedNccl::decide(Collective c, size_t nBytes, int numPipeOps) const {
  const std::optional<Pick> pick = ncclPick(costTable(c, nBytes, numPipeOps));
  if (!pick) return std::nullopt;
  return NcclDecision{*pick, selectChannels(model_, *pick, nBytes)};
}

void copyTo(const CostTable& table, emu::CostTable& out) {
  for (int a = 0; a < kNumAlgorithms; a++)
    for (int p = 0; p < kNumProtocols; p++) out[a][p] = table[a][p];
}

}  // namespace railtune::ncclmodel
