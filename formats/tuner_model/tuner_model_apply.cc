// A fit's identified constants written into NCCL's table, at the rows NCCL reads (tuning.cc:263-276@v2.30.7).
#include "formats/tuner_model/tuner_model.h"

namespace railtune::formats::tuner_model {
namespace {

void set(const std::optional<Constant>& fitted, double* slot) {
  if (fitted && fitted->value) *slot = *fitted->value;
}

using ScaleRow = double[kNumTuningScales];

// The array a cap names, as rows of scale columns.
ScaleRow* capArray(CostModelConstants* c, CapArray a) {
  switch (a) {
    case CapArray::RingLL128:
      return c->perChMaxRingLL128Bws;
    case CapArray::TreeLL128:
      return c->perChMaxTreeLL128Bws;
    case CapArray::Tree:
      return c->perChMaxTreeBws;
    case CapArray::NvlsTree:
      return c->perChMaxNVLSTreeBws;
  }
  return nullptr;
}

}  // namespace

void applyFittedConstants(const Fit& fit, CostModelConstants* constants) {
  const Constants& f = fit.constants;
  for (int a = 0; a < kNumAlgorithms; ++a)
    for (int p = 0; p < kNumProtocols; ++p) {
      set(f.baseLatencyUs[a][p], &constants->baseLatencies[a][p]);
      for (int l = 0; l < kNumHwLinks; ++l) set(f.hwLatencyUs[l][a][p], &constants->hwLatencies[l][a][p]);
    }
  const int generationRow = static_cast<int>(fit.appliesTo.generation);
  for (int s = 0; s < kNumScales; ++s) {
    const std::optional<LlConstant>& ll = f.llMaxBwGbps[s];
    if (ll && ll->value) {
      // On one node NCCL indexes llMaxBws by compCapIndex, across nodes by CPU vendor (tuning.cc:269-271@v2.30.7).
      const int row = s == static_cast<int>(Scale::OneNode) || !ll->cpu ? generationRow : static_cast<int>(*ll->cpu);
      constants->llMaxBws[row][s] = *ll->value;
    }
    for (int a = 0; a < kNumCapArrays; ++a)
      set(f.perChannelMaxGbps[a][s], &capArray(constants, static_cast<CapArray>(a))[generationRow][s]);
  }
}

}  // namespace railtune::formats::tuner_model
