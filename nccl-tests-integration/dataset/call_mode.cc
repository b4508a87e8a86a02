#include "nccl-tests-integration/dataset/call_mode.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <stdexcept>

namespace railtune::sweep {
namespace {

struct Flag {
  char shortName;
  std::string_view longName;
  int CallMode::*field;
};
constexpr Flag kFlags[] = {{'R', "--local_register", &CallMode::registration},
                           {'D', "--device_implementation", &CallMode::deviceImpl},
                           {'x', "--cta_policy", &CallMode::ctaPolicy}};

// The value of flag at argv[i] when argv[i] is that flag ("-R" "2", "-R2", "--local_register[=]2"); advances i
// past a separate value. nullopt when argv[i] is not the flag.
std::optional<std::string> flagValue(const Flag& flag, const std::vector<std::string>& argv, size_t& i) {
  const std::string& arg = argv[i];
  const std::string shortForm = std::string("-") + flag.shortName;
  std::string rest;
  if (arg == shortForm || arg == flag.longName) {
    if (i + 1 >= argv.size()) return std::string();
    return argv[++i];
  }
  if (arg.size() > 2 && arg.starts_with(shortForm)) return arg.substr(2);
  if (arg.starts_with(std::string(flag.longName) + "=")) return arg.substr(flag.longName.size() + 1);
  return std::nullopt;
}

}  // namespace

std::string CallMode::label() const {
  std::string out;
  if (registration != 0) out += "-R " + std::to_string(registration);
  if (deviceImpl != 0) out += std::string(out.empty() ? "" : " ") + "-D " + std::to_string(deviceImpl);
  if (ctaPolicy != -1) out += std::string(out.empty() ? "" : " ") + "-x " + std::to_string(ctaPolicy);
  return out;
}

const char* registrationLabel(int registration) {
  switch (registration) {
    case 0:
      return "none";
    case 1:
      return "local";
    case 2:
      return "symmetric";
    default:
      return "unknown";
  }
}

const char* ctaPolicyLabel(int ctaPolicy) {
  switch (ctaPolicy) {
    case -1:
      return "unset";
    case 0:
      return "default";
    case 1:
      return "efficiency";
    case 2:
      return "zero";
    default:
      return "unknown";
  }
}

CallMode callModeFromArgs(const std::vector<std::string>& argv, std::string* problem) {
  CallMode mode;
  for (size_t i = 1; i < argv.size(); ++i)
    for (const Flag& flag : kFlags) {
      const std::optional<std::string> value = flagValue(flag, argv, i);
      if (!value) continue;
      errno = 0;
      char* end = nullptr;
      const long v = std::strtol(value->c_str(), &end, 0);  // nccl-tests reads it with strtol(optarg, NULL, 0)
      if (value->empty() || errno != 0 || *end != '\0' || v < -1 || v > 1000) {
        if (problem) *problem = "-" + std::string(1, flag.shortName) + " '" + *value + "' is not a number";
      } else {
        mode.*flag.field = static_cast<int>(v);
      }
      break;
    }
  return mode;
}

CallMode callModeFromLabel(std::string_view label) {
  std::vector<std::string> argv{"nccl-tests"};
  for (size_t start = 0; start < label.size();) {
    const size_t space = label.find(' ', start);
    const size_t end = space == std::string_view::npos ? label.size() : space;
    if (end > start) argv.emplace_back(label.substr(start, end - start));
    start = end + 1;
  }
  std::string problem;
  const CallMode mode = callModeFromArgs(argv, &problem);
  if (!problem.empty() || mode.label() != label)
    throw std::invalid_argument("\"call\" must be nccl-tests' -R/-D/-x flags as sweep parse writes them, not \"" +
                                std::string(label) + "\"");
  return mode;
}

bool mayBypassTuner(const CallMode& call, std::string_view collective, int nodes,
                    const std::map<std::string, std::string>& env) {
  if (call.deviceImpl > 0) return true;
  const bool symmetricCollective =
      collective == "allreduce" || collective == "allgather" || collective == "reducescatter";
  // Several NCCL nodes: no symmetric kernel (every GPU over direct NVLink needed), only the hierarchical CE AllGather
  // of CTA policy ZERO (when NCCL's RMA proxy is up: not known here).
  if (nodes > 1) return collective == "allgather" && call.registration == 2 && call.ctaPolicy == 2;
  if (!symmetricCollective) return false;
  if (call.registration == 2) return true;
  const auto noWin = env.find("NCCL_SYM_NOWIN_ENABLE");
  return env.contains("NCCL_SYM_KERNEL") || (noWin != env.end() && noWin->second != "0");
}

}  // namespace railtune::sweep
