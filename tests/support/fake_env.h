// A process-environment stand-in for EnvLookup (a plain function pointer, so the map is global).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace railtune::testing {

inline std::map<std::string, std::string>& fakeEnvVars() {
  static std::map<std::string, std::string> vars;
  return vars;
}

inline std::optional<std::string> fakeEnv(const char* name) {
  const auto it = fakeEnvVars().find(name);
  if (it == fakeEnvVars().end()) return std::nullopt;
  return it->second;
}

}  // namespace railtune::testing
