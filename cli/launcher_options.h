// The options `railtune topo env` and `railtune exec` share: which host and local rank, the
// per-rank switches, the NCCL version and the paths the environment points at.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "topo_gen/launcher_env.h"

namespace railtune::cli {

struct LauncherCliOptions {
  topo::LauncherEnvOptions env;
  std::string ncclVersion = "2.30";
};

// Adds --local-rank, --isolate-gpu, --one-hca-per-rank, --nccl-version, --topo-file, --rail-map,
// --plugin-dir (not --host: its default differs between the two commands).
void addLauncherOptions(CLI::App& app, LauncherCliOptions& options);

// Fills env.ncclMinor from --nccl-version ("2.28", "2.30"...) and, without --plugin-dir, points the
// plugin selectors at the railtune plugins installed beside this binary when they are there.
// Throws std::invalid_argument on a version it cannot read.
topo::LauncherEnvOptions resolveLauncherOptions(const LauncherCliOptions& options);

}  // namespace railtune::cli
