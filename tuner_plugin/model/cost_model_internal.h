// Shared between the cost model's bandwidth and latency files.
#pragma once

#include "tuner_plugin/model/model_inputs.h"

namespace railtune::tuner::model::detail {

inline constexpr int kBlackwellRow = 3;   // NCCL's compute-capability row of its constant tables
inline constexpr int kNvlsMaxArity = 32;  // NCCL_MAX_NVLS_ARITY

inline int ranksPerNode(const ModelInputs& in) {
  return in.nNodes > 0 ? in.nRanks / in.nNodes : in.nRanks;
}
inline int scaleIndex(const ModelInputs& in) {
  return in.nNodes <= 2 ? in.nNodes - 1 : 2;
}
inline int nvlsHeads(const ModelInputs& in) {
  return ranksPerNode(in) < kNvlsMaxArity ? ranksPerNode(in) : kNvlsMaxArity;
}
int nsteps(Collective c, int nRanks);
int log2i(long n);

}  // namespace railtune::tuner::model::detail
