// Running and tallying a suite (runner.h).
#include "eval/common/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace railtune::eval {
namespace {

std::string makeScratch(const std::string& suite, const ScenarioSpec& spec) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/railtune-eval-" + suite + "-" +
                        spec.kind + "-" + std::to_string(spec.seed) + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a scratch folder " + pattern);
  return pattern;
}

KindTally& tallyOf(std::vector<KindTally>& kinds, const std::string& kind) {
  for (KindTally& k : kinds)
    if (k.kind == kind) return k;
  kinds.push_back(KindTally{kind, 0, 0, {}});
  return kinds.back();
}

std::string formatValue(double value, const std::string& unit) {
  char text[64];
  if (unit == "%")
    std::snprintf(text, sizeof text, "%.1f %%", value * 100.0);
  else if (unit.empty())
    std::snprintf(text, sizeof text, "%.4g", value);
  else
    std::snprintf(text, sizeof text, "%.4g %s", value, unit.c_str());
  return text;
}

}  // namespace

void addCounters(Counters& into, const Counters& from) {
  for (const auto& [key, value] : from) {
    if (key.starts_with("max_")) {
      const auto it = into.find(key);
      into[key] = it == into.end() ? value : std::max(it->second, value);
    } else {
      into[key] += value;
    }
  }
}

double counterValue(const Counters& c, const std::string& key) {
  const auto it = c.find(key);
  return it == c.end() ? 0.0 : it->second;
}

double counterRatio(const Counters& c, const std::string& hits, const std::string& chances, double whenNone) {
  const double n = counterValue(c, chances);
  return n == 0 ? whenNone : counterValue(c, hits) / n;
}

bool SuiteReport::met() const {
  return std::all_of(targets.begin(), targets.end(), [](const TargetResult& t) { return t.met; });
}

SuiteReport runSuite(const Suite& suite, const RunOptions& options) {
  SuiteReport report;
  report.suite = suite.name();
  for (const std::string& kind : suite.kinds()) report.kinds.push_back(KindTally{kind, 0, 0, {}});
  const std::vector<ScenarioSpec> specs = options.only.empty() ? suite.scenarios(options.set) : options.only;
  const auto suiteStart = std::chrono::steady_clock::now();
  for (const ScenarioSpec& spec : specs) {
    RunContext context = options.context;
    context.scratchDir = makeScratch(report.suite, spec);
    const auto start = std::chrono::steady_clock::now();
    ScenarioResult result = suite.run(spec, context);
    result.spec = spec;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!context.keep) {
      std::error_code ignored;
      std::filesystem::remove_all(context.scratchDir, ignored);
    }
    if (options.progress)
      std::fprintf(stderr, "%s %s seed %llu (%s): %s%s%s\n", report.suite.c_str(), spec.kind.c_str(),
                   static_cast<unsigned long long>(spec.seed), result.shape.c_str(), result.correct ? "ok" : "MISS",
                   result.correct ? "" : ": ", result.miss.c_str());
    KindTally& tally = tallyOf(report.kinds, spec.kind);
    ++tally.scenarios;
    tally.correct += result.correct ? 1 : 0;
    addCounters(tally.counters, result.counters);
    addCounters(report.total, result.counters);
    report.total["scenarios"] += 1;
    report.total["correct"] += result.correct ? 1 : 0;
    if (!result.correct) report.misses.push_back(std::move(result));
  }
  std::erase_if(report.kinds, [](const KindTally& k) { return k.scenarios == 0; });
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - suiteStart).count();
  for (const Target& target : suite.targets()) {
    const double value = target.value(report.total);
    const bool met = !std::isnan(value) && (target.atLeast ? value >= target.threshold : value <= target.threshold);
    report.targets.push_back(TargetResult{target, value, met});
  }
  return report;
}

std::string renderReportText(const std::vector<SuiteReport>& reports) {
  std::ostringstream out;
  for (const SuiteReport& r : reports) {
    const int scenarios = static_cast<int>(r.total.contains("scenarios") ? r.total.at("scenarios") : 0);
    const int correct = static_cast<int>(r.total.contains("correct") ? r.total.at("correct") : 0);
    char head[160];
    std::snprintf(head, sizeof head, "suite %s: %d scenarios, %d correct, %zu missed (%.1f s)\n", r.suite.c_str(),
                  scenarios, correct, r.misses.size(), r.seconds);
    out << head;
    out << "  kind                          scenarios  correct\n";
    for (const KindTally& k : r.kinds) {
      char line[160];
      std::snprintf(line, sizeof line, "  %-30s %8d %8d\n", k.kind.c_str(), k.scenarios, k.correct);
      out << line;
    }
    for (const TargetResult& t : r.targets)
      out << "  target " << t.target.name << ": " << formatValue(t.value, t.target.unit)
          << (t.target.atLeast ? " >= " : " <= ") << formatValue(t.target.threshold, t.target.unit)
          << (t.met ? "  met" : "  NOT MET") << "\n";
    for (const ScenarioResult& m : r.misses)
      out << "  miss: " << r.suite << " --kind " << m.spec.kind << " --seed " << m.spec.seed
          << (m.spec.ranks > 0 ? " --ranks " + std::to_string(m.spec.ranks) : "") << " (" << m.shape << "): " << m.miss
          << "\n";
  }
  return out.str();
}

std::string renderReportJson(const std::vector<SuiteReport>& reports) {
  using nlohmann::json;
  json suites = json::array();
  for (const SuiteReport& r : reports) {
    json kinds = json::array(), targets = json::array(), misses = json::array();
    for (const KindTally& k : r.kinds)
      kinds.push_back({{"kind", k.kind}, {"scenarios", k.scenarios}, {"correct", k.correct}, {"counters", k.counters}});
    for (const TargetResult& t : r.targets)
      targets.push_back({{"name", t.target.name},
                         {"value", std::isnan(t.value) ? json(nullptr) : json(t.value)},
                         {"threshold", t.target.threshold},
                         {"at_least", t.target.atLeast},
                         {"unit", t.target.unit},
                         {"met", t.met}});
    for (const ScenarioResult& m : r.misses)
      misses.push_back({{"kind", m.spec.kind},
                        {"seed", m.spec.seed},
                        {"ranks", m.spec.ranks},
                        {"shape", m.shape},
                        {"miss", m.miss}});
    suites.push_back({{"suite", r.suite},
                      {"seconds", r.seconds},
                      {"met", r.met()},
                      {"kinds", kinds},
                      {"targets", targets},
                      {"misses", misses},
                      {"total", r.total}});
  }
  return json{{"schema", "railtune.eval_report.v1"}, {"suites", suites}}.dump(2, ' ', false,
                                                                              json::error_handler_t::replace) +
         "\n";
}

}  // namespace railtune::eval
