// The environment matrix of `railtune sweep run --env NAME=V1,V2,...` (docs/sweep.md, "Environment matrices"):
// each option one variable and its values, the matrix their cartesian product, every combination a setting under
// which the whole plan of choices runs (the default run first). Pure, but for the check of a resumed sweep's
// manifest against the plan.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "nccl-tests-integration/dataset/net_env.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {

struct Plan;

// One --env option: a variable and its values, in the order given, repeats dropped.
struct EnvAxis {
  std::string name;
  std::vector<std::string> values;
};

// Above this many combinations a matrix is refused: each combination runs the whole plan of choices again.
inline constexpr size_t kMaxEnvCombinations = 64;

// "NCCL_IB_QPS_PER_CONNECTION=1,4" -> the axis. Throws std::invalid_argument naming the option: no '=', a name
// that is no NCCL variable or that the sweep forces (whyNotANetSetting), an empty value.
EnvAxis parseEnvAxis(std::string_view option);

// The combinations, variables in name order, the first name's values changing slowest; one empty combination
// without axes. Throws std::invalid_argument: a variable given twice, two values or two names that would give
// one run id part, more than kMaxEnvCombinations combinations.
std::vector<NetEnv> envCombinations(const std::vector<EnvAxis>& axes);

// A resumed sweep must measure what its manifest measured: throws std::invalid_argument naming the first run of
// the manifest whose setting names other variables than the plan's matrix, or whose id the plan gives to another
// setting.
void checkSameMatrix(const Manifest& previous, const Plan& plan, const std::string& manifestPath);

}  // namespace railtune::sweep
