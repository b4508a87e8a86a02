// Stage D: rank-aware refinement (refine.h).
#include "nccl-tests-integration/fit/refine.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "nccl-tests-integration/compare/regret.h"

namespace railtune::sweep {
namespace {

constexpr size_t kMaxCells = static_cast<size_t>(formats::kNumAlgorithms) * formats::kNumProtocols;

// One size's stand-in: the softmax(−log t̂ / τ)-weighted regret of the measured cells the model offers.
std::optional<double> pointStandIn(const FitPoints& points, PointRef at, const TimePredictor& predict, double tau) {
  const SizePoint& size = points.groups[at.group].sizes[at.size];
  double best = size.defaultBusbw.value_or(0);
  for (const CellPoint& cell : size.cells) best = std::max(best, cell.busbw);
  std::array<std::pair<double, double>, kMaxCells> candidates;  // (log weight, regret)
  size_t n = 0;
  double top = -std::numeric_limits<double>::infinity();
  for (const CellPoint& cell : size.cells) {
    const std::optional<double> t = predict(at.group, size.bytes, cell.cell);
    const std::optional<double> regret = regretOf(best, cell.busbw);
    if (!t || !(*t > 0) || !regret || n == kMaxCells) continue;
    candidates[n] = {-std::log(*t) / tau, *regret};
    top = std::max(top, candidates[n++].first);
  }
  if (n == 0) return std::nullopt;
  double weights = 0, weighted = 0;
  for (size_t i = 0; i < n; ++i) {
    const double w = std::exp(candidates[i].first - top);
    weights += w;
    weighted += w * candidates[i].second;
  }
  return weighted / weights;
}

// The regret above the tie band, summed over the points: picks within `tie` of the best are right as far as the
// measurement can tell (run-to-run noise swaps them), so they give no evidence a move is needed.
double excessRegret(const FitPoints& points, std::span<const PointRef> at, const TimePredictor& predict, double tie) {
  double sum = 0;
  for (const PointRef ref : at)
    if (const PickAt p = pickAt(points, ref, predict); p.modelRegret) sum += std::max(*p.modelRegret - tie, 0.0);
  return sum;
}

class Refiner {
 public:
  Refiner(const FitPoints& points, std::span<const PointRef> at, const std::vector<RefineParameter>& start,
          const ModelOf& modelOf, const RefineOptions& options)
      : points_(points), at_(at), start_(start), modelOf_(modelOf), options_(options) {
    for (const RefineParameter& p : start) values_.push_back(p.value);
    indexAffected();
  }

  RefineResult run();

 private:
  void indexAffected();
  double tauAt(int sweep) const;
  double pull(const std::vector<double>& values) const;
  void evaluateAll(double tau);
  double objective() const { return sum_ / static_cast<double>(std::max<size_t>(at_.size(), 1)) + pull(values_); }
  double tryValue(size_t param, double value, double tau, std::vector<double>& contributions);
  void searchParameter(size_t param, double tau);
  bool late() const { return options_.deadline && std::chrono::steady_clock::now() >= *options_.deadline; }

  const FitPoints& points_;
  std::span<const PointRef> at_;
  const std::vector<RefineParameter>& start_;
  const ModelOf& modelOf_;
  const RefineOptions& options_;
  std::vector<double> values_;
  std::vector<std::vector<size_t>> affected_;  // per parameter: indices into at_
  std::vector<double> contribution_;           // per point of at_: its stand-in at the current values
  double sum_ = 0;
};

void Refiner::indexAffected() {
  std::vector<std::vector<int64_t>> indexOf;
  for (const GroupPoints& g : points_.groups) indexOf.emplace_back(g.sizes.size(), -1);
  for (size_t i = 0; i < at_.size(); ++i) indexOf[at_[i].group][at_[i].size] = static_cast<int64_t>(i);
  for (const RefineParameter& p : start_) {
    std::vector<size_t>& list = affected_.emplace_back();
    if (p.affects.empty()) {
      for (size_t i = 0; i < at_.size(); ++i) list.push_back(i);
      continue;
    }
    for (const PointRef ref : p.affects)
      if (ref.group < indexOf.size() && ref.size < indexOf[ref.group].size() && indexOf[ref.group][ref.size] >= 0)
        list.push_back(static_cast<size_t>(indexOf[ref.group][ref.size]));
  }
}

double Refiner::tauAt(int sweep) const {
  if (options_.annealSweeps <= 0) return options_.tauEnd;
  const double k = std::min(1.0, static_cast<double>(sweep) / options_.annealSweeps);
  return options_.tauStart * std::pow(options_.tauEnd / options_.tauStart, k);
}

double Refiner::pull(const std::vector<double>& values) const {
  double sum = 0;
  for (size_t j = 0; j < values.size(); ++j) {
    const double d = (values[j] - start_[j].value) / start_[j].value;
    sum += d * d;
  }
  return options_.pull * sum;
}

void Refiner::evaluateAll(double tau) {
  const TimePredictor predict = modelOf_(values_);
  contribution_.assign(at_.size(), 0);
  sum_ = 0;
  for (size_t i = 0; i < at_.size(); ++i) {
    contribution_[i] = pointStandIn(points_, at_[i], predict, tau).value_or(0);
    sum_ += contribution_[i];
  }
}

// The objective with one parameter at another value; the affected points' stand-ins land in contributions.
double Refiner::tryValue(size_t param, double value, double tau, std::vector<double>& contributions) {
  const double kept = values_[param];
  values_[param] = value;
  const TimePredictor predict = modelOf_(values_);
  double sum = sum_;
  contributions.resize(affected_[param].size());
  for (size_t k = 0; k < affected_[param].size(); ++k) {
    const size_t i = affected_[param][k];
    contributions[k] = pointStandIn(points_, at_[i], predict, tau).value_or(0);
    sum += contributions[k] - contribution_[i];
  }
  const double f = sum / static_cast<double>(std::max<size_t>(at_.size(), 1)) + pull(values_);
  values_[param] = kept;
  return f;
}

// Golden-section search over log θ in [lo, hi]; the best value seen is taken when it beats the current one.
void Refiner::searchParameter(size_t param, double tau) {
  const RefineParameter& p = start_[param];
  if (!(p.hi > p.lo)) return;
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = std::log(p.lo), b = std::log(p.hi), bestF = objective(), bestX = std::log(values_[param]);
  std::vector<double> trial, bestContributions;
  bool found = false;
  const auto eval = [&](double x) {
    const double f = tryValue(param, std::exp(x), tau, trial);
    if (f < bestF - 1e-15) {
      bestF = f;
      bestX = x;
      bestContributions = trial;
      found = true;
    }
    return f;
  };
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
  double f1 = eval(x1), f2 = eval(x2);
  for (int step = 2; step < options_.goldenSteps; ++step) {
    if (f1 < f2) {  // the least lies in [a, x2]
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - phi * (b - a);
      f1 = eval(x1);
    } else {  // in [x1, b]
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + phi * (b - a);
      f2 = eval(x2);
    }
  }
  if (!found) return;
  values_[param] = std::exp(bestX);
  for (size_t k = 0; k < affected_[param].size(); ++k) {
    const size_t i = affected_[param][k];
    sum_ += bestContributions[k] - contribution_[i];
    contribution_[i] = bestContributions[k];
  }
}

RefineResult Refiner::run() {
  RefineResult result;
  std::vector<double> startValues = values_;
  const TimePredictor start = modelOf_(values_);
  result.before = scoreRegret(points_, at_, start);
  for (int sweep = 0; sweep < options_.maxSweeps && !result.truncated; ++sweep) {
    const double tau = tauAt(sweep);
    evaluateAll(tau);
    const double before = objective();
    for (size_t j = 0; j < values_.size() && !result.truncated; ++j) {
      result.truncated = late();
      if (!result.truncated) searchParameter(j, tau);
    }
    ++result.sweeps;
    if (sweep >= options_.annealSweeps && before - objective() < options_.minImprovement) break;
  }
  result.after = scoreRegret(points_, at_, modelOf_(values_));
  // A move is kept only where it lowers the true regret: one that leaves every measured pick as it was only drifts
  // with the stand-in (a correction scaled until the next pick would flip), and what it does between the measured
  // sizes nothing here measures.
  // Nor one whose gain is only among ties: a pick 0.7 % from the best mended by moving every constant is noise.
  const bool changed = values_ != startValues;
  const double tie = options_.tieRegret;
  result.guarded = changed && result.after.model.mean > result.before.model.mean;
  result.moved = changed && !result.guarded &&
                 excessRegret(points_, at_, modelOf_(values_), tie) < excessRegret(points_, at_, start, tie);
  if (!result.moved) {  // no move, no gain, or a stand-in that misled: the true regret guards
    values_ = startValues;
    result.after = result.before;
  }
  result.values = values_;
  return result;
}

}  // namespace

double surrogateRegret(const FitPoints& points, std::span<const PointRef> at, const TimePredictor& predict,
                       double tau) {
  double sum = 0;
  for (const PointRef ref : at) sum += pointStandIn(points, ref, predict, tau).value_or(0);
  return at.empty() ? 0 : sum / static_cast<double>(at.size());
}

RefineResult refine(const FitPoints& points, std::span<const PointRef> at, const std::vector<RefineParameter>& start,
                    const ModelOf& modelOf, const RefineOptions& options) {
  for (const RefineParameter& p : start)
    if (!(p.lo > 0 && p.lo <= p.value && p.value <= p.hi))
      throw std::invalid_argument("refine: parameter " + p.name + " = " + std::to_string(p.value) +
                                  " is not within its bounds [" + std::to_string(p.lo) + ", " + std::to_string(p.hi) +
                                  "] above 0");
  return Refiner(points, at, start, modelOf, options).run();
}

}  // namespace railtune::sweep
