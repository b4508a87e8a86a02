#include "emulator/report.h"

#include <unistd.h>

#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "emulator/plugin_open.h"

namespace railtune::emu {

std::string describeBinding(const Binding& b) {
  std::string s = std::string(kindName(b.kind)) + ": ";
  if (b.disabled) return s + "disabled (set to \"" + b.requested + "\")";
  if (!b.table) {
    if (b.library) return s + b.openedName + " exports no symbol this NCCL looks for";
    return s + "no library (" + (b.requested.empty() ? "unset" : "\"" + b.requested + "\"") + ")";
  }
  const char* pluginName = *static_cast<const char* const*>(b.table);
  const std::string where = b.library && !b.library->path().empty() ? b.library->path() : b.openedName;
  s += where + " -> " + b.symbol + " (v" + std::to_string(b.version) + ", '" + (pluginName ? pluginName : "") + "')";
  if (b.viaNetLibrary) s += " via the net library fallback";
  return s;
}

namespace {

std::string pluginValue(const std::string& dir, PluginKind kind, const std::string& name) {
  const std::string path = dir + "/" + pluginPrefix(kind) + "-" + name + ".so";
  return access(path.c_str(), R_OK) == 0 ? path : name;
}

KindReport fromBinding(const Binding& b, const char* variable, const std::string& value) {
  KindReport r;
  r.kind = b.kind;
  r.variable = variable;
  r.value = value;
  r.library = b.library && b.table ? b.library->path() : "";
  r.symbol = b.symbol;
  r.version = b.version;
  r.viaNetLibrary = b.viaNetLibrary;
  r.disabled = b.disabled;
  r.log = b.log;
  return r;
}

// Net selection for one communicator; the chosen plugin is finalized again so the probe leaves no state.
KindReport probeNet(Loader& loader, const std::string& value) {
  std::vector<NetCandidate> list = loader.openNetList();
  NetSelection sel = selectNet(loader, list, 0x1);
  KindReport r;
  r.kind = PluginKind::Net;
  r.variable = "NCCL_NET_PLUGIN";
  r.value = value;
  r.netChosen = sel.chosenName;
  r.log = sel.log;
  if (sel.chosen >= 0 && !list[static_cast<size_t>(sel.chosen)].internal) {
    const Binding& b = list[static_cast<size_t>(sel.chosen)].binding;
    r.library = b.library ? b.library->path() : "";
    r.symbol = b.symbol;
    r.version = b.version;
  }
  if (sel.driver) sel.driver->finalize();
  return r;
}

}  // namespace

std::vector<KindReport> probePlugins(const std::string& pluginDir, NcclBehaviour behaviour, const std::string& name,
                                     const std::map<std::string, std::string>& extraEnv) {
  std::map<std::string, std::string> env;
  const std::pair<PluginKind, const char*> kinds[] = {{PluginKind::Net, "NCCL_NET_PLUGIN"},
                                                      {PluginKind::Tuner, "NCCL_TUNER_PLUGIN"},
                                                      {PluginKind::Profiler, "NCCL_PROFILER_PLUGIN"},
                                                      {PluginKind::Env, "NCCL_ENV_PLUGIN"}};
  for (const auto& [kind, variable] : kinds) env[variable] = pluginValue(pluginDir, kind, name);
  for (const auto& [k, v] : extraEnv) env[k] = v;
  Loader loader(behaviour, EnvSource::fromMap(env));
  std::vector<KindReport> out;
  out.push_back(probeNet(loader, env["NCCL_NET_PLUGIN"]));
  out.push_back(fromBinding(loader.openTuner(), "NCCL_TUNER_PLUGIN", env["NCCL_TUNER_PLUGIN"]));
  out.push_back(fromBinding(loader.openProfiler(), "NCCL_PROFILER_PLUGIN", env["NCCL_PROFILER_PLUGIN"]));
  out.push_back(fromBinding(loader.openEnv(), "NCCL_ENV_PLUGIN", env["NCCL_ENV_PLUGIN"]));
  takePluginLog();  // the probe's own plugin messages are not the caller's
  return out;
}

std::string describeReport(const KindReport& r) {
  std::string s = std::string(kindName(r.kind)) + ": ";
  if (r.disabled) return s + "disabled";
  if (r.kind == PluginKind::Net && r.symbol.empty())
    return s + "internal " + (r.netChosen.empty() ? "none" : r.netChosen);
  if (r.symbol.empty()) return s + "none (NCCL's built-in behaviour)";
  s += r.library + " -> " + r.symbol + " (v" + std::to_string(r.version) + ")";
  if (r.viaNetLibrary) s += " via the net library";
  return s;
}

}  // namespace railtune::emu
