// The env plugin's step of `railtune demo`: libnccl-env-railtune.so loaded through the emulator's loader as NCCL 2.28
// and 2.30 load it (NCCL_ENV_PLUGIN=<path>), initialised for the first host of the demo's rail map, and asked every
// NCCL variable `railtune topo env` exports for that host: each answer beside topo env's value, written to
// DIR/env/answers.txt and summarised on stdout.
#pragma once

#include <filesystem>
#include <string>

namespace railtune::cli {

// `fabricPath` "" = the embedded default cluster (as the topology step used); `topologyDir` holds the rail map and
// topology files the topology step wrote. Returns the number of answers that differ from topo env's (a variable set
// in this process's environment wins in the plugin and is not counted). Throws std::runtime_error when the plugin
// binds nothing or a file cannot be written.
int writeDemoEnv(const std::filesystem::path& dir, const std::filesystem::path& envPlugin,
                 const std::filesystem::path& topologyDir, const std::string& fabricPath);

}  // namespace railtune::cli
