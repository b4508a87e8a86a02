// Where the three railtune plugin libraries are, for subcommands that load them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace railtune::cli {

struct PluginFiles {
  std::filesystem::path net;
  std::filesystem::path tuner;
  std::filesystem::path profiler;
};

// The lib/ folder beside the running binary's bin/ folder (<prefix>/bin/railtune -> <prefix>/lib).
std::filesystem::path defaultPluginDir();

// The plugin files in dir, as absolute paths. Throws std::runtime_error naming each missing file.
PluginFiles findPluginFiles(const std::filesystem::path& dir);

// The verbs simulator's libibverbs.so.1 for plugins in `pluginDir`: installed beside them
// (<prefix>/lib/railtune/verbs_sim/), or in the build tree (build/lib -> build/verbs_sim/). Throws
// std::runtime_error naming both places when it is in neither.
std::filesystem::path findVerbsSimulator(const std::filesystem::path& pluginDir);

}  // namespace railtune::cli
