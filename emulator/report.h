// A small report of what the emulator bound, for `railtune demo` and for people reading test output.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emulator/loader.h"

namespace railtune::emu {

// One line: "tuner: libnccl-tuner-railtune.so -> ncclTunerPlugin_v6 (v6, 'railtune')", or why nothing.
std::string describeBinding(const Binding& b);

struct KindReport {
  PluginKind kind = PluginKind::Tuner;
  std::string variable;  // "NCCL_TUNER_PLUGIN"
  std::string value;     // what the variable was set to for the probe ("" = unset)
  std::string library;   // resolved path of the library bound, "" when none
  std::string symbol;    // "ncclTunerPlugin_v6", "" when none
  int version = 0;
  bool viaNetLibrary = false;
  bool disabled = false;
  std::string netChosen;  // net only: the transport NCCL would assign ("railtune", "Socket", ...)
  std::vector<std::string> log;
};

// What NCCL of the given behaviour would bind for each kind (net, tuner, profiler, env) when every
// NCCL_<KIND>_PLUGIN is set to `name`: the library `pluginDir`/libnccl-<kind>-<name>.so where it exists
// (by absolute path), otherwise the bare name with NCCL's own lookup and fallbacks. `extraEnv` adds or
// overrides variables (NCCL_NET, ...).
std::vector<KindReport> probePlugins(const std::string& pluginDir, NcclBehaviour behaviour,
                                     const std::string& name = "railtune",
                                     const std::map<std::string, std::string>& extraEnv = {});

std::string describeReport(const KindReport& r);

}  // namespace railtune::emu
