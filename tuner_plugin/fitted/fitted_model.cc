// A fit's plan for one communicator (fitted_model.h): the per-cell affine maps, built once at init, and the
// constants written into NCCL's.
#include <algorithm>

#include "tuner_plugin/fitted/fitted_model.h"

namespace railtune::tuner::fitted {
namespace {

namespace tm = formats::tuner_model;

template <typename T>
int identified(const std::optional<T>& c) {
  return c && c->value ? 1 : 0;
}

int identifiedConstants(const tm::Constants& f) {
  int n = 0;
  for (int a = 0; a < kNumAlgorithms; ++a)
    for (int p = 0; p < kNumProtocols; ++p) {
      n += identified(f.baseLatencyUs[a][p]);
      for (int l = 0; l < kNumHwLinks; ++l) n += identified(f.hwLatencyUs[l][a][p]);
    }
  for (int s = 0; s < tm::kNumScales; ++s) {
    n += identified(f.llMaxBwGbps[s]);
    for (int c = 0; c < tm::kNumCapArrays; ++c) n += identified(f.perChannelMaxGbps[c][s]);
  }
  return n;
}

// hwLatencies[NET][Ring][Simple], when the fit identified it: NCCL 2.30's symmetric kernels time GPU-initiated
// networking with it (sym_kernels.cc:197@v2.30.7), a use the fit was never validated for.
bool neverWritten(const Fit& fit) {
  return identified(fit.constants.hwLatencyUs[static_cast<int>(tm::HwLink::Net)][static_cast<int>(Algorithm::Ring)]
                                             [static_cast<int>(Protocol::Simple)]) != 0;
}

// One cell's map: v5/v6 the correction alone (NCCL costs with the fitted constants written at init); v3/v4 the
// correction after the table transform (NCCL's cost at its default constants to its cost at the fitted ones, the
// corrections left out of it: sweep fit's to_file.cc): k = kc*kt, c = kc*ct + cc.
// A shape's own entries apply only at that shape (nRanks, nNodes), decided here at init for the communicator.
CellAffine cellMap(const Fit& fit, bool withConstants, Collective c, Algorithm a, Protocol p, tm::Scale s,
                   const tm::CommShape& shape) {
  const tm::Correction* correction = tm::cellEntry(fit.corrections, c, a, p, s, &shape);
  const tm::CellAffine* transform = withConstants ? nullptr : tm::cellEntry(fit.tableTransform, c, a, p, s, &shape);
  if (correction == nullptr && transform == nullptr) return {};
  double k = 1, add = 0;
  if (transform != nullptr) k = transform->timeScale, add = transform->timeAddUs;
  if (correction != nullptr) k *= correction->timeScale, add = correction->timeScale * add + correction->timeAddUs;
  return {static_cast<float>(k), static_cast<float>(add), true};
}

}  // namespace

void CellCorrections::apply(Collective c, CostTableView table) const {
  const auto& rows = cells_[static_cast<size_t>(c)];
  for (int a = 0; a < kNumAlgorithms; ++a)
    for (int p = 0; p < kNumProtocols; ++p) {
      const CellAffine& m = rows[static_cast<size_t>(a)][static_cast<size_t>(p)];
      const auto alg = static_cast<Algorithm>(a);
      const auto proto = static_cast<Protocol>(p);
      if (m.set && table.available(alg, proto))  // IGNORE stays IGNORE
        table.reprice(alg, proto, std::max(kMinCostUs, m.scale * table.cost(alg, proto) + m.addUs));
    }
}

int CellCorrections::count() const {
  int n = 0;
  for (const auto& coll : cells_)
    for (const auto& row : coll)
      for (const CellAffine& m : row) n += m.set ? 1 : 0;
  return n;
}

int writeFittedConstants(const Fit& fit, CostModelConstants& constants) {
  double& ginLatency = constants.hwLatencies[static_cast<int>(tm::HwLink::Net)][static_cast<int>(Algorithm::Ring)]
                                            [static_cast<int>(Protocol::Simple)];
  const double ncclGinLatency = ginLatency;
  tm::applyFittedConstants(fit, &constants);
  ginLatency = ncclGinLatency;  // never written (fitted_model.h)
  return identifiedConstants(fit.constants) - (neverWritten(fit) ? 1 : 0);
}

FitPlan planOf(const FitInputs& inputs, const Fit& fit, const CommInfo& comm) {
  FitPlan plan;
  plan.model = inputs.model;
  plan.fit = &fit;
  plan.writeConstants = comm.abiVersion >= 5;
  const tm::Scale scale = tm::scaleOfNodes(static_cast<int>(comm.nNodes));
  const tm::CommShape shape{static_cast<int>(comm.nRanks), static_cast<int>(comm.nNodes)};
  int ownEntries = 0;
  for (const tm::Correction& e : fit.corrections) ownEntries += e.shape == shape ? 1 : 0;
  for (int c = 0; c < kNumCollectives; ++c)
    for (int a = 0; a < kNumAlgorithms; ++a)
      for (int p = 0; p < kNumProtocols; ++p) {
        const auto coll = static_cast<Collective>(c);
        const auto alg = static_cast<Algorithm>(a);
        const auto proto = static_cast<Protocol>(p);
        plan.cells.at(coll, alg, proto) = cellMap(fit, plan.writeConstants, coll, alg, proto, scale, shape);
      }
  plan.summary = "fit " + fitLabel(fit) + " at " + tm::scaleName(scale) +
                 (fit.usable[static_cast<size_t>(scale)].usable ? "" : " (at its measured shapes only)") + ", " +
                 tm::commShapeLabel(shape) + ": ";
  if (ownEntries > 0)
    plan.summary +=
        std::to_string(ownEntries) + (ownEntries == 1 ? " correction" : " corrections") + " of this shape's own, ";
  if (plan.writeConstants) {
    plan.summary +=
        std::to_string(identifiedConstants(fit.constants) - (neverWritten(fit) ? 1 : 0)) + " constants written" +
        (neverWritten(fit) ? " (hwLatencies[NET][Ring][Simple] kept: NCCL's symmetric kernels read it)" : "") + ", ";
  } else {
    plan.summary += "no constants before tuner v5, its table transform (approximate) and ";
  }
  plan.summary += std::to_string(plan.cells.count()) + " cost-table cells corrected";
  return plan;
}

}  // namespace railtune::tuner::fitted
