// Building `railtune sweep compare`'s report (report.h).
#include "nccl-tests-integration/compare/report.h"

#include <algorithm>

#include "nccl-tests-integration/compare/regret.h"

namespace railtune::sweep {
namespace {

std::optional<double> medianOf(const std::map<Choice, Samples>& choices, const Choice& choice) {
  const auto it = choices.find(choice);
  if (it == choices.end()) return std::nullopt;
  const ChoiceStats stats = statsOf(it->second);
  if (stats.samples == 0) return std::nullopt;
  return stats.median;
}

// The tuned run's busbw at each size of a group: every valid sample of the tuned dataset, whatever it forced.
std::map<uint64_t, Samples> tunedSamples(const Aggregate* tuned, const GroupKey& key) {
  std::map<uint64_t, Samples> out;
  if (tuned == nullptr) return out;
  const auto group = tuned->groups.find(key);
  if (group == tuned->groups.end()) return out;
  for (const auto& [size, choices] : group->second)
    for (const auto& [choice, samples] : choices) {
      out[size].busbw.insert(out[size].busbw.end(), samples.busbw.begin(), samples.busbw.end());
      out[size].addRuns(samples);
    }
  return out;
}

// Every choice measured in the group, NCCL's default first, the tuned run's (when given) second.
std::vector<Series> seriesOf(const SizeTable& table, const std::map<uint64_t, Samples>& tuned) {
  std::map<Choice, Series> series;
  for (const auto& [size, choices] : table)
    for (const auto& [choice, samples] : choices) {
      const ChoiceStats stats = statsOf(samples);
      if (stats.samples == 0) continue;
      Series& s = series[choice];
      s.label = choice.label();
      s.isDefault = choice.isDefault();
      s.points.push_back({size, stats.median, stats.samples});
    }
  std::vector<Series> out;
  if (const auto def = series.find(Choice{}); def != series.end()) out.push_back(def->second);
  if (!tuned.empty()) {
    Series t;
    t.label = "tuned";
    t.isTuned = true;
    for (const auto& [size, samples] : tuned) {
      const ChoiceStats stats = statsOf(samples);
      if (stats.samples > 0) t.points.push_back({size, stats.median, stats.samples});
    }
    out.push_back(std::move(t));
  }
  for (const auto& [choice, s] : series)
    if (!choice.isDefault()) out.push_back(s);
  return out;
}

// The best measured choice at a size, and with a model its pick's regret beside NCCL default's.
void scorePoint(const std::map<Choice, Samples>& choices, const std::optional<Choice>& modelPick, bool withModel,
                ComparePoint& p) {
  for (const auto& [choice, samples] : choices) {
    const ChoiceStats stats = statsOf(samples);
    if (stats.samples > 0) ++p.measuredChoices;
    if (stats.samples > 0 && (!p.bestBusbw || stats.median > *p.bestBusbw)) {
      p.bestBusbw = stats.median;
      p.best = choice.label();
    }
  }
  if (!withModel) return;
  p.modelPick = modelPick ? modelPick->label() : "default";
  if (p.measuredChoices < 2) return;  // one choice alone: no regret, nothing was ranked
  const std::optional<double> pickBusbw = medianOf(choices, modelPick.value_or(Choice{}));
  if (pickBusbw && p.bestBusbw) p.modelRegret = regretOf(*p.bestBusbw, *pickBusbw);
  if (p.defaultBusbw && p.bestBusbw) p.defaultRegret = regretOf(*p.bestBusbw, *p.defaultBusbw);
}

// One point per measured size of the group.
std::vector<ComparePoint> pointsOf(const CompareRequest& request, const GroupKey& key, const SizeTable& table,
                                   const GroupDecisions* decisions, const std::map<uint64_t, Samples>& tuned) {
  std::vector<ComparePoint> points;
  for (const auto& [size, choices] : table) {
    ComparePoint p;
    p.size = size;
    p.defaultBusbw = medianOf(choices, Choice{});
    std::optional<Choice> chosen;
    if (request.rules) {
      chosen = request.rules(key, size);
    } else if (decisions != nullptr) {
      for (const SizeDecision& d : decisions->sizes)
        if (d.size == size && d.ruled) chosen = d.best;
    }
    p.chosen = chosen ? chosen->label() : "default";
    p.chosenBusbw = medianOf(choices, chosen.value_or(Choice{}));
    if (const auto t = tuned.find(size); t != tuned.end() && statsOf(t->second).samples > 0)
      p.tunedBusbw = statsOf(t->second).median;
    scorePoint(choices, request.model ? request.model(key, size) : std::nullopt, static_cast<bool>(request.model), p);
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace

std::optional<double> ComparePoint::gain() const {
  if (!tunedBusbw && chosen == "default") return std::nullopt;  // NCCL decides here: nothing gained or lost
  const std::optional<double> measured = tunedBusbw ? tunedBusbw : chosenBusbw;
  if (!measured || !defaultBusbw || *defaultBusbw <= 0) return std::nullopt;
  return *measured / *defaultBusbw - 1;
}

CompareReport buildCompareReport(const CompareRequest& request) {
  CompareReport report;
  report.withModel = static_cast<bool>(request.model);
  const DerivedRules own = request.rules ? DerivedRules{} : deriveRules(*request.sweep, request.options);
  size_t ownGroup = 0;
  for (const auto& [key, table] : request.sweep->groups) {
    CompareGroup group;
    group.collective = key.collective;
    group.shape = key.shape;
    group.netEnv = key.netEnv;
    const GroupDecisions* decisions = nullptr;
    for (; ownGroup < own.groups.size(); ++ownGroup)
      if (own.groups[ownGroup].key == key) {
        decisions = &own.groups[ownGroup];
        break;
      }
    const std::map<uint64_t, Samples> tuned = tunedSamples(request.tuned, key);
    group.series = seriesOf(table, tuned);
    group.points = pointsOf(request, key, table, decisions, tuned);
    report.groups.push_back(std::move(group));
  }
  return report;
}

}  // namespace railtune::sweep
