// The shape every truth-scored evaluation shares (docs/accuracy.md). A suite is one analysis (hangs,
// stragglers, paths, NCCL-log import): it lists its scenarios for a set (the fixed seeds CI runs, or the
// full set a bench script runs), runs one scenario from its seed alone (so any miss can be replayed with
// `railtune eval SUITE --kind K --seed N`), and judges the analysis' answer against the truth it
// injected. Counters add up over scenarios (a key starting "max_" keeps the largest instead); the suite's
// targets are read off the sums, so a rate is always (sum of hits) / (sum of chances), never a mean of
// per-scenario rates.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace railtune::eval {

using Counters = std::map<std::string, double>;

// Adds `from` into `into`: sums, except "max_*" keys, which keep the larger value.
void addCounters(Counters& into, const Counters& from);

// A counter's sum; 0 when no scenario counted it.
double counterValue(const Counters& c, const std::string& key);
// hits / chances, read off the sums; `whenNone` when there was no chance at all.
double counterRatio(const Counters& c, const std::string& hits, const std::string& chances, double whenNone);

enum class SetSize { Ci, Full };

struct ScenarioSpec {
  std::string kind;   // what is injected: "sigstop", "late-tray", "cross-rail", "nccl-2.19"...
  uint64_t seed = 0;  // everything else follows from it
  int ranks = 0;      // 0: the suite picks from the seed
};

struct ScenarioResult {
  ScenarioSpec spec;
  std::string shape;    // what the seed chose, in a few words ("64 ranks, ring, 2 comms")
  bool correct = true;  // the analysis' answer agrees with the truth, by the suite's rule
  std::string miss;     // when not correct: what the truth was and what the analysis said
  Counters counters;
  double seconds = 0;  // filled by the runner
};

// A figure the suite must reach, read off the summed counters.
struct Target {
  std::string name;                              // "root cause named first"
  std::function<double(const Counters&)> value;  // e.g. hits / scenarios
  double threshold = 0;
  bool atLeast = true;  // value >= threshold (else value <= threshold)
  std::string unit;     // "", "%", "us": how the value prints (a % value is a fraction here)
};

// Where a scenario may write and what it may load.
struct RunContext {
  std::string scratchDir;  // a fresh folder per scenario, removed after it unless kept
  std::string libDir;      // the plugins' .so files (emulated scenarios)
  std::string binDir;      // the railtune CLI, for scenarios that drive it as a user would
  bool keep = false;       // keep scratch folders (to look at a miss)
};

class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;      // "hangs"
  virtual std::string describe() const = 0;  // one line for `railtune eval --list`
  virtual std::vector<std::string> kinds() const = 0;
  virtual std::vector<ScenarioSpec> scenarios(SetSize set) const = 0;
  // Runs one scenario. Throws only for a failure of the harness itself (a scratch folder that cannot be
  // made); an analysis that crashes, hangs or answers wrong is a miss, not an exception.
  virtual ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const = 0;
  virtual std::vector<Target> targets() const = 0;
};

using SuiteFactory = std::function<std::unique_ptr<Suite>()>;

}  // namespace railtune::eval
