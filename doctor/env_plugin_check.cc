// See env_plugin_check.h.
#include "doctor/env_plugin_check.h"

#include <dlfcn.h>
#include <strings.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/params.h"
#include "doctor/probe.h"
#include "emulator/loader.h"
#include "formats/rail_map_choice.h"
#include "nccl/env_v1.h"
#include "nccl/env_v2.h"

namespace railtune::doctor {
namespace {

namespace fs = std::filesystem;

constexpr int kNewestKnownNccl = 23102;  // 2.31.2: the release whose env plugin rules doctor states without NCCL

// NCCL's logger signature; the attribute lets the compiler check the format through the va_list.
__attribute__((format(printf, 5, 6))) void sayWarn(ncclDebugLogLevel level, unsigned long, const char*, int,
                                                   const char* fmt, ...);
void sayWarn(ncclDebugLogLevel level, unsigned long, const char*, int, const char* fmt, ...) {
  static bool said = false;
  if (level != NCCL_LOG_WARN || said) return;
  said = true;
  char text[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof(text), fmt, args);
  va_end(args);
  sayProbe("warn", text);
}

std::string howToSelect(const DoctorOptions& options) {
  return "export NCCL_ENV_PLUGIN=railtune with " + options.pluginDir +
         " on LD_LIBRARY_PATH (NCCL opens the name, then libnccl-env-NAME.so), or set it to the library's absolute "
         "path; then set RAILTUNE_RAIL_MAP";
}

void checkVariable(const DoctorOptions& options, Report& report) {
  const std::optional<std::string> value = processEnv("NCCL_ENV_PLUGIN");
  if (!value || value->empty()) {
    report.add("env.NCCL_ENV_PLUGIN", Status::Skip,
               "unset: NCCL opens libnccl-env.so where one is found, else reads its environment itself; railtune's "
               "env plugin is not selected",
               howToSelect(options));
    return;
  }
  if (strcasecmp(value->c_str(), "none") == 0) {
    report.add("env.NCCL_ENV_PLUGIN", Status::Skip, "NCCL_ENV_PLUGIN=none: NCCL reads its environment itself");
    return;
  }
  const ProbeResult probe = runProbe({"resolve", "env", *value}, options.timeoutSeconds);
  if (!probe.finished() || probe.exitCode != 0 || !probe.has("opened")) {
    const std::string why =
        probe.finished() ? probe.get("error") : "the child " + probe.describeEnd(options.timeoutSeconds);
    report.add(
        "env.NCCL_ENV_PLUGIN", Status::Fail,
        "NCCL_ENV_PLUGIN=" + *value + " does not resolve (" + why + "): NCCL falls back to its internal env plugin",
        howToSelect(options));
    return;
  }
  const std::string path = probe.get("path");
  const bool railtune = fs::path(path).filename().string().find("railtune") != std::string::npos;
  report.add("env.NCCL_ENV_PLUGIN", railtune ? Status::Ok : Status::Warn,
             "NCCL_ENV_PLUGIN=" + *value + " -> " + probe.get("opened") + " (" + path + ")" +
                 (railtune ? "" : ", not railtune's"),
             railtune ? "" : howToSelect(options));
}

void checkAnswer(const DoctorOptions& options, const NcclFound& nccl, const std::string& host, Report& report) {
  const fs::path lib = fs::absolute(options.pluginDir).lexically_normal() / "libnccl-env-railtune.so";
  std::error_code ec;
  if (!fs::is_regular_file(lib, ec)) return;  // plugin.env.file says so
  const int code = nccl.present ? nccl.versionCode : kNewestKnownNccl;
  const std::string railMap = formats::chosenRailMapPath(options.railMap);
  const ProbeResult probe =
      runProbe({"env", lib.string(), std::to_string(code), railMap, host}, options.timeoutSeconds);
  const std::string release = "NCCL " + ncclVersionText(code);
  if (!probe.finished() || probe.exitCode != 0 || probe.has("error")) {
    report.add("plugin.env.answer", Status::Fail,
               release + ": " +
                   (probe.has("error") ? probe.get("error") : "the child " + probe.describeEnd(options.timeoutSeconds)),
               "reinstall the plugin; if it persists, report it with NCCL_DEBUG=INFO");
    return;
  }
  const std::string bound = release + " binds " + probe.get("symbol");
  if (probe.has("warn")) {
    report.add("plugin.env.answer", Status::Warn,
               bound + "; it answers nothing for host " + host + ": " + probe.get("warn"),
               "set RAILTUNE_RAIL_MAP to the cluster's rail map (railtune topo rail-map) and RAILTUNE_HOST where the "
               "hostname is not the map's name");
    return;
  }
  const std::optional<std::string> user = processEnv("NCCL_IB_HCA");
  report.add("plugin.env.answer", Status::Ok,
             bound + "; for host " + host + " it answers NCCL_IB_HCA \"" + probe.get("hca") + "\"" +
                 (user && !user->empty() ? " (the environment's own value, which wins)" : " (from the rail map)"));
}

}  // namespace

int probeEnvAnswer(const std::vector<std::string>& args) {
  if (args.size() != 5) return 2;
  if (!args[3].empty()) ::setenv("RAILTUNE_RAIL_MAP", args[3].c_str(), 1);
  if (!args[4].empty()) ::setenv("RAILTUNE_HOST", args[4].c_str(), 1);
  void* handle = ::dlopen(args[1].c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    sayProbe("error", ::dlerror());
    return 0;
  }
  const int code = std::atoi(args[2].c_str());
  const auto major = static_cast<uint8_t>(code / 10000), minor = static_cast<uint8_t>(code / 100 % 100),
             patch = static_cast<uint8_t>(code % 100);
  for (int v : emu::symbolVersionsForNccl(code, emu::PluginKind::Env)) {
    void* table = ::dlsym(handle, emu::symbolName(emu::PluginKind::Env, v).c_str());
    if (table == nullptr) continue;
    sayProbe("symbol", emu::symbolName(emu::PluginKind::Env, v));
    const char* hca = nullptr;
    if (v >= 2) {
      const auto* env = static_cast<const ncclEnv_v2_t*>(table);
      env->init(major, minor, patch, "", sayWarn);
      hca = env->getEnv("NCCL_IB_HCA");
    } else {
      const auto* env = static_cast<const ncclEnv_v1_t*>(table);
      env->init(major, minor, patch, "");
      hca = env->getEnv("NCCL_IB_HCA");
    }
    if (hca != nullptr) sayProbe("hca", hca);
    return 0;
  }
  sayProbe("error", "defines no ncclEnvPlugin symbol that NCCL " + std::to_string(code) + " binds");
  return 0;
}

void checkEnvPlugin(const DoctorOptions& options, const NcclFound& nccl, const std::string& host, Report& report) {
  checkVariable(options, report);
  checkAnswer(options, nccl, host, report);
}

}  // namespace railtune::doctor
