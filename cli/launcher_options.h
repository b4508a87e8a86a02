// The options `railtune topo env` and `railtune exec` share: which host and local rank, the
// per-rank switches, the NCCL version and the paths the environment points at.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "topo_gen/launcher_env.h"

namespace railtune::cli {

struct LauncherCliOptions {
  topo::LauncherEnvOptions env;
  std::string ncclVersion = "2.30";
  std::string measured;  // --measured: a railtune.net-env/1 file; "" = none
};

// Adds --local-rank, --isolate-gpu, --one-hca-per-rank, --nccl-version, --topo-file, --rail-map,
// --plugin-dir, --measured (not --host: its default differs between the two commands).
void addLauncherOptions(CLI::App& app, LauncherCliOptions& options);

// Fills env.ncclMinor from --nccl-version ("2.28", "2.30"...) and, without --plugin-dir, points the
// plugin selectors at the railtune plugins installed beside this binary when they are there.
// Throws std::invalid_argument on a version it cannot read.
topo::LauncherEnvOptions resolveLauncherOptions(const LauncherCliOptions& options);

// Warnings about the files the environment points at, as this machine sees them: an NCCL_TOPO_FILE that
// cannot be read. NCCL itself then detects the topology and says so only at NCCL_DEBUG=INFO (2.28-2.30:
// src/graph/xml.cc ncclTopoGetXmlFromFile), so the command says it; the variable is still set.
std::vector<std::string> launcherFileWarnings(const topo::EnvVars& vars);

// With --measured: the file's entry for env.host's GPU and fabric into env.measured (topo_gen/measured_net.h), its
// notes (another fabric's file, entries that disagree) on stderr as "railtune <command>: note: ...". Throws
// formats::NetEnvError for a file that cannot be used.
void applyMeasured(const LauncherCliOptions& options, const fabric::Fabric& model, topo::LauncherEnvOptions& env,
                   const std::string& command);

}  // namespace railtune::cli
