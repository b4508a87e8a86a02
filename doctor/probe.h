// Work that can crash or hang doctor itself (dlopen of libnccl.so.2, of a plugin, of whatever
// NCCL_NET_PLUGIN names: their constructors run) is done in a child process: the railtune binary
// itself, started again as `railtune doctor probe -- MODE ARGS...`. The child prints
// "railtune-probe:KEY=VALUE" lines on stdout (other output of the loaded library is ignored) and
// exits at once with _exit, so that no destructor of the loaded library runs. The parent reads
// them under a deadline and kills the child, and what it started, when it passes (the tools' runner,
// common/child_process.h: its own process group, dying with doctor).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace railtune::doctor {

struct ProbeResult {
  enum class End { Exited, Signalled, TimedOut, SpawnFailed };
  End end = End::SpawnFailed;
  int exitCode = -1;  // End::Exited
  int signal = 0;     // End::Signalled
  std::string spawnError;
  std::map<std::string, std::string> values;  // last value of each key the child printed

  bool has(const std::string& key) const { return values.count(key) != 0; }
  std::string get(const std::string& key) const;
  bool finished() const { return end == End::Exited; }
  // "crashed with signal 11 (Segmentation fault)", "timed out after 10 s", "exited with status 3", ...
  std::string describeEnd(int timeoutSeconds) const;
};

// Starts the probe child with args (MODE ARGS...) and waits at most timeoutSeconds for it.
ProbeResult runProbe(const std::vector<std::string>& args, int timeoutSeconds);

// The child's side. Modes:
//   nccl NAME            dlopen NAME, call ncclGetVersion: keys version, path, error
//   load PATH            dlopen PATH with RTLD_NOW | RTLD_LOCAL as NCCL does: keys path, error
//   nvml LIBRARY         dlopen LIBRARY, read NVML (nvml_probe.h): keys error, path, inventory
//   resolve KIND VALUE   NCCL's plugin_open.cc name rules for NCCL_<KIND>_PLUGIN=VALUE (emulator's
//                        openPluginLibrary; KIND net, tuner, profiler or env): keys opened, path, error
//   env PATH CODE MAP HOST  the env plugin bound, initialised and asked NCCL_IB_HCA as NCCL CODE would
//                        (env_plugin_check.h): keys symbol, hca, warn, error
// Returns the exit status (0, or 2 for a malformed request); the caller _exits with it.
int probeChildMain(const std::vector<std::string>& args);

// The child's one way to answer: prints "railtune-probe:KEY=VALUE" (newlines in VALUE become spaces)
// and flushes, so that what was said before a crash still reaches the parent.
void sayProbe(const char* key, const std::string& value);

}  // namespace railtune::doctor
