// libnccl-env-railtune.so opened with dlopen as NCCL opens it, its two tables looked up by name, and the process
// variables a test sets put back afterwards. Shared by the env plugin's e2e tests.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "nccl/env_v1.h"
#include "nccl/env_v2.h"
#include "tests/support/log_capture.h"

namespace railtune::testing {

inline std::string envPluginPath() {
  return std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-env-railtune.so";
}

// Sets and unsets process variables; the destructor restores what was there before.
class ScopedVars {
 public:
  ScopedVars() = default;
  ScopedVars(const ScopedVars&) = delete;
  ScopedVars& operator=(const ScopedVars&) = delete;
  ~ScopedVars() {
    for (const auto& [name, old] : saved_) {
      if (old)
        ::setenv(name.c_str(), old->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }
  void set(const std::string& name, const std::string& value) {
    save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    save(name);
    ::unsetenv(name.c_str());
  }

 private:
  void save(const std::string& name) {
    if (saved_.count(name)) return;
    const char* old = std::getenv(name.c_str());
    saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

class EnvPluginLibrary {
 public:
  EnvPluginLibrary() : handle_(::dlopen(envPluginPath().c_str(), RTLD_NOW | RTLD_LOCAL)) {}
  EnvPluginLibrary(const EnvPluginLibrary&) = delete;
  EnvPluginLibrary& operator=(const EnvPluginLibrary&) = delete;
  ~EnvPluginLibrary() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  bool loaded() const { return handle_ != nullptr; }
  const ncclEnv_v2_t* v2() const { return static_cast<const ncclEnv_v2_t*>(::dlsym(handle_, "ncclEnvPlugin_v2")); }
  const ncclEnv_v1_t* v1() const { return static_cast<const ncclEnv_v1_t*>(::dlsym(handle_, "ncclEnvPlugin_v1")); }

 private:
  void* handle_;
};

// The variables that define a test's case, set by the case (never unset, so that a user's own stay as they are): the
// rail map and the host it answers for, and no topo file or other plugins unless the case names them (an empty value
// is "not set" for railtune's variables, common/params.cc). The machine's NCCL_* settings, RAILTUNE_NET_QPS and
// NCCL_HOSTID are left alone: they are a case of every test, whose expectations take them in (expectedAnswer).
// RAILTUNE_INJECT_FAULT is the harness's own switch (common/fault.h), cleared as tests/e2e/plugin_fixture.h does.
struct CaseInputs {
  std::string railMap;   // RAILTUNE_RAIL_MAP; "" = no rail map
  std::string host;      // RAILTUNE_HOST, which wins over NCCL_HOSTID and the hostname
  std::string topoFile;  // RAILTUNE_ENV_TOPO_FILE
  std::string plugins;   // RAILTUNE_ENV_PLUGINS
};

inline void setCaseInputs(ScopedVars& vars, const CaseInputs& inputs) {
  vars.unset("RAILTUNE_INJECT_FAULT");
  vars.set("RAILTUNE_RAIL_MAP", inputs.railMap);
  vars.set("RAILTUNE_HOST", inputs.host);
  vars.set("RAILTUNE_ENV_TOPO_FILE", inputs.topoFile);
  vars.set("RAILTUNE_ENV_PLUGINS", inputs.plugins);
}

inline std::string answerText(const char* value) {
  return value == nullptr ? "<null>" : value;
}

// True when the process environment sets `name` to a non-empty value: the user's, which getEnv answers unchanged.
inline bool userSets(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value != nullptr && *value != '\0';
}

// What getEnv answers for `name` (as answerText) when the table holds `tableValue` (nullopt: the table does not set
// it), by the plugin's documented rule (docs/training-image.md, "The env plugin"): a value set non-empty in the
// process environment wins, read live; else the table's; else whatever the environment holds (NULL, or "").
inline std::string expectedAnswer(const std::string& name, const std::optional<std::string>& tableValue) {
  if (userSets(name)) return std::getenv(name.c_str());
  if (tableValue) return *tableValue;
  return answerText(std::getenv(name.c_str()));
}

}  // namespace railtune::testing
