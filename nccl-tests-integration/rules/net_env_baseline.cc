// NCCL's own network setting (net_env_baseline.h).
#include "nccl-tests-integration/rules/net_env_baseline.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace railtune::sweep {
namespace {

// The values NCCL behaves the same under as when the variable is unset, before the link layer is known; AR's
// depend on it (defaultsOf).
struct KnownDefault {
  const char* name;
  std::vector<long long> values;
};
const std::vector<KnownDefault>& knownDefaults() {
  static const std::vector<KnownDefault> table = {
      {"NCCL_IB_QPS_PER_CONNECTION", {1}},
      {"NCCL_IB_SPLIT_DATA_ON_QPS", {0}},
      {"NCCL_IB_ADAPTIVE_ROUTING", {-2}},
      {"NCCL_IB_AR_THRESHOLD", {-2, 8192}},
      {"NCCL_CROSS_NIC", {2}},
  };
  return table;
}

std::optional<long long> ncclInteger(const std::string& value) {
  if (value.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long parsed = std::strtoll(value.c_str(), &end, 0);
  if (errno != 0 || end == value.c_str() || *end != '\0') return std::nullopt;
  return parsed;
}

std::optional<std::vector<long long>> defaultsOf(const std::string& name, const std::string& linkLayer) {
  for (const KnownDefault& known : knownDefaults()) {
    if (name != known.name) continue;
    std::vector<long long> values = known.values;
    if (name == "NCCL_IB_ADAPTIVE_ROUTING" && (linkLayer == "IB" || linkLayer == "RoCE"))
      values.push_back(linkLayer == "IB" ? 1 : 0);
    return values;
  }
  return std::nullopt;
}

}  // namespace

std::string netEnvValueAsNcclReads(const std::string& name, const std::string& value) {
  if (!defaultsOf(name, "").has_value()) return value;
  const std::optional<long long> parsed = ncclInteger(value);
  return parsed ? std::to_string(*parsed) : value;
}

bool isNcclDefaultSetting(const NetEnv& setting, const std::string& linkLayer) {
  for (const auto& [name, value] : setting) {
    const std::optional<std::vector<long long>> defaults = defaultsOf(name, linkLayer);
    const std::optional<long long> parsed = ncclInteger(value);
    if (!defaults || !parsed) return false;
    bool found = false;
    for (long long d : *defaults) found = found || d == *parsed;
    if (!found) return false;
  }
  return true;
}

}  // namespace railtune::sweep
