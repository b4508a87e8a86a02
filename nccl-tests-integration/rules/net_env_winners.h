// The network settings that won a sweep's environment matrix (`railtune sweep rules --net-env FILE`, docs/sweep.md
// "Network settings from a sweep"), written as `railtune.net-env/1` (formats/net_env.h).
//
// Per collective and shape (with its GPU and fabric), each setting measured is judged on NCCL's own choice (the
// runs with no forced algorithm or protocol) against the baseline: the rows measured under no setting, else the
// setting whose every variable holds NCCL's default (net_env_baseline.h). At each size measured under both, the
// gain of the setting's median busbw over the baseline's faces the algorithm rules' bar (derive.h): the larger of
// --min-gain, the spread of either and, where either rests on fewer than 2 runs, kOneRunNoise. A setting
//   - is vetoed when any size measured under both falls by more than its bar (network settings are per process:
//     they cannot be left at small sizes);
//   - is judged at the sizes of at least kNetEnvJudgedFromBytes, where the network's bandwidth, which these
//     settings change, sets the time;
//   - qualifies when its median gain over those sizes exceeds the largest bar among them.
// The qualified setting with the largest median gain wins. A one-node shape never wins (NCCL opens no network
// connection there); a shape without a baseline, or where no setting qualified, is "not decided", with why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/net_env.h"
#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// 1 MiB: the smallest size a setting is judged at. Below it a collective's time is mostly latency (NCCL's own model
// prices every step at microseconds, tuning.cc's baseLat and hwLat), which QP counts, splitting and adaptive
// routing do not change; a setting must still not regress there beyond the noise.
inline constexpr uint64_t kNetEnvJudgedFromBytes = uint64_t{1} << 20;

struct NetEnvOptions {
  double minGain = 0.05;              // as `sweep rules --min-gain`
  std::vector<std::string> datasets;  // the inputs, as given (the file's "datasets")
  std::string generatedBy;            // "railtune sweep rules 0.9.0"
};

// One collective and shape's verdict, for the terminal: what won, or why nothing did, and one line per setting.
struct NetEnvVerdict {
  std::string collective, shape;  // Shape::label()
  std::string outcome;            // "NCCL_IB_...=1: +70.0 % median ..." or "not decided: ..."
  std::vector<std::string> settings;
};

struct NetEnvWinners {
  formats::NetEnvFile file;
  std::vector<NetEnvVerdict> verdicts;
};

// Throws std::runtime_error when no row was measured under a setting (nothing to compare).
NetEnvWinners deriveNetEnvWinners(const Aggregate& aggregate, const NetEnvOptions& options);

// The verdicts, one block per collective and shape, for stdout.
std::string netEnvReport(const NetEnvWinners& winners);

}  // namespace railtune::sweep
