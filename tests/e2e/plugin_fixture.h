// Loading one of the real plugin .so files the way NCCL does (dlopen RTLD_NOW|RTLD_LOCAL, dlsym of
// the versioned struct), with the environment and the captured log reset around each test. Each
// test unloads the library again, so no plugin state leaks from one test into the next.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "tests/support/log_capture.h"

namespace railtune::testing {

class PluginLibrary {
 public:
  explicit PluginLibrary(const std::string& kind)
      : path_(std::string(RAILTUNE_PLUGIN_DIR) + "/libnccl-" + kind + "-railtune.so"),
        handle_(dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
  ~PluginLibrary() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  template <typename Table>
  const Table* table(const std::string& symbol) const {
    return handle_ ? static_cast<const Table*>(dlsym(handle_, symbol.c_str())) : nullptr;
  }

 private:
  std::string path_;
  void* handle_;
};

// Sets variables for one test and restores what was there before.
class ScopedEnv {
 public:
  ~ScopedEnv() {
    for (const auto& [name, previous] : saved_) {
      if (previous) {
        setenv(name.c_str(), previous->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    remember(name);
    setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    remember(name);
    unsetenv(name.c_str());
  }

 private:
  void remember(const std::string& name) {
    if (saved_.count(name)) return;
    const char* value = std::getenv(name.c_str());
    saved_[name] = value ? std::optional<std::string>(value) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

// Test names for suites parameterised by ABI version: "v5".
inline std::string versionName(const ::testing::TestParamInfo<int>& info) {
  return std::string("v").append(std::to_string(info.param));  // not "v" + ...: false -Wrestrict in g++ 12 -O3
}

class PluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env.unset("RAILTUNE_INJECT_FAULT");
    env.unset("RAILTUNE_STRICT");
    LogCapture::instance().clear();
  }
  // Faults are read at the plugin's init, so tests set them before calling init.
  void injectFault(const std::string& sites) { env.set("RAILTUNE_INJECT_FAULT", sites); }
  static size_t warnCount() { return LogCapture::instance().warnings().size(); }
  static std::string logText() { return LogCapture::instance().dump(); }
  static bool logged(const std::string& text) { return logText().find(text) != std::string::npos; }

  ScopedEnv env;
};

}  // namespace railtune::testing
