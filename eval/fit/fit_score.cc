// The fit suite's judgement of one fit against its truth (fit_score.h).
#include "eval/fit/fit_score.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>

namespace railtune::eval::fit_suite {
namespace {

using fit_truth::Cell;
using fit_truth::ShapeTruth;
using fit_truth::TruthRenderer;
constexpr auto kAllReduce = formats::Collective::AllReduce;
constexpr int kBuckets = sweep::kScaleBuckets;

int bucketOf(const ShapeTruth& s) {
  return s.nodes <= 1 ? 0 : s.nodes == 2 ? 1 : 2;
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", fraction * 100);
  return text;
}

std::string where(const ShapeTruth& s, uint64_t bytes) {
  return std::to_string(s.ranks) + " ranks, " + std::to_string(s.nodes) + " node" + (s.nodes > 1 ? "s" : "") + " at " +
         std::to_string(bytes >> 10) + " KiB";
}

// The worst true regret at one bucket's held-out points, by kind of point.
struct BucketTruth {
  double sizeWorst = 0, shapeWorst = 0;  // the fit's at every held-out point, applied or not (a missed fit)
  size_t points = 0;
  std::string sizeWorstAt, shapeWorstAt;
  // Where the tuner applies it (verdictApplies: every shape when usable, the listed ones when usable at the measured
  // shapes only): what the verdict claims, so a false all-clear.
  double appliedSizeWorst = 0, appliedShapeWorst = 0;
  std::string appliedSizeWorstAt, appliedShapeWorstAt;
};

struct Scorer {
  const FitScenario& scenario;
  const TruthRenderer& truth;
  const formats::tuner_model::Fit& fit;
  FitJudgement out;
  std::array<BucketTruth, kBuckets> buckets{};
  formats::CostModelConstants defaults = formats::ncclDefaultConstants(formats::NcclRelease::V2_30);

  Counters& c() { return out.counters; }
  void max(const std::string& key, double v) { c()[key] = std::max(c()[key], v); }

  std::optional<Cell> defaultPick(const ShapeTruth& s, uint64_t bytes) const {
    std::optional<Cell> pick;
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [cell, error] : s.cells) {
      const double t = static_cast<double>(s.model.timeUs(defaults, kAllReduce, cell.algorithm, cell.protocol, bytes));
      if (t > 0 && t < best) best = t, pick = cell;
    }
    return pick;
  }

  // One held-out point: the fit's and NCCL default's regret by the truth, into the counters of its kind.
  void point(const ShapeTruth& s, uint64_t bytes, bool shapeHeldOut) {
    std::set<Cell> offered;
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [cell, error] : s.cells) {
      offered.insert(cell);
      best = std::min(best, truth.trueTimeUs(s, cell, bytes));
    }
    const std::optional<Cell> byDefault = defaultPick(s, bytes);
    std::optional<Cell> byFit = sweep::predictPick(fit, s.model, kAllReduce, bytes, offered);
    if (!byFit || !byDefault) {
      c()["no_pick"] += 1;
      return;
    }
    const double fitRegret = truth.trueTimeUs(s, *byFit, bytes) / best - 1;
    const double defaultRegret = truth.trueTimeUs(s, *byDefault, bytes) / best - 1;
    const std::string kind = shapeHeldOut ? "shape" : "size";
    c()[kind + "_points"] += 1;
    c()[kind + "_fit_regret"] += fitRegret;
    c()[kind + "_default_regret"] += defaultRegret;
    max("max_" + kind + "_fit_regret", fitRegret);
    max("max_" + kind + "_default_regret", defaultRegret);
    const int b = bucketOf(s);
    const bool applies = formats::tuner_model::verdictApplies(fit.usable[static_cast<size_t>(b)], {s.ranks, s.nodes});
    const double applied = applies ? fitRegret : defaultRegret;
    c()["held_out_points"] += 1;
    c()["applied_regret"] += applied;
    c()["default_regret"] += defaultRegret;
    max("max_applied_regret", applied);
    BucketTruth& bt = buckets[static_cast<size_t>(b)];
    ++bt.points;
    double& worst = shapeHeldOut ? bt.shapeWorst : bt.sizeWorst;
    if (fitRegret > worst) {
      worst = fitRegret;
      (shapeHeldOut ? bt.shapeWorstAt : bt.sizeWorstAt) = where(s, bytes);
    }
    double& appliedWorst = shapeHeldOut ? bt.appliedShapeWorst : bt.appliedSizeWorst;
    if (applies && fitRegret > appliedWorst) {
      appliedWorst = fitRegret;
      (shapeHeldOut ? bt.appliedShapeWorstAt : bt.appliedSizeWorstAt) = where(s, bytes);
    }
  }

  // Between the measured sizes (1 KiB .. 1 GiB by 4) of the measured shapes; every size by 2 of the others.
  void heldOutPoints(const std::vector<ShapeTruth>& measured, const std::vector<ShapeTruth>& heldOut) {
    for (const ShapeTruth& s : measured)
      for (uint64_t bytes = 2048; bytes < (uint64_t{1} << 30); bytes *= 4) point(s, bytes, false);
    for (const ShapeTruth& s : heldOut)
      for (uint64_t bytes = 1024; bytes <= (uint64_t{1} << 30); bytes *= 2) point(s, bytes, true);
  }

  // ", its cell corrected x0.82 +0.1 us" when the fit also corrects the one cell a latency constant is read by: the
  // two trade off, and the note helps tell a constant moved by its correction from one misplaced outright.
  std::string correctionOn(ncclmodel::ConstId id) const {
    const int index = static_cast<int>(id);
    constexpr int kCells = formats::kNumAlgorithms * formats::kNumProtocols, kLatencies = kCells * 4;
    if (index >= kLatencies) return "";  // a bandwidth cap: read by several cells
    const int cell = index % kCells;
    const auto a = static_cast<formats::Algorithm>(cell / formats::kNumProtocols);
    const auto p = static_cast<formats::Protocol>(cell % formats::kNumProtocols);
    const auto* k =
        formats::tuner_model::cellEntry(fit.corrections, kAllReduce, a, p, formats::tuner_model::Scale::OneNode);
    if (k == nullptr) return "";
    char text[96];
    std::snprintf(text, sizeof text, ", its cell corrected x%.2f %+.2g us", k->timeScale, k->timeAddUs);
    return text;
  }

  // The perturbed constants the fit identified must be within 10 % of the truth; the others it identified are
  // counted beside (their truth is NCCL's value, but a misspecified cell's time moves them honestly: Ring/Simple
  // 10 % off is 10 % on its latencies too).
  void constants(const sweep::KeyFitReport& key) {
    for (const sweep::ConstantEntry& e : key.fit.stageB.entries) {
      if (!e.identified) continue;
      const double fitted = ncclmodel::constValue(key.fit.model->constants, e.id);
      const double real = ncclmodel::constValue(scenario.truth.constants, e.id);
      const double error = std::abs(fitted - real) / std::max(std::abs(real), 1e-9);
      const bool perturbed = std::count(scenario.perturbed.begin(), scenario.perturbed.end(), e.id) > 0;
      const std::string kind = perturbed ? "perturbed" : "other";
      c()[kind + "_identified"] += 1;
      max("max_" + kind + "_constant_error", error);
      if (error <= kConstantTolerance) {
        c()[kind + "_within"] += 1;
      } else if (perturbed) {
        out.correct = false;
        char text[200];
        std::snprintf(text, sizeof text, "%s fitted %.3g, truth %.3g (%s off%s)", ncclmodel::constName(e.id), fitted,
                      real, percent(error).c_str(), correctionOn(e.id).c_str());
        out.notes.push_back(text);
      }
    }
  }

  void verdicts(const std::vector<ShapeTruth>& measured) {
    std::array<bool, kBuckets> hasData{};
    for (const ShapeTruth& s : measured) hasData[static_cast<size_t>(bucketOf(s))] = true;
    for (size_t b = 0; b < kBuckets; ++b) {
      const BucketTruth& bt = buckets[b];
      // A claim: usable everywhere, or at the measured shapes only (the tuner applies it there).
      const bool usable = fit.usable[b].usable || fit.usable[b].measuredShapesUsable;
      const std::string scale = formats::tuner_model::scaleName(static_cast<formats::tuner_model::Scale>(b));
      if (b == 0 && scenario.mustRefuse) {
        c()["must_refuse"] += 1;
        c()["refused"] += usable ? 0 : 1;
        if (usable) out.correct = false, out.notes.push_back("inexpressible truth called usable at " + scale);
      }
      if (bt.points == 0) continue;
      if (!hasData[b]) {
        c()["no_data_scales"] += 1;
        if (usable) {
          c()["no_data_usable"] += 1;
          out.correct = false;
          out.notes.push_back("usable at " + scale + " with no data there");
        }
      } else {
        c()["judged_scales"] += 1;
        c()["usable_scales"] += usable ? 1 : 0;
      }
      const auto within = [&](double sizeWorst, double shapeWorst) {
        return sizeWorst <= fit.validation.sizeTarget + 1e-12 && shapeWorst <= fit.validation.shapeTarget + 1e-12;
      };
      const bool passes = within(bt.sizeWorst, bt.shapeWorst);
      if (usable && !within(bt.appliedSizeWorst, bt.appliedShapeWorst)) {
        c()["false_all_clears"] += 1;
        out.correct = false;
        out.notes.push_back("false all-clear at " + scale + (fit.usable[b].usable ? "" : " (measured shapes only)") +
                            ": true worst regret where the tuner applies it, at held-out sizes " +
                            percent(bt.appliedSizeWorst) +
                            (bt.appliedSizeWorstAt.empty() ? "" : " (" + bt.appliedSizeWorstAt + ")") +
                            ", at held-out shapes " + percent(bt.appliedShapeWorst) +
                            (bt.appliedShapeWorstAt.empty() ? "" : " (" + bt.appliedShapeWorstAt + ")"));
      } else if (!usable && passes && hasData[b] && !(b == 0 && scenario.mustRefuse)) {
        c()["missed_fits"] += 1;
        out.notes.push_back("missed fit at " + scale + " (" + fit.usable[b].why + ")");
      }
    }
  }
};

// The counters every scenario reports, so the sums and the JSON have them even when zero.
void zeroCounters(Counters& c) {
  for (const char* key : {"perturbed_constants",
                          "perturbed_identified",
                          "perturbed_within",
                          "other_identified",
                          "other_within",
                          "size_points",
                          "size_fit_regret",
                          "size_default_regret",
                          "shape_points",
                          "shape_fit_regret",
                          "shape_default_regret",
                          "held_out_points",
                          "applied_regret",
                          "default_regret",
                          "judged_scales",
                          "usable_scales",
                          "false_all_clears",
                          "missed_fits",
                          "no_data_scales",
                          "no_data_usable",
                          "must_refuse",
                          "refused",
                          "no_pick",
                          "fit_failures"})
    c[key] += 0;
}

}  // namespace

FitJudgement judgeFit(const FitScenario& scenario, const TruthRenderer& truth, const std::vector<ShapeTruth>& measured,
                      const std::vector<ShapeTruth>& heldOut, const sweep::FitResult& result) {
  if (result.model.fits.size() != 1 || result.keys.size() != 1) {
    FitJudgement failed;
    zeroCounters(failed.counters);
    failed.counters["fit_failures"] = 1;
    failed.correct = false;
    failed.notes.push_back("one fit expected, the fit made " + std::to_string(result.model.fits.size()));
    return failed;
  }
  Scorer s{scenario, truth, result.model.fits[0], {}};
  zeroCounters(s.out.counters);
  s.c()["perturbed_constants"] = static_cast<double>(scenario.perturbed.size());
  s.constants(result.keys[0]);
  s.heldOutPoints(measured, heldOut);
  s.verdicts(measured);
  return std::move(s.out);
}

}  // namespace railtune::eval::fit_suite
