// The rows of one network setting (net_env_rows.h).
#include "nccl-tests-integration/rules/net_env_rows.h"

#include <stdexcept>
#include <string>

namespace railtune::sweep {
namespace {

std::string described(const NetEnv& setting) {
  return setting.empty() ? std::string("no --env setting") : netEnvLabel(setting);
}

}  // namespace

NetEnv parseNetEnvRows(std::string_view text) {
  NetEnv setting;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("--net-env-rows: '" + std::string(item) + "' is not NAME=VALUE");
    const std::string name(item.substr(0, eq));
    if (const std::string why = whyNotANetSetting(name); !why.empty())
      throw std::invalid_argument("--net-env-rows: " + name + ": " + why);
    if (!setting.emplace(name, std::string(item.substr(eq + 1))).second)
      throw std::invalid_argument("--net-env-rows: " + name + " is given twice");
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return setting;
}

size_t keepNetEnvRows(Aggregate& aggregate, const NetEnv& setting) {
  size_t left = 0;
  std::string held;
  for (const auto& [other, rows] : aggregate.rowsOfNetEnv) {
    if (other == setting) continue;
    left += rows;
    held += (held.empty() ? "" : "; ") + described(other) + " (" + std::to_string(rows) + " rows)";
  }
  if (aggregate.rowsUsed == left && left > 0)
    throw std::runtime_error("no row for the algorithm rules was measured under " + described(setting) +
                             "; the datasets hold rows measured under " + held +
                             ": pick one setting with --net-env-rows NAME=VALUE,...");
  std::erase_if(aggregate.groups, [&](const auto& group) { return group.first.netEnv != setting; });
  std::erase_if(aggregate.rowsOfNetEnv, [&](const auto& entry) { return entry.first != setting; });
  aggregate.rowsUsed -= left;
  return left;
}

}  // namespace railtune::sweep
