// advise(): a scan of the 5 x 3 cells the model knows, each priced by predictTimeUs.
#include "tuner_plugin/model/advise.h"

#include "tuner_plugin/model/corrections.h"
#include "tuner_plugin/model/cost_model.h"

namespace railtune::tuner::model {
namespace {

// CollNet is absent: the model never advises it.
constexpr Algorithm kModelledAlgorithms[] = {Algorithm::Tree, Algorithm::Ring, Algorithm::Nvls, Algorithm::NvlsTree,
                                             Algorithm::Pat};
constexpr Protocol kProtocols[] = {Protocol::LL, Protocol::LL128, Protocol::Simple};

const char* reasonFor(const ModelInputs& in, Algorithm a, Protocol p) {
  switch (a) {
    case Algorithm::Nvls:
      return domainSpansHosts(in) ? "model: NVLS fastest, with the NVLS efficiency measured on an NVL72 rack"
                                  : "model: NVLS fastest (NCCL's NVLS efficiency)";
    case Algorithm::NvlsTree:
      return "model: NVLSTree fastest across NVLink domains";
    case Algorithm::Tree:
      return "model: Tree fastest (log-depth latency)";
    case Algorithm::Pat:
      return "model: PAT fastest (one GPU per node)";
    default:
      break;
  }
  if (p == Protocol::Simple) return "model: Ring/Simple fastest, with the Ring efficiency measured on NVLink5";
  return p == Protocol::LL ? "model: Ring/LL fastest (latency-bound size)" : "model: Ring/LL128 fastest (mid size)";
}

}  // namespace

std::optional<Advice> advise(const ModelInputs& inputs, const CollQuery& query, const CostTableView& table) {
  std::optional<Advice> best;
  for (Algorithm a : kModelledAlgorithms) {  // ascending index order: ties keep the earlier cell
    for (Protocol p : kProtocols) {
      if (!table.available(a, p)) continue;  // NCCL's IGNORE, including NCCL_ALGO/NCCL_PROTO exclusions
      const double t = predictTimeUs(inputs, query, a, p);
      if (t < 0) continue;
      if (!best || t < best->predictedUs) best = Advice{a, p, t, 0, nullptr};
    }
  }
  if (best) best->reason = reasonFor(inputs, best->algorithm, best->protocol);
  return best;
}

}  // namespace railtune::tuner::model
