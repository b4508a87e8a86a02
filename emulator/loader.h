// The emulator's plugin loader: opens a plugin library and binds its symbols exactly as NCCL does,
// imitating NCCL 2.28.9, 2.30.7 or 2.31.2 (names, fallbacks, symbol-version order, quirks).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace railtune::emu {

// In release order: `b >= NcclBehaviour::V2_30` is "2.30 or newer".
enum class NcclBehaviour { V2_28, V2_30, V2_31 };
enum class PluginKind { Net, Tuner, Profiler, Env };

const char* behaviourName(NcclBehaviour b);  // "2.28" / "2.30" / "2.31"
std::optional<NcclBehaviour> parseBehaviour(const std::string& s);
const char* kindName(PluginKind k);  // "net", "tuner", "profiler", "env"

// Symbol versions NCCL tries for a kind, newest first (2.28: tuner 5..2, net 11..6, profiler 5..1,
// env 1; 2.30: tuner 6..2, net 12..6, profiler 6..1, env 2..1; 2.31: 2.30's with profiler 7..1).
std::vector<int> symbolVersions(NcclBehaviour b, PluginKind k);
std::string symbolName(PluginKind k, int version);  // "ncclTunerPlugin_v5", "ncclProfiler_v3", ...

// The same for any NCCL release, by its version code (major*10000 + minor*100 + patch, what
// ncclGetVersion reports from 2.9 on), as each release's src/plugin/<kind>.cc (before 2.26:
// src/net.cc, src/misc/tuner.cc, src/misc/profiler.cc) tries them. Known: 2.19.0 to 2.32.x (2.31: profiler
// 7..1; 2.32.6 on: tuner 7..2); empty for a kind the release does not load (profiler before 2.23, env
// before 2.28.7), for releases before 2.19 and for codes that are not 2.x. A release newer than 2.32 gets
// 2.32.6's list (ncclVersionCovered says so): it tries those too, but may try newer versions first.
std::vector<int> symbolVersionsForNccl(int versionCode, PluginKind k);
// True when versionCode is a release whose loaders the table above was read from (2.19.0 <= v < 2.32.0).
// 2.32 is listed but not covered: only its tuner.cc (2.32.3) and the v7 adapter were read.
bool ncclVersionCovered(int versionCode);

// Where NCCL's variables come from: the process environment, or a fixed map (tests).
struct EnvSource {
  std::function<std::optional<std::string>(const std::string&)> get;
  static EnvSource process();
  static EnvSource fromMap(std::map<std::string, std::string> vars);
};

// State NCCL keeps per loaded plugin rather than per communicator: the reference count with which its
// net adapters (v6..v10) initialise an old plugin only once, and the profiler's activation mask (one
// process-wide int in NCCL; here one per loaded profiler library, so that tests stay independent).
struct LibraryState {
  std::mutex mutex;
  int netAdapterRefCount = 0;
  int profilerEventMask = 0;
  bool profilerUnloaded = false;  // 2.30 unloads the profiler after a failed init
};

// A dlopen handle; dlclose on destruction. Shared because several bindings may hold one library.
class Library {
 public:
  Library(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  void* handle() const { return handle_; }
  const std::string& path() const { return path_; }  // resolved path (link map), "" for the main program
  void* symbol(const std::string& name) const;
  LibraryState& state() { return state_; }

 private:
  void* handle_;
  std::string path_;
  LibraryState state_;
};

// What one lookup bound, and why: enough for `railtune demo` to print and for tests to assert.
struct Binding {
  PluginKind kind = PluginKind::Tuner;
  std::string requested;   // the variable's value as given ("" when unset)
  std::string openedName;  // the name dlopen succeeded with ("libnccl-tuner-railtune.so", ...)
  std::shared_ptr<Library> library;
  std::string symbol;            // "ncclTunerPlugin_v6"; empty when nothing bound
  int version = 0;               // 0 when nothing bound
  const void* table = nullptr;   // the plugin's exported struct
  bool viaNetLibrary = false;    // found through the fallback to the loaded external net library
  bool disabled = false;         // the variable said "none"
  std::vector<std::string> log;  // INFO/WARN lines NCCL would print, in order
  explicit operator bool() const { return table != nullptr; }
};

// NCCL's per-process state of one net plugin entry (net.cc's ncclNetPluginState).
enum class NetEntryState { Disabled = -2, LoadFailed = -1, LoadReady = 0, InitReady = 1, Enabled = 2 };

// One net plugin entry after NCCL's list processing. External entries are opened lazily by selectNet,
// as NCCL does: an entry after the one that wins is never opened.
struct NetCandidate {
  Binding binding;
  bool internal = false;     // NCCL's own IB or Socket, appended after the external list
  std::string internalName;  // "IB" or "Socket"
  NetEntryState state = NetEntryState::LoadReady;
  int physDevs = -1;  // devices() answer, queried the first time the entry is initialised
};

class Loader {
 public:
  Loader(NcclBehaviour behaviour, EnvSource env);
  NcclBehaviour behaviour() const { return behaviour_; }

  // NCCL_NET_PLUGIN (comma list, at most 14; "none"; unset = libnccl-net.so). Returns the external
  // entries in list order (not yet opened), followed by the internal IB and Socket. The list's INFO
  // lines are in the first entry's log and in netListLog().
  std::vector<NetCandidate> openNetList();
  const std::vector<std::string>& netListLog() const { return netListLog_; }
  // Opens one external entry and binds its newest net symbol (NCCL's ncclNetPluginLoad). Remembers the
  // name it opened with, as NCCL does, for the tuner and profiler fallback.
  void loadNet(NetCandidate& candidate);
  // Overrides the remembered net library (the fallback then re-opens this library's path).
  void setActiveNetLibrary(std::shared_ptr<Library> lib);
  // NCCL_NET: the communicator's net name filter (case-insensitive), if set.
  std::optional<std::string> netNameFilter() const;

  Binding openTuner();     // NCCL_TUNER_PLUGIN, with fallback to the active net library
  Binding openProfiler();  // NCCL_PROFILER_PLUGIN, likewise
  Binding openEnv();       // NCCL_ENV_PLUGIN

  // Tests and benchmarks: bind one given version of a library, bypassing NCCL's order.
  static Binding bindVersion(PluginKind kind, const std::string& path, int version);

 private:
  Binding openWithNetFallback(PluginKind kind, const char* variable);
  std::shared_ptr<Library> reopenNetLibrary(std::vector<std::string>& log);

  NcclBehaviour behaviour_;
  EnvSource env_;
  std::shared_ptr<Library> activeNet_;
  std::string netLibName_;  // NCCL's libNames[NET]: the name the last external net library opened with
  std::vector<std::string> netListLog_;
};

// Binds the newest symbol of `kind` the behaviour knows that `lib` exports; logs NCCL's adapter line.
// Returns false (binding untouched but for the log) when none is exported.
bool bindNewestSymbol(NcclBehaviour b, PluginKind kind, const std::shared_ptr<Library>& lib, Binding& binding);

}  // namespace railtune::emu
