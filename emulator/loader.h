// The emulator's plugin loader: opens a plugin library and binds its symbols exactly as NCCL does,
// imitating either NCCL 2.28.9 or 2.30.7 (names, fallbacks, symbol-version order, quirks).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railtune::emu {

enum class NcclBehaviour { V2_28, V2_30 };
enum class PluginKind { Net, Tuner, Profiler, Env };

const char* behaviourName(NcclBehaviour b);  // "2.28" / "2.30"
std::optional<NcclBehaviour> parseBehaviour(const std::string& s);
const char* kindName(PluginKind k);  // "net", "tuner", "profiler", "env"

// Symbol versions NCCL tries for a kind, newest first (2.28: tuner 5..2, net 11..6, profiler 5..1,
// env 1; 2.30: tuner 6..2, net 12..6, profiler 6..1, env 2..1).
std::vector<int> symbolVersions(NcclBehaviour b, PluginKind k);
std::string symbolName(PluginKind k, int version);  // "ncclTunerPlugin_v5", "ncclProfiler_v3", ...

// Where NCCL's variables come from: the process environment, or a fixed map (tests).
struct EnvSource {
  std::function<std::optional<std::string>(const std::string&)> get;
  static EnvSource process();
  static EnvSource fromMap(std::map<std::string, std::string> vars);
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

 private:
  void* handle_;
  std::string path_;
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

// One net plugin entry after NCCL's list processing.
struct NetCandidate {
  Binding binding;
  bool internal = false;     // NCCL's own IB or Socket, appended after the external list
  std::string internalName;  // "IB" or "Socket"
};

class Loader {
 public:
  Loader(NcclBehaviour behaviour, EnvSource env);
  NcclBehaviour behaviour() const { return behaviour_; }

  // NCCL_NET_PLUGIN (comma list, at most 14; "none"; unset = libnccl-net.so), NCCL_NET name filter.
  // Returns the bindable external entries, in list order, followed by the internal IB and Socket.
  std::vector<NetCandidate> openNetList();
  // Remembers the external net library NCCL assigned to the communicator (tuner/profiler fallback).
  void setActiveNetLibrary(std::shared_ptr<Library> lib);

  Binding openTuner();     // NCCL_TUNER_PLUGIN, with fallback to the active net library
  Binding openProfiler();  // NCCL_PROFILER_PLUGIN, likewise
  Binding openEnv();       // NCCL_ENV_PLUGIN

  // Tests and benchmarks: bind one given version of a library, bypassing NCCL's order.
  static Binding bindVersion(PluginKind kind, const std::string& path, int version);

 private:
  NcclBehaviour behaviour_;
  EnvSource env_;
  std::shared_ptr<Library> activeNet_;
};

}  // namespace railtune::emu
