// The emulator's loader for tuner, profiler and env plugins, and the pieces all kinds share (names,
// symbol-version order, environment sources). Net list processing is in net_list.cc.
#include "emulator/loader.h"

#include <dlfcn.h>
#include <strings.h>

#include <algorithm>
#include <cstdlib>

#include "emulator/plugin_open.h"

namespace railtune::emu {

const char* behaviourName(NcclBehaviour b) {
  switch (b) {
    case NcclBehaviour::V2_28:
      return "2.28";
    case NcclBehaviour::V2_30:
      return "2.30";
    case NcclBehaviour::V2_31:
      return "2.31";
  }
  return "unknown";
}

std::optional<NcclBehaviour> parseBehaviour(const std::string& s) {
  if (s == "2.28" || s == "2.28.9") return NcclBehaviour::V2_28;
  if (s == "2.30" || s == "2.30.7") return NcclBehaviour::V2_30;
  if (s == "2.31" || s == "2.31.2") return NcclBehaviour::V2_31;
  return std::nullopt;
}

const char* kindName(PluginKind k) {
  switch (k) {
    case PluginKind::Net:
      return "net";
    case PluginKind::Tuner:
      return "tuner";
    case PluginKind::Profiler:
      return "profiler";
    case PluginKind::Env:
      return "env";
  }
  return "unknown";
}

// 2.31.2: src/plugin/profiler.cc (ncclProfilerPluginLoad) tries getNcclProfiler_v7 first, then v6..v1.
std::vector<int> symbolVersions(NcclBehaviour b, PluginKind k) {
  const bool v230 = b >= NcclBehaviour::V2_30;
  switch (k) {
    case PluginKind::Tuner:
      return v230 ? std::vector<int>{6, 5, 4, 3, 2} : std::vector<int>{5, 4, 3, 2};
    case PluginKind::Net:
      return v230 ? std::vector<int>{12, 11, 10, 9, 8, 7, 6} : std::vector<int>{11, 10, 9, 8, 7, 6};
    case PluginKind::Profiler:
      if (b >= NcclBehaviour::V2_31) return {7, 6, 5, 4, 3, 2, 1};
      return v230 ? std::vector<int>{6, 5, 4, 3, 2, 1} : std::vector<int>{5, 4, 3, 2, 1};
    case PluginKind::Env:
      return v230 ? std::vector<int>{2, 1} : std::vector<int>{1};
  }
  return {};
}

namespace {

// Newest-first list from `newest` down to `oldest`; empty when newest is 0 (kind not loaded).
std::vector<int> descending(int newest, int oldest) {
  std::vector<int> out;
  for (int v = newest; v >= oldest && newest > 0; --v) out.push_back(v);
  return out;
}

// Per minor release: the newest and oldest symbol version each kind's loader tries. 2.19 to 2.30: every
// patch release of a minor agrees (checked for every tag 2.19.1 .. 2.30.7). 2.31: profiler 7..1
// (src/plugin/profiler.cc:26-32@v2.31.2); tuner 6..2 as at 2.30.7 and 2.32.3 on either side (tuner.cc:18-22
// @v2.30.7 and @v2.32.3 declare getNcclTuner_v2..v6 only; 2.31.2's own tuner.cc is not in the store read);
// net 12..6 and env 2..1 as at 2.30.7 (no net_v13 or env_v3 in any stored NCCL file). 2.32: the same, but
// for kPatchChanges below.
struct MinorRelease {
  int minor;
  int netNewest, netOldest, tunerNewest, tunerOldest, profilerNewest;
};
constexpr MinorRelease kMinorReleases[] = {
    {19, 7, 5, 1, 1, 0},  {20, 8, 5, 1, 1, 0},  {21, 8, 5, 2, 2, 0},  {22, 8, 5, 3, 2, 0},  {23, 8, 5, 3, 2, 1},
    {24, 9, 5, 4, 2, 2},  {25, 9, 5, 4, 2, 2},  {26, 10, 6, 4, 2, 3}, {27, 10, 6, 4, 2, 4}, {28, 11, 6, 5, 2, 5},
    {29, 11, 6, 5, 2, 6}, {30, 12, 6, 6, 2, 6}, {31, 12, 6, 6, 2, 7}, {32, 12, 6, 6, 2, 7},
};
constexpr int kNewestMinor = 32;

// A patch release that changed a kind's newest version within its minor. Tuner v7: its adapter and
// NCCL_TUNER_PLUGIN_SYMBOL "ncclTunerPlugin_v7" come with Rubin support (src/plugin/tuner/tuner_v7.cc,
// src/include/plugin/nccl_tuner.h at NVIDIA/nccl 2449986f), which NCCL's release notes give to 2.32.6;
// 2.32.3 still binds v6..v2 (src/plugin/tuner.cc:18-22@v2.32.3).
struct PatchChange {
  int fromVersionCode;
  PluginKind kind;
  int newest;
};
constexpr PatchChange kPatchChanges[] = {{23206, PluginKind::Tuner, 7}};

int newestFromPatches(int versionCode, PluginKind k, int newest) {
  for (const PatchChange& c : kPatchChanges)
    if (c.kind == k && versionCode >= c.fromVersionCode) newest = std::max(newest, c.newest);
  return newest;
}

}  // namespace

bool ncclVersionCovered(int versionCode) {
  return versionCode >= 21900 && versionCode < 23200;
}

std::vector<int> symbolVersionsForNccl(int versionCode, PluginKind k) {
  if (versionCode < 21900 || versionCode >= 30000) return {};
  // A release newer than the table gets the newest list known (2.32.6's).
  const int code = std::min(versionCode, kNewestMinor * 100 + 20099);
  const int minor = (code / 100) % 100;
  for (const MinorRelease& r : kMinorReleases) {
    if (r.minor != minor) continue;
    switch (k) {
      case PluginKind::Net:
        return descending(r.netNewest, r.netOldest);
      case PluginKind::Tuner:
        return descending(newestFromPatches(code, k, r.tunerNewest), r.tunerOldest);
      case PluginKind::Profiler:
        return descending(r.profilerNewest, 1);
      case PluginKind::Env:  // src/plugin/env.cc appeared in 2.28.7; 2.30 added v2
        return minor >= 30 ? descending(2, 1) : code >= 22807 ? descending(1, 1) : std::vector<int>{};
    }
  }
  return {};
}

std::string symbolName(PluginKind k, int version) {
  const std::string v = std::to_string(version);
  switch (k) {
    case PluginKind::Net:
      return "ncclNetPlugin_v" + v;
    case PluginKind::Tuner:
      return "ncclTunerPlugin_v" + v;
    case PluginKind::Profiler:
      return "ncclProfiler_v" + v;  // no "Plugin" in the profiler's name
    case PluginKind::Env:
      return "ncclEnvPlugin_v" + v;
  }
  return {};
}

EnvSource EnvSource::process() {
  return EnvSource{[](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  }};
}

EnvSource EnvSource::fromMap(std::map<std::string, std::string> vars) {
  return EnvSource{[vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }};
}

Library::~Library() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* Library::symbol(const std::string& name) const {
  return dlsym(handle_, name.c_str());
}

namespace {

// Each NCCL adapter announces the version it found, with its own wording.
std::string adapterLine(PluginKind kind, const char* pluginName, int version) {
  const std::string v = " (v" + std::to_string(version) + ")";
  const std::string n = pluginName ? pluginName : "(null)";
  switch (kind) {
    case PluginKind::Net:
      return "NET/Plugin: Loaded net plugin " + n + v;
    case PluginKind::Tuner:
      return "TUNER/Plugin: Using " + n + v;
    case PluginKind::Profiler:
      return "PROFILER/Plugin: Loaded " + n + v;
    case PluginKind::Env:
      return "ENV/Plugin: Using " + n + v;
  }
  return n + v;
}

// Every plugin table starts with `const char* name`.
const char* tableName(const void* table) {
  return *static_cast<const char* const*>(table);
}

}  // namespace

bool bindNewestSymbol(NcclBehaviour b, PluginKind kind, const std::shared_ptr<Library>& lib, Binding& binding) {
  for (int version : symbolVersions(b, kind)) {
    const std::string name = symbolName(kind, version);
    const void* table = lib->symbol(name);
    if (table == nullptr) continue;
    binding.library = lib;
    binding.symbol = name;
    binding.version = version;
    binding.table = table;
    binding.log.push_back(infoLine(adapterLine(kind, tableName(table), version)));
    return true;
  }
  return false;
}

Loader::Loader(NcclBehaviour behaviour, EnvSource env) : behaviour_(behaviour), env_(std::move(env)) {}

void Loader::setActiveNetLibrary(std::shared_ptr<Library> lib) {
  activeNet_ = std::move(lib);
  netLibName_ = activeNet_ ? activeNet_->path() : std::string();
}

std::optional<std::string> Loader::netNameFilter() const {
  return env_.get("NCCL_NET");
}

// NCCL's ncclGetNetPluginLib: re-open, by the name it was opened with, the external net library
// opened last. Nothing when only the internal IB/Socket were used (no external library opened).
std::shared_ptr<Library> Loader::reopenNetLibrary(std::vector<std::string>& log) {
  if (netLibName_.empty()) return nullptr;
  std::string error;
  auto lib = openLibrary(netLibName_.c_str(), &error);
  if (!lib) log.push_back(infoLine("Could not re-open net library " + netLibName_ + ": " + error));
  return lib;
}

// NCCL's ncclTunerPluginLoad / ncclProfilerPluginLoad (identical rules).
Binding Loader::openWithNetFallback(PluginKind kind, const char* variable) {
  Binding b;
  b.kind = kind;
  const std::optional<std::string> requested = env_.get(variable);
  if (requested) {
    b.requested = *requested;
    b.log.push_back(infoLine(std::string(variable) + " set by environment to " + *requested));
    if (strcasecmp(requested->c_str(), "none") == 0) {
      b.disabled = true;
      return b;
    }
  }
  std::optional<std::string> shownName = requested;  // NCCL logs nothing by name after a fallback
  std::shared_ptr<Library> lib;
  if (auto opened = openPluginLibrary(kind, requested, b.log)) {
    lib = opened->library;
    b.openedName = opened->openedName;
    if (!lib->path().empty()) shownName = lib->path();
  } else {
    lib = reopenNetLibrary(b.log);
    if (!lib) return b;
    b.openedName = netLibName_;
    b.viaNetLibrary = true;
    shownName.reset();
  }
  const std::string kindText = kind == PluginKind::Tuner ? "tuner" : "profiler";
  if (!bindNewestSymbol(behaviour_, kind, lib, b)) {
    if (shownName) b.log.push_back(infoLine("External " + kindText + " plugin " + *shownName + " is unsupported"));
    return b;  // the library closes with `lib`
  }
  if (shownName) b.log.push_back(infoLine("Successfully loaded external " + kindText + " plugin " + *shownName));
  return b;
}

Binding Loader::openTuner() {
  return openWithNetFallback(PluginKind::Tuner, "NCCL_TUNER_PLUGIN");
}

Binding Loader::openProfiler() {
  return openWithNetFallback(PluginKind::Profiler, "NCCL_PROFILER_PLUGIN");
}

// NCCL's ncclEnvPluginLoad: no net fallback; on any failure NCCL uses its internal env plugin.
Binding Loader::openEnv() {
  Binding b;
  b.kind = PluginKind::Env;
  const std::optional<std::string> requested = env_.get("NCCL_ENV_PLUGIN");
  if (requested) {
    b.requested = *requested;
    b.log.push_back(infoLine("NCCL_ENV_PLUGIN set by environment to " + *requested));
    if (strcasecmp(requested->c_str(), "none") == 0) {
      b.disabled = true;
      return b;
    }
  }
  auto opened = openPluginLibrary(PluginKind::Env, requested, b.log);
  if (!opened) return b;
  b.openedName = opened->openedName;
  const std::string shown = opened->library->path().empty() ? requested.value_or("") : opened->library->path();
  if (!bindNewestSymbol(behaviour_, PluginKind::Env, opened->library, b)) {
    b.log.push_back(infoLine("External env plugin " + shown + " is unsupported"));
    return b;
  }
  b.log.push_back(infoLine("Successfully loaded external env plugin " + shown));
  return b;
}

Binding Loader::bindVersion(PluginKind kind, const std::string& path, int version) {
  Binding b;
  b.kind = kind;
  b.requested = path;
  std::string error;
  auto lib = openLibrary(path.c_str(), &error);
  if (!lib) {
    b.log.push_back(infoLine(std::string(pluginLogName(kind)) + "/Plugin: " + path + ": " + error));
    return b;
  }
  b.openedName = path;
  const std::string name = symbolName(kind, version);
  const void* table = lib->symbol(name);
  if (table == nullptr) return b;
  b.library = lib;
  b.symbol = name;
  b.version = version;
  b.table = table;
  b.log.push_back(infoLine(adapterLine(kind, tableName(table), version)));
  return b;
}

}  // namespace railtune::emu
