#include "doctor/plugin_env.h"

#include <strings.h>

#include <cstdlib>
#include <filesystem>

#include "common/params.h"
#include "doctor/elf_info.h"
#include "doctor/probe.h"
#include "emulator/loader.h"

namespace railtune::doctor {
namespace {

using emu::PluginKind;

struct Resolved {
  bool opened = false;
  std::string text;  // "railtune -> libnccl-net-railtune.so (/path)" or the reason it did not open
  std::string path;
  bool railtune = false;  // the opened file is one of railtune's libraries
  bool definesKind = false;
};

bool isStaticPlugin(const std::string& value) {
  return !value.empty() && strncasecmp(value.c_str(), "STATIC_PLUGIN", value.size()) == 0;
}

bool definesAny(PluginKind kind, const ElfInfo& elf) {
  for (int v = 1; v <= 64; ++v)
    if (elf.defines(emu::symbolName(kind, v))) return true;
  return false;
}

// "ncclNetPlugin_vN", "ncclProfiler_vN", ...
std::string symbolFamily(PluginKind kind) {
  std::string name = emu::symbolName(kind, 1);
  name.back() = 'N';
  return name;
}

Resolved resolve(PluginKind kind, const std::string& value, int timeoutSeconds) {
  const ProbeResult probe = runProbe({"resolve", emu::kindName(kind), value}, timeoutSeconds);
  Resolved r;
  const std::string shown = value.empty() ? "(unset)" : value;
  if (!probe.finished() || probe.exitCode != 0) {
    r.text = shown + ": opening it in a child process: the child " + probe.describeEnd(timeoutSeconds);
    return r;
  }
  if (!probe.has("opened")) {
    r.text = shown + " does not resolve: " + probe.get("error");
    return r;
  }
  r.opened = true;
  r.path = probe.get("path");
  r.text = shown + " -> " + probe.get("opened") + " (" + r.path + ")";
  r.railtune = std::filesystem::path(r.path).filename().string().find("railtune") != std::string::npos;
  r.definesKind = definesAny(kind, readElfFile(r.path));
  return r;
}

const char* variableOf(PluginKind kind) {
  return kind == PluginKind::Net     ? "NCCL_NET_PLUGIN"
         : kind == PluginKind::Tuner ? "NCCL_TUNER_PLUGIN"
                                     : "NCCL_PROFILER_PLUGIN";
}

std::string howToSelect(PluginKind kind, const DoctorOptions& options) {
  return std::string("export ") + variableOf(kind) + "=railtune with " + options.pluginDir +
         " on LD_LIBRARY_PATH (NCCL opens the name, then "
         "libnccl-" +
         emu::kindName(kind) + "-NAME.so, through the loader's search path), or set it to the library's absolute path";
}

// Whether the net plugin list as set makes NCCL open railtune's net library (the tuner's fallback).
bool netListOpensRailtune(int timeoutSeconds) {
  const std::optional<std::string> value = processEnv("NCCL_NET_PLUGIN");
  if (value && strcasecmp(value->c_str(), "none") == 0) return false;
  for (const std::string& entry : splitList(value.value_or(""))) {
    const Resolved r = resolve(PluginKind::Net, entry, timeoutSeconds);
    if (r.opened) return r.railtune;  // NCCL's first external library is the one the tuner falls back to
  }
  return false;
}

void checkUnset(PluginKind kind, const DoctorOptions& options, Report& report) {
  const std::string id = std::string("env.") + variableOf(kind);
  const Resolved r = resolve(kind, "", options.timeoutSeconds);
  if (r.opened && r.railtune && r.definesKind) {
    report.add(id, Status::Ok, "unset: NCCL opens the default name, " + r.text);
    return;
  }
  const std::string opensDefault =
      r.opened ? "NCCL opens " + r.text : "NCCL finds no libnccl-" + std::string(emu::kindName(kind)) + ".so";
  if (kind == PluginKind::Tuner && netListOpensRailtune(options.timeoutSeconds)) {
    report.add(id, Status::Ok, "unset: " + opensDefault + ", then takes the tuner from railtune's net library");
    return;
  }
  if (kind == PluginKind::Profiler) {
    report.add(id, Status::Skip, "unset: railtune's profiler is not selected (" + opensDefault + ")",
               howToSelect(kind, options));
    return;
  }
  report.add(id, Status::Warn,
             "unset: railtune's " + std::string(emu::kindName(kind)) + " plugin is not selected (" + opensDefault + ")",
             howToSelect(kind, options));
}

void checkValue(PluginKind kind, const std::string& value, const DoctorOptions& options, Report& report) {
  const std::string id = std::string("env.") + variableOf(kind);
  if (strcasecmp(value.c_str(), "none") == 0) {
    report.add(id, Status::Skip,
               std::string(variableOf(kind)) + "=none: NCCL loads no external " + emu::kindName(kind) + " plugin");
    return;
  }
  // NCCL_NET_PLUGIN is a comma list (NCCL keeps at most 14 entries); the others take one name.
  std::vector<std::string> entries = kind == PluginKind::Net ? splitList(value) : std::vector<std::string>{value};
  std::string text, fix;
  Status status = Status::Ok;
  for (const std::string& entry : entries) {
    if (isStaticPlugin(entry)) {
      text += (text.empty() ? "" : "; ") + entry + ": the application's own symbols (not checked here)";
      continue;
    }
    const Resolved r = resolve(kind, entry, options.timeoutSeconds);
    text += (text.empty() ? "" : "; ") + r.text;
    if (!r.opened) {
      status = Status::Fail;
      fix = howToSelect(kind, options);
    } else if (!r.definesKind) {
      status = Status::Fail;
      text += " defines no " + symbolFamily(kind) + " symbol";
      fix = "point " + std::string(variableOf(kind)) + " at a " + emu::kindName(kind) + " plugin library";
    } else if (!r.railtune && status == Status::Ok) {
      text += " (not railtune's)";
    }
  }
  report.add(id, status, std::string(variableOf(kind)) + "=" + value + ": " + text, fix);
}

void checkNetFilter(Report& report) {
  const std::optional<std::string> net = processEnv("NCCL_NET");
  if (!net) return;
  if (strcasecmp(net->c_str(), "railtune") == 0) {
    report.add("env.NCCL_NET", Status::Ok, "NCCL_NET=" + *net + ": NCCL uses only the net plugin named railtune");
    return;
  }
  report.add(
      "env.NCCL_NET", Status::Warn,
      "NCCL_NET=" + *net +
          ": NCCL uses only the transport of that name, so railtune's net plugin (name \"railtune\") is passed over",
      "unset NCCL_NET, or set NCCL_NET=railtune");
}

}  // namespace

void checkPluginVariables(const DoctorOptions& options, Report& report) {
  for (PluginKind kind : {PluginKind::Net, PluginKind::Tuner, PluginKind::Profiler}) {
    const std::optional<std::string> value = processEnv(variableOf(kind));
    if (!value || value->empty())
      checkUnset(kind, options, report);
    else
      checkValue(kind, *value, options, report);
  }
  checkNetFilter(report);
}

}  // namespace railtune::doctor
