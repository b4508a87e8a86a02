// `railtune doctor`: will railtune work on this node (or in this image)? One line per check (ok,
// warn, fail, skip), the fix in the line when not ok; --json prints the same as one document. Exit 1
// when a check fails, else 0 (2: usage). Anything that loads a foreign library (NCCL, the plugins,
// what NCCL_*_PLUGIN names, NVML) runs in a child process (cli/doctor/probe.h), so doctor itself cannot
// crash or hang on it. docs/doctor.md describes every check.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/doctor/check.h"
#include "cli/doctor/context.h"
#include "cli/doctor/elf_fit.h"
#include "cli/doctor/env_checks.h"
#include "cli/doctor/fabric_checks.h"
#include "cli/doctor/gpu_checks.h"
#include "cli/doctor/nccl_check.h"
#include "cli/doctor/plugin_checks.h"
#include "cli/doctor/plugin_env.h"
#include "cli/doctor/probe.h"
#include "common/identity.h"

namespace railtune::cli {
namespace {

using namespace doctor;

int runDoctor(DoctorOptions options) {
  const std::string host = options.host.empty() ? resolveIdentity().host : options.host;
  Report report;
  const Platform platform = thisPlatform();
  const Check platformLine = platformCheck(platform);
  report.add(platformLine.id, platformLine.status, platformLine.message, platformLine.fix);
  const NcclFound nccl = checkNccl(options, report);
  checkPlugins(options, nccl, platform, report);
  checkPluginVariables(options, report);
  checkRailtuneVariables(report);
  const RailMapState railMap = checkRailMap(options, host, report);
  checkNics(options, railMap, report);
  checkTopoFile(railMap, report);
  checkNcclVariables(options, railMap.map ? &*railMap.map : nullptr, railMap.host(), report);
  checkGpus(options, platform, report);
  std::cout << (options.json ? renderJson(report, host, RAILTUNE_VERSION) : renderText(report));
  return report.exitStatus();
}

// The hidden `railtune doctor probe -- MODE ARGS...`: the child side of probe.h. It leaves with
// _exit so that no destructor of a library it loaded runs.
[[noreturn]] void runProbeChild(const std::vector<std::string>& args) {
  const int status = probeChildMain(args);
  std::fflush(stdout);
  ::_exit(status);
}

}  // namespace

Command addDoctorCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("doctor",
                                        "check that railtune will work here: NCCL, plugin files and ABI, loader, rail "
                                        "map, topology file, environment, GPUs");
  auto opts = std::make_shared<DoctorOptions>();
  app->add_flag("--json", opts->json, "print the result as one JSON document (docs/doctor.md)");
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
  return {app, [opts, probe, probeArgs] {
            if (probe->parsed()) runProbeChild(*probeArgs);
            return runDoctor(*opts);
          }};
}

}  // namespace railtune::cli
