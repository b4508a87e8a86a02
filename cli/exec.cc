// `railtune exec [--fabric F] [--host H] [--local-rank R] [--capture DIR] [switches] -- CMD ARGS...`: runs
// CMD with the launcher environment of `railtune topo env` set. The local rank comes from --local-rank, else
// LOCAL_RANK (torchrun) or SLURM_LOCALID (srun); the host from --host, else RAILTUNE_HOST, else the
// hostname. --capture DIR also makes NCCL log what `railtune paths import` reads (captureEnv). Exit 2 when
// the host is not in the fabric or an option cannot be met; 127 when CMD cannot be run; otherwise CMD
// replaces this process.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/launcher_options.h"
#include "cli/topo/topo.h"

namespace railtune::cli {
namespace {

struct ExecOptions {
  std::string fabricPath;
  LauncherCliOptions launcher;
  std::string captureDir;
  std::vector<std::string> command;
};

std::string envOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value == nullptr ? fallback : value;
}

bool listHas(const std::string& list, const std::string& item) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const std::string word = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (word == item || word == "ALL") return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

// NCCL_DEBUG_SUBSYS with INIT, NET and GRAPH (the Channel lines, device lists and rings `paths import`
// reads), keeping what the user asked for. "^A,B" (every subsystem but A and B) loses only those three
// from its exclusions (src/debug.cc reads a leading '^' as "all but").
std::string withCaptureSubsystems(const std::string& current) {
  static const char* kNeeded[] = {"INIT", "NET", "GRAPH"};
  if (current.empty()) return "INIT,NET,GRAPH";
  if (current.front() == '^') {
    std::string kept;
    size_t start = 1;
    while (start <= current.size()) {
      const size_t comma = current.find(',', start);
      const std::string word = current.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!word.empty() && word != "INIT" && word != "NET" && word != "GRAPH") kept += (kept.empty() ? "" : ",") + word;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return kept.empty() ? "ALL" : "^" + kept;
  }
  std::string out = current;
  for (const char* needed : kNeeded)
    if (!listHas(out, needed)) out += std::string(",") + needed;
  return out;
}

// What --capture DIR sets: NCCL_DEBUG=INFO (TRACE is kept), the subsystems above, one log file per process
// (NCCL_DEBUG_FILE, %h host and %p pid expanded by NCCL), and the profiler's folder (the profiler plugin is
// loaded when --plugin-dir names it). Creates DIR.
topo::EnvVars captureEnv(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::invalid_argument("--capture " + dir + ": cannot create the folder: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) throw std::invalid_argument("--capture " + dir + " is not a folder");
  const std::string absolute = std::filesystem::absolute(dir).lexically_normal().string();
  topo::EnvVars vars;
  const std::string level = envOr("NCCL_DEBUG", "");
  vars.emplace_back("NCCL_DEBUG", level == "TRACE" ? level : "INFO");
  vars.emplace_back("NCCL_DEBUG_SUBSYS", withCaptureSubsystems(envOr("NCCL_DEBUG_SUBSYS", "")));
  if (std::getenv("NCCL_DEBUG_FILE") != nullptr)
    std::cerr << "railtune exec: --capture replaces NCCL_DEBUG_FILE=" << std::getenv("NCCL_DEBUG_FILE") << "\n";
  vars.emplace_back("NCCL_DEBUG_FILE", absolute + "/%h.%p.nccl.log");
  vars.emplace_back("RAILTUNE_PROFILE_DIR", envOr("RAILTUNE_PROFILE_DIR", absolute));
  return vars;
}

std::string hostFromEnvironment() {
  const char* host = std::getenv("RAILTUNE_HOST");
  if (host != nullptr && host[0] != '\0') return host;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) throw std::invalid_argument("cannot read the hostname; pass --host");
  return name;
}

// LOCAL_RANK first: torchrun sets it, and under srun + torchrun it is the one that names the GPU.
int localRankFromEnvironment() {
  for (const char* name : {"LOCAL_RANK", "SLURM_LOCALID"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || value[0] == '\0') continue;
    char* end = nullptr;
    errno = 0;
    const long rank = std::strtol(value, &end, 10);
    if (errno != 0 || *end != '\0' || rank < 0 || rank > 4096)
      throw std::invalid_argument(std::string(name) + "='" + value + "' is not a local rank");
    return static_cast<int>(rank);
  }
  return -1;
}

int runExec(const ExecOptions& options) {
  const fabric::Fabric model = loadFabricOption(options.fabricPath);
  topo::LauncherEnvOptions env = resolveLauncherOptions(options.launcher);
  if (env.host.empty()) env.host = hostFromEnvironment();
  if (env.localRank < 0) env.localRank = localRankFromEnvironment();
  env.env = processEnv;  // RAILTUNE_NET_QPS and the user's NCCL_IB_* feed the QP policy
  applyMeasured(options.launcher, model, env, "exec");
  topo::EnvVars vars = topo::launcherEnv(model, env);
  for (const std::string& warning : topo::launcherQpPolicy(model, env).warnings)
    std::cerr << "railtune exec: warning: " << warning << "\n";
  for (const std::string& warning : launcherFileWarnings(vars))
    std::cerr << "railtune exec: warning: " << warning << "\n";
  if (!options.captureDir.empty())
    for (auto& var : captureEnv(options.captureDir)) vars.push_back(std::move(var));
  for (const auto& [name, value] : vars) setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& arg : options.command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  std::cerr << "railtune exec: cannot run " << options.command.front() << ": " << std::strerror(errno) << "\n";
  return 127;
}

}  // namespace

Command addExecCommand(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("exec", "run a command with this host's NCCL_* environment (railtune topo env)");
  auto options = std::make_shared<ExecOptions>();
  addFabricOption(*app, options->fabricPath);
  app->add_option("--host", options->launcher.env.host, "the host; default: RAILTUNE_HOST, else the hostname");
  addLauncherOptions(*app, options->launcher);
  app->add_option("--capture", options->captureDir,
                  "also make NCCL log into this folder what `railtune paths import` reads (NCCL_DEBUG=INFO, "
                  "NCCL_DEBUG_SUBSYS with INIT,NET,GRAPH, NCCL_DEBUG_FILE=DIR/%h.%p.nccl.log, RAILTUNE_PROFILE_DIR)");
  app->add_option("command", options->command, "the command and its arguments, after --")->required();
  return {app, [options] { return runExec(*options); }};
}

}  // namespace railtune::cli
