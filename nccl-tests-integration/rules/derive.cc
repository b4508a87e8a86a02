// Deriving tuner rules from a sweep's samples (derive.h).
#include "nccl-tests-integration/rules/derive.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "nccl-tests-integration/dataset/from_output.h"

namespace railtune::sweep {
namespace {

std::string plainPercent(double fraction) {
  return fixedText(fraction * 100, 1) + " %";
}

// A choice a rule can carry: the rules need an algorithm and a protocol.
bool ruleable(const Choice& c) {
  return !c.isDefault() && c.unusable.empty() && !c.algorithm.empty() && !c.protocol.empty();
}

// "1 run", "3 runs"
std::string runsText(int runs) {
  return std::to_string(runs) + (runs == 1 ? " run" : " runs");
}

// What NCCL's default at a size is, where it is the best choice measured: best only where a rival a rule could
// carry was measured beside it.
std::string defaultOnlyWhy(const std::map<Choice, Samples>& choices) {
  bool rival = false, other = false;
  for (const auto& [choice, samples] : choices) {
    if (choice.isDefault() || samples.busbw.empty()) continue;
    other = true;
    rival = rival || ruleable(choice);
  }
  if (rival) return "NCCL's default is best";
  return other ? "only NCCL's default measured among choices a rule can carry" : "only NCCL's default measured";
}

// The bar the best choice's gain must clear, and its name: the largest of --min-gain, the spread of either and,
// when either rests on fewer than 2 runs, the one-run noise (ties name --min-gain, then the spread).
void setThreshold(const RulesOptions& options, SizeDecision& d) {
  const double spread = std::max(d.defaultStats.spread, d.bestStats.spread);
  const bool oneRun = d.bestStats.runs < 2 || d.defaultStats.runs < 2;
  const double noise = oneRun ? kOneRunNoise : 0;
  d.threshold = std::max({options.minGain, spread, noise});
  d.ruled = d.gain > d.threshold;
  const char* which = "--min-gain";
  if (d.threshold > options.minGain) which = spread >= noise ? "spread" : "one-run noise";
  d.why = d.best.label() + " " + signedPercent(d.gain) + (d.ruled ? " > " : " <= ") + which + " " +
          plainPercent(d.threshold);
  if (!oneRun) return;
  d.why += d.bestStats.runs == d.defaultStats.runs
               ? " (" + runsText(d.bestStats.runs) + " each)"
               : " (" + runsText(d.bestStats.runs) + " vs the default's " + std::to_string(d.defaultStats.runs) + ")";
}

SizeDecision decide(uint64_t size, const std::map<Choice, Samples>& choices, const RulesOptions& options) {
  SizeDecision d;
  d.size = size;
  const auto def = choices.find(Choice{});
  if (def != choices.end()) {
    d.hasDefault = true;
    d.defaultStats = statsOf(def->second);
  }
  bool any = false;
  for (const auto& [choice, samples] : choices) {
    if (!choice.isDefault() && !ruleable(choice)) continue;
    const ChoiceStats stats = statsOf(samples);
    if (stats.samples == 0) continue;
    if (!any || stats.median > d.bestStats.median) {
      d.best = choice;
      d.bestStats = stats;
      any = true;
    }
  }
  if (!d.hasDefault) {
    d.why = "no NCCL default measured";
    return d;
  }
  if (d.best.isDefault()) {
    d.why = defaultOnlyWhy(choices);
    return d;
  }
  d.gain = d.defaultStats.median > 0 ? d.bestStats.median / d.defaultStats.median - 1 : 0;
  if (!std::isfinite(d.gain)) d.gain = 0;  // a default of almost nothing: no gain a rule could stand on
  setThreshold(options, d);
  return d;
}

// Nearer-point ranges: the boundary between two measured sizes is their midpoint.
void setRanges(std::vector<SizeDecision>& sizes) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    SizeDecision& d = sizes[i];
    d.low = i == 0 ? d.size : sizes[i - 1].high + 1;
    d.high = i + 1 == sizes.size() ? d.size : d.size + (sizes[i + 1].size - d.size) / 2;
  }
}

// What the group's measurements cover, and what they leave to NCCL.
void noteGroupCoverage(const Aggregate& aggregate, const GroupKey& key, const GroupDecisions& group,
                       std::vector<CoverageNote>& coverage) {
  const std::string shape = key.shape.label();
  const auto& table = aggregate.groups.at(key);
  if (!group.sizes.empty())
    coverage.push_back({key.collective, shape,
                        "measured " + std::to_string(group.sizes.size()) + " sizes, " +
                            sizeText(group.sizes.front().size) + " to " + sizeText(group.sizes.back().size) +
                            ": below and above them NCCL decides"});
  std::string noDefault, onlyDefault;
  for (const SizeDecision& d : group.sizes) {
    if (!d.hasDefault)
      noDefault += (noDefault.empty() ? "" : ", ") + sizeText(d.size);
    else if (table.at(d.size).size() == 1)
      onlyDefault += (onlyDefault.empty() ? "" : ", ") + sizeText(d.size);
  }
  if (!noDefault.empty())
    coverage.push_back({key.collective, shape, "no NCCL default measured at " + noDefault + ": NCCL decides there"});
  if (!onlyDefault.empty())
    coverage.push_back({key.collective, shape, "only NCCL's default measured at " + onlyDefault});
  if (!tunerCollective(key.collective))
    coverage.push_back({key.collective, shape, "NCCL does not ask a tuner about " + key.collective + ": no rules"});
}

// Adjacent sizes with the same winner become one rule.
void appendRules(const GroupKey& key, const GroupDecisions& group, std::vector<DerivedRule>& rules) {
  for (size_t i = 0; i < group.sizes.size();) {
    const SizeDecision& first = group.sizes[i];
    if (!first.ruled) {
      ++i;
      continue;
    }
    DerivedRule rule;
    rule.key = key;
    rule.choice = first.best;
    rule.minBytes = first.low;
    rule.minGain = first.gain;
    rule.maxGain = first.gain;
    rule.runs = first.bestStats.runs;
    rule.defaultRuns = first.defaultStats.runs;
    size_t j = i;
    for (; j < group.sizes.size() && group.sizes[j].ruled && group.sizes[j].best == first.best; ++j) {
      const SizeDecision& d = group.sizes[j];
      rule.maxBytes = d.high;
      rule.sizes.push_back(d.size);
      rule.minGain = std::min(rule.minGain, d.gain);
      rule.maxGain = std::max(rule.maxGain, d.gain);
      rule.samples += d.bestStats.samples;
      rule.defaultSamples += d.defaultStats.samples;
      rule.runs = std::min(rule.runs, d.bestStats.runs);
      rule.defaultRuns = std::min(rule.defaultRuns, d.defaultStats.runs);
      rule.maxSpread = std::max({rule.maxSpread, d.bestStats.spread, d.defaultStats.spread});
    }
    rules.push_back(std::move(rule));
    i = j;
  }
}

// Tuner collectives that a measured shape lacks, every other shape, and the rows not used.
void noteWhatIsMissing(const Aggregate& aggregate, const std::map<Shape, std::set<std::string>>& collectivesOfShape,
                       std::vector<CoverageNote>& coverage) {
  for (const auto& [shape, collectives] : collectivesOfShape) {
    std::string missing;
    for (const char* c : {"allreduce", "allgather", "reducescatter", "broadcast", "reduce"})
      if (!collectives.contains(c)) missing += (missing.empty() ? "" : ", ") + std::string(c);
    if (!missing.empty()) coverage.push_back({"", shape.label(), "no data for " + missing + ": NCCL decides"});
  }
  coverage.push_back({"", "", "every other communicator shape: no data, NCCL decides"});
  const auto dropped = [&](size_t n, const std::string& what) {
    if (n > 0) coverage.push_back({"", "", std::to_string(n) + " rows not used: " + what});
  };
  dropped(aggregate.rowsWrong, "a non-zero #wrong");
  dropped(aggregate.rowsUnusable, "their NCCL_ALGO/NCCL_PROTO forced no single choice");
  dropped(aggregate.rowsNoShape, "the number of ranks is unknown (no device lines)");
  dropped(aggregate.rowsNoMeasurement, "no busbw (N/A) or size 0");
  dropped(aggregate.rowsBadInOutputs, "dropped by sweep parse as impossible or malformed (never in the dataset)");
  dropped(aggregate.rowsSkippedInOutputs, "skipped by sweep parse: the output did not say its collective");
  dropped(aggregate.rowsImpossible, "a value no measurement can have (docs/sweep.md#impossible-values)");
}

}  // namespace

std::string signedPercent(double fraction) {
  return fixedText(fraction * 100, 1, true) + " %";
}

std::string fixedText(double value, int decimals, bool sign) {
  if (!std::isfinite(value)) return "-";
  char text[48];
  if (std::fabs(value) < 1e7)
    std::snprintf(text, sizeof text, sign ? "%+.*f" : "%.*f", decimals, value);
  else
    std::snprintf(text, sizeof text, sign ? "%+.3g" : "%.3g", value);
  return text;
}

std::string sizeText(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (value == static_cast<double>(static_cast<uint64_t>(value)))
    std::snprintf(text, sizeof text, "%llu %s", static_cast<unsigned long long>(value), kUnits[unit]);
  else
    std::snprintf(text, sizeof text, "%.3g %s", value, kUnits[unit]);
  return text;
}

DerivedRules deriveRules(const Aggregate& aggregate, const RulesOptions& options) {
  DerivedRules out;
  std::map<Shape, std::set<std::string>> collectivesOfShape;
  for (const auto& [key, table] : aggregate.groups) {
    collectivesOfShape[key.shape].insert(key.collective);
    GroupDecisions group{key, {}};
    for (const auto& [size, choices] : table) group.sizes.push_back(decide(size, choices, options));
    setRanges(group.sizes);
    noteGroupCoverage(aggregate, key, group, out.coverage);
    if (tunerCollective(key.collective)) appendRules(key, group, out.rules);
    out.groups.push_back(std::move(group));
  }
  noteWhatIsMissing(aggregate, collectivesOfShape, out.coverage);
  return out;
}

}  // namespace railtune::sweep
