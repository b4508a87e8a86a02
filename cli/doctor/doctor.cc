// `railtune doctor`: will railtune work on this node (or in this image)? One line per check (ok,
// warn, fail, skip), the fix in the line when not ok; --json prints the same as one document. Exit 1
// when a check fails, else 0 (2: usage). The checks are the doctor library's (doctor/doctor.h); anything
// that loads a foreign library runs in a child, this binary started again as the hidden
// `railtune doctor probe -- MODE ARGS...` (doctor/probe.h). docs/doctor.md describes every check.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/plugin_files.h"
#include "doctor/doctor.h"
#include "doctor/probe.h"

namespace railtune::cli {
namespace {

int runDoctor(doctor::DoctorOptions options, bool json) {
  if (options.pluginDir.empty()) options.pluginDir = defaultPluginDir().string();
  const doctor::DoctorRun run = doctor::runChecks(options);
  std::cout << (json ? doctor::renderJson(run.report, run.host, RAILTUNE_VERSION) : doctor::renderText(run.report));
  return run.report.exitStatus();
}

// The hidden `railtune doctor probe -- MODE ARGS...`: the child side of doctor/probe.h. It leaves with
// _exit so that no destructor of a library it loaded runs.
[[noreturn]] void runProbeChild(const std::vector<std::string>& args) {
  const int status = doctor::probeChildMain(args);
  std::fflush(stdout);
  ::_exit(status);
}

}  // namespace

Command addDoctorCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("doctor",
                                        "check that railtune will work here: NCCL, plugin files and ABI, loader, rail "
                                        "map, topology file, environment, GPUs");
  auto opts = std::make_shared<doctor::DoctorOptions>();
  auto json = std::make_shared<bool>(false);
  app->add_flag("--json", *json, "print the result as one JSON document (docs/doctor.md)");
  app->add_option("--nccl-lib", opts->ncclLib,
                  "the NCCL library to check (default: libnccl.so.2 through the loader's search path)");
  app->add_flag("--no-nccl", opts->noNccl, "do not look for NCCL (say what NCCL 2.28 and 2.30 would bind)")
      ->excludes("--nccl-lib");
  app->add_option("--plugin-dir", opts->pluginDir,
                  "folder holding railtune's plugin libraries (default: <prefix>/lib beside the binary)");
  app->add_option("--rail-map", opts->railMap, "rail map to check against (default: RAILTUNE_RAIL_MAP)");
  app->add_option("--host", opts->host,
                  "this host's name in the rail map (default: RAILTUNE_HOST, NCCL_HOSTID, else the hostname)");
  app->add_option("--root", opts->root, "read /sys and /dev below this folder instead of / (fixtures)")
      ->check(CLI::ExistingDirectory);
  app->add_option("--nvml-library", opts->nvmlLibrary,
                  "NVML library to load (default: RAILTUNE_NVML_LIBRARY, else libnvidia-ml.so.1)");
  app->add_flag("--no-nvml", opts->noNvml, "do not load NVML")->excludes("--nvml-library");
  app->add_option("--timeout", opts->timeoutSeconds,
                  "seconds each library load in a child process may take (default: 10)")
      ->check(CLI::Range(1, 600));
  CLI::App* probe = app->add_subcommand("probe", "");
  probe->group("");  // internal: the child process doctor starts
  auto probeArgs = std::make_shared<std::vector<std::string>>();
  probe->add_option("args", *probeArgs)->required();
  return {app, [opts, json, probe, probeArgs] {
            if (probe->parsed()) runProbeChild(*probeArgs);
            return runDoctor(*opts, *json);
          }};
}

}  // namespace railtune::cli
