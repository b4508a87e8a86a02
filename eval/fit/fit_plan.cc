// The fit suite's scenarios (fit_plan.h). The perturbed constants are the ones a GB300 AllReduce's cost on one
// NVLink domain reads (Ring LL and LL128 latencies per NVLink hop, NVLS's latency, the Ring LL128 per-channel cap
// at 1 node), and across domains the network's Ring LL128 latency: each moves by a factor drawn from the seed, so
// NCCL's defaults are wrong in a different direction every time.
#include "eval/fit/fit_plan.h"

#include <cstdio>
#include <random>
#include <stdexcept>

namespace railtune::eval::fit_suite {
namespace {

using formats::Algorithm;
using formats::Protocol;
using ncclmodel::ConstId;
using ncclmodel::HwLink;

struct Perturbation {
  ConstId id;
  double low, high;  // the factor on NCCL's value, drawn uniformly
};

std::vector<Perturbation> perturbations(bool acrossDomains) {
  std::vector<Perturbation> out = {
      {ncclmodel::hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::LL128), 0.5, 1.3},
      {ncclmodel::hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::LL), 0.6, 1.6},
      {ncclmodel::hwLatencyId(HwLink::Nvlink, Algorithm::Nvls, Protocol::Simple), 0.6, 1.3},
      // A cap only lowers a bandwidth (tuning.cc:327-337@v2.30.7): a truth above NCCL's would be no cap's.
      {ncclmodel::capId(ncclmodel::CapArray::RingLL128, 3, 0), 0.6, 0.95},
  };
  if (acrossDomains) out.push_back({ncclmodel::hwLatencyId(HwLink::Net, Algorithm::Ring, Protocol::LL128), 0.6, 1.5});
  return out;
}

struct KindInfo {
  std::string kind;
  bool graphError = false, llDecay = false, ringSimple = false, inexpressible = false;
  enum class Shapes { OneDomain, FewRanks, ToTwoNodes, Domains } shapes = Shapes::OneDomain;
};

std::vector<KindInfo> allKinds() {
  using S = KindInfo::Shapes;
  return {
      {"constants", false, false, false, false, S::OneDomain},
      {"graph-error", true, false, false, false, S::OneDomain},
      {"ll-decay", false, true, false, false, S::OneDomain},
      {"ring-simple", false, false, true, false, S::OneDomain},
      {"mixed", true, true, true, false, S::OneDomain},
      {"inexpressible", true, true, true, true, S::OneDomain},
      {"unmeasured-ranks", true, true, true, false, S::FewRanks},
      {"one-node-to-two", true, true, true, false, S::ToTwoNodes},
      {"domains", true, true, true, false, S::Domains},
  };
}

const KindInfo& kindInfo(const std::string& kind) {
  static const std::vector<KindInfo> kinds = allKinds();
  for (const KindInfo& k : kinds)
    if (k.kind == kind) return k;
  throw std::runtime_error("fit suite: no kind '" + kind + "'");
}

void placeShapes(const KindInfo& kind, FitScenario& s) {
  using S = KindInfo::Shapes;
  switch (kind.shapes) {
    case S::OneDomain:  // fitted on 4, 8 and 16 GPUs of one NVLink domain; asked about 12, which nobody measured
      s.measured = {{4, 1}, {8, 1}, {16, 1}};
      s.heldOut = {{12, 1}};
      break;
    case S::FewRanks:  // the "fit on 4 and 8 GPUs, predict 16", and 32 beyond
      s.measured = {{4, 1}, {8, 1}};
      s.heldOut = {{16, 1}, {32, 1}};
      break;
    case S::ToTwoNodes:  // one-node data only, asked about two trays and two racks (2 nodes)
      s.measured = {{4, 1}, {8, 1}, {16, 1}};
      s.heldOut = {{12, 1}, {8, 2}, {144, 2}};
      break;
    case S::Domains:  // 1, 2 and 4 NVLink domains of 72; asked about 3 domains and a partial rack
      s.measured = {{72, 1}, {144, 2}, {288, 4}};
      s.heldOut = {{216, 3}, {36, 1}};
      break;
  }
  std::string text;
  for (const fit_truth::RenderedShape& r : s.measured) text += (text.empty() ? "" : ",") + std::to_string(r.ranks);
  text += " measured; asked";
  for (const fit_truth::RenderedShape& r : s.heldOut)
    text += " " + std::to_string(r.ranks) + (r.nodes > 1 ? "/" + std::to_string(r.nodes) + "n" : "");
  s.shape = text;
}

}  // namespace

std::vector<std::string> fitKinds() {
  std::vector<std::string> out;
  for (const KindInfo& k : allKinds()) out.push_back(k.kind);
  return out;
}

FitScenario planFitScenario(const std::string& kindName, uint64_t seed) {
  const KindInfo& kind = kindInfo(kindName);
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL ^ std::hash<std::string>()(kind.kind));
  FitScenario s;
  s.truth.seed = static_cast<unsigned>(rng());
  s.truth.graphError = kind.graphError ? 0.05 : 0;
  s.truth.llDecay = kind.llDecay ? 0.25 : 0;
  std::uniform_real_distribution<double> unit(0, 1);
  if (kind.ringSimple) {  // 5-15 % off NCCL's formula, either way
    const double off = 0.05 + 0.10 * unit(rng);
    s.truth.ringSimpleScale = unit(rng) < 0.5 ? 1 - off : 1 + off;
  }
  if (kind.inexpressible) {  // NVLS 40 % slower at mid sizes only: no constant, no affine correction
    s.truth.extra = [](fit_truth::Cell c, uint64_t bytes) {
      return c.algorithm == Algorithm::Nvls && bytes >= (256u << 10) && bytes <= (16u << 20) ? 1.4 : 1.0;
    };
    s.mustRefuse = true;
  }
  for (const Perturbation& p : perturbations(kind.shapes == KindInfo::Shapes::Domains)) {
    const double factor = p.low + (p.high - p.low) * unit(rng);
    ncclmodel::constRef(s.truth.constants, p.id) *= factor;
    s.perturbed.push_back(p.id);
  }
  placeShapes(kind, s);
  if (kind.ringSimple) {
    char text[32];
    std::snprintf(text, sizeof text, "; ring/simple x%.2f", s.truth.ringSimpleScale);
    s.shape += text;
  }
  return s;
}

}  // namespace railtune::eval::fit_suite
