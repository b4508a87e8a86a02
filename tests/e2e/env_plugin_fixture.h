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

// The variables the plugin's table or its inputs read, unset for the test so that the machine's own do not enter.
inline void clearPluginInputs(ScopedVars& vars) {
  for (const char* name : {"RAILTUNE_RAIL_MAP",
                           "RAILTUNE_INJECT_FAULT",
                           "RAILTUNE_HOST",
                           "NCCL_HOSTID",
                           "RAILTUNE_ENV_TOPO_FILE",
                           "RAILTUNE_ENV_PLUGINS",
                           "RAILTUNE_NET_QPS",
                           "NCCL_IB_HCA",
                           "NCCL_CROSS_NIC",
                           "NCCL_NET_MERGE_POLICY",
                           "NCCL_TOPO_FILE",
                           "NCCL_MNNVL_ENABLE",
                           "NCCL_CUMEM_ENABLE",
                           "NCCL_NET_PLUGIN",
                           "NCCL_TUNER_PLUGIN",
                           "NCCL_PROFILER_PLUGIN",
                           "NCCL_IB_QPS_PER_CONNECTION",
                           "NCCL_IB_SPLIT_DATA_ON_QPS",
                           "NCCL_IB_ADAPTIVE_ROUTING",
                           "NCCL_IB_GID_INDEX",
                           "NCCL_IB_TC",
                           "NCCL_IB_SL",
                           "NCCL_NCHANNELS_PER_NET_PEER"})
    vars.unset(name);
}

}  // namespace railtune::testing
