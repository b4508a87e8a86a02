// The environment matrix of a sweep (env_matrix.h).
#include "nccl-tests-integration/run/env_matrix.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "nccl-tests-integration/run/plan.h"

namespace railtune::sweep {
namespace {

std::string trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

std::string namesOf(const NetEnv& env) {
  std::string names;
  for (const auto& entry : env) names += (names.empty() ? "" : ", ") + entry.first;
  return names.empty() ? "no --env variable" : names;
}

// Two values of one variable, or two variables, that one run id part would name: their runs would share ids.
void checkTagsDistinct(const std::vector<EnvAxis>& axes) {
  std::map<std::string, std::string> nameOfTag;
  for (const EnvAxis& axis : axes) {
    const auto [it, added] = nameOfTag.try_emplace(netEnvTagName(axis.name), axis.name);
    if (!added)
      throw std::invalid_argument("--env " + it->second + " and --env " + axis.name + " share the run id part '" +
                                  it->first + "'");
    std::map<std::string, std::string> valueOfTag;
    for (const std::string& value : axis.values) {
      const auto [v, fresh] = valueOfTag.try_emplace(netEnvTagValue(value), value);
      if (!fresh)
        throw std::invalid_argument("--env " + axis.name + ": the values '" + v->second + "' and '" + value +
                                    "' give one run id part, '" + it->first + v->first + "'");
    }
  }
}

}  // namespace

EnvAxis parseEnvAxis(std::string_view option) {
  const size_t eq = option.find('=');
  if (eq == std::string_view::npos)
    throw std::invalid_argument("--env " + std::string(option) + ": expected NAME=VALUE[,VALUE...]");
  EnvAxis axis;
  axis.name = trimmed(option.substr(0, eq));
  if (const std::string why = whyNotANetSetting(axis.name); !why.empty())
    throw std::invalid_argument("--env " + std::string(option) + ": " + axis.name + ": " + why);
  std::string_view rest = option.substr(eq + 1);
  while (true) {
    const size_t comma = rest.find(',');
    const std::string value = trimmed(rest.substr(0, comma));
    if (value.empty())
      throw std::invalid_argument("--env " + std::string(option) +
                                  ": an empty value (NCCL reads an empty variable as unset: give NCCL's default "
                                  "value to measure it)");
    if (std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end()) axis.values.push_back(value);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return axis;
}

std::vector<NetEnv> envCombinations(const std::vector<EnvAxis>& given) {
  std::vector<EnvAxis> axes = given;
  std::sort(axes.begin(), axes.end(), [](const EnvAxis& a, const EnvAxis& b) { return a.name < b.name; });
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i].name == axes[i - 1].name)
      throw std::invalid_argument("--env " + axes[i].name + " is given twice: give its values in one list");
  checkTagsDistinct(axes);
  size_t count = 1;
  for (const EnvAxis& axis : axes) {
    count *= axis.values.size();
    if (count > kMaxEnvCombinations)
      throw std::invalid_argument("--env: the matrix has more than " + std::to_string(kMaxEnvCombinations) +
                                  " combinations (each runs every choice again): measure fewer values, or the "
                                  "variables in separate sweeps");
  }
  std::vector<NetEnv> combinations{NetEnv{}};
  for (const EnvAxis& axis : axes) {
    std::vector<NetEnv> next;
    for (const NetEnv& partial : combinations)
      for (const std::string& value : axis.values) {
        NetEnv combination = partial;
        combination[axis.name] = value;
        next.push_back(std::move(combination));
      }
    combinations = std::move(next);
  }
  return combinations;
}

void checkSameMatrix(const Manifest& previous, const Plan& plan, const std::string& manifestPath) {
  if (plan.runs.empty()) return;
  std::set<std::string> planNames;
  for (const auto& entry : plan.runs.front().netEnv) planNames.insert(entry.first);
  std::map<std::string, const PlannedRun*> planned;
  for (const PlannedRun& run : plan.runs) planned[run.id] = &run;
  const std::string fix = ": pass --restart to start the sweep over, or choose another -o folder";
  for (const ManifestEntry& entry : previous.entries) {
    std::set<std::string> names;
    for (const auto& setting : entry.netEnv) names.insert(setting.first);
    if (names != planNames)
      throw std::invalid_argument(manifestPath + " has " + entry.id + " run with " +
                                  (entry.netEnv.empty() ? "no --env setting" : netEnvLabel(entry.netEnv)) +
                                  ", this sweep's --env matrix sets " + namesOf(plan.runs.front().netEnv) + fix);
    const auto it = planned.find(entry.id);
    if (it != planned.end() && it->second->netEnv != entry.netEnv)
      throw std::invalid_argument(manifestPath + " has " + entry.id + " run with " + netEnvLabel(entry.netEnv) +
                                  ", this sweep would run it with " + netEnvLabel(it->second->netEnv) + fix);
  }
}

}  // namespace railtune::sweep
