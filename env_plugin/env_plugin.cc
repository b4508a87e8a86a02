// See env_plugin.h. The table is published through one atomic pointer: getEnv takes no lock, allocates nothing and
// reads only strings that are never changed or freed while the library is loaded. A table that finalize (or a
// second init) replaces is retired, not freed, so that a pointer NCCL still holds stays whole; the retired ones go
// with the library.
#include "env_plugin/env_plugin.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/fault.h"
#include "common/log.h"
#include "env_plugin/host_table.h"

namespace railtune::envplugin {
namespace {

constexpr unsigned long kFlags = NCCL_INIT | NCCL_ENV;

Log& pluginLog() {
  static Log log("env");
  return log;
}

std::atomic<const HostTable*> current{nullptr};

// Tables no longer current, kept until the library is unloaded.
struct Retired {
  std::mutex mutex;
  std::vector<std::unique_ptr<const HostTable>> tables;
};
Retired& retired() {
  static Retired r;
  return r;
}

void publish(std::unique_ptr<const HostTable> table) {
  Retired& r = retired();
  std::lock_guard<std::mutex> lock(r.mutex);
  current.store(table.get(), std::memory_order_release);  // the one it replaces is already in r.tables
  if (table) r.tables.push_back(std::move(table));
}

// The folder of this .so, where RAILTUNE_ENV_PLUGINS looks for the other railtune plugins; "" when unknown.
std::string ownFolder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&getEnv), &info) == 0 || info.dli_fname == nullptr) return "";
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

void logTable(const TableResult& result, uint8_t major, uint8_t minor, uint8_t patch) {
  const Log& log = pluginLog();
  RT_INFO(log, kFlags, "host %s: %zu NCCL variables from rail map %s (NCCL %d.%d.%d)", result.host.c_str(),
          result.table->vars().size(), result.railMap.c_str(), major, minor, patch);
  for (const auto& [name, value] : result.table->vars()) {
    const char* user = std::getenv(name.c_str());
    if (user != nullptr && *user != '\0')
      RT_INFO(log, kFlags, "%s set in the environment to %s wins over the rail map's %s", name.c_str(), user,
              value.c_str());
    else
      RT_INFO(log, kFlags, "%s=%s", name.c_str(), value.c_str());
  }
}

}  // namespace

ncclResult_t init(uint8_t major, uint8_t minor, uint8_t patch, const char* /*suffix*/,
                  ncclDebugLogger_t logger) noexcept {
  try {
    pluginLog().setLogger(logger);
    if (const std::string rejected = armFaultsFromEnvironment(); !rejected.empty())
      RT_WARN(pluginLog(), kFlags, "%s", rejected.c_str());
    injectFaultAt(FaultSite::EnvInit);
    TableInputs inputs;
    inputs.ncclMajor = major;
    inputs.ncclMinor = minor;
    inputs.pluginDir = ownFolder();
    TableResult result = buildHostTable(inputs);
    if (!result.problem.empty()) {
      RT_WARN(pluginLog(), kFlags, "%s; every NCCL variable is read from the environment as without the plugin",
              result.problem.c_str());
      publish(nullptr);
      return ncclSuccess;
    }
    logTable(result, major, minor, patch);
    publish(std::move(result.table));
  } catch (const std::exception& e) {
    RT_WARN(pluginLog(), kFlags, "init failed (%s); every NCCL variable is read from the environment", e.what());
    publish(nullptr);  // never fails NCCL: without a table the plugin is NCCL's default
  } catch (...) {
    publish(nullptr);
  }
  return ncclSuccess;
}

ncclResult_t finalize() noexcept {
  try {
    publish(nullptr);
  } catch (...) {
    current.store(nullptr, std::memory_order_release);
  }
  return ncclSuccess;
}

const char* getEnv(const char* name) noexcept {
  if (name == nullptr) return nullptr;
  const char* user = std::getenv(name);
  if (user != nullptr && *user != '\0') return user;
  try {
    injectFaultAt(FaultSite::EnvGetEnv);
  } catch (...) {
    return user;  // an internal failure answers what NCCL's default plugin would
  }
  const HostTable* table = current.load(std::memory_order_acquire);
  if (table != nullptr)
    if (const char* value = table->find(name)) return value;
  return user;
}

}  // namespace railtune::envplugin
