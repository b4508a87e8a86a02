// `railtune exec [--fabric F] [--host H] [--local-rank R] [switches] -- CMD ARGS...`: runs CMD with
// the launcher environment of `railtune topo env` set. The local rank comes from --local-rank, else
// LOCAL_RANK (torchrun) or SLURM_LOCALID (srun); the host from --host, else RAILTUNE_HOST, else the
// hostname. Exit 2 when the host is not in the fabric or an option cannot be met; 127 when CMD
// cannot be run; otherwise CMD replaces this process.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
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
  std::vector<std::string> command;
};

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
  topo::EnvVars vars;
  try {
    topo::LauncherEnvOptions env = resolveLauncherOptions(options.launcher);
    if (env.host.empty()) env.host = hostFromEnvironment();
    if (env.localRank < 0) env.localRank = localRankFromEnvironment();
    vars = topo::launcherEnv(model, env);
  } catch (const std::invalid_argument& e) {
    std::cerr << "railtune exec: " << e.what() << "\n";
    return 2;
  }
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
  app->add_option("command", options->command, "the command and its arguments, after --")->required();
  return {app, [options] { return runExec(*options); }};
}

}  // namespace railtune::cli
