// `railtune topo <subcommand>`: topo_gen's group. Each subcommand lives in its own file and is
// registered here, one line each; the group runs whichever was chosen.
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "fabric/default_cluster.h"

namespace railtune::cli {

void addFabricOption(CLI::App& app, std::string& path) {
  app.add_option("--fabric", path,
                 "cluster description (YAML, docs/fabric.md); default: the built-in 2-rack GB300 cluster")
      ->check(CLI::ExistingFile);
}

fabric::Fabric loadFabricOption(const std::string& path) {
  return fabric::loadFabricOrDefault(path);
}

fabric::Fabric loadFabricOption(const std::string& path, fabric::Diagnostics& diagnostics) {
  try {
    return loadFabricOption(path);
  } catch (const fabric::FabricError& e) {
    diagnostics.add(e.diagnostic());
    return {};
  }
}

int writeOutput(const std::string& text, const std::string& outPath) {
  if (outPath.empty()) {
    std::cout << text << std::flush;
    return std::cout ? 0 : 2;  // stdout closed or full: nothing usable was written
  }
  std::ofstream file(outPath, std::ios::binary | std::ios::trunc);
  if (!file) throw std::runtime_error("cannot write " + outPath);
  file << text;
  file.close();
  if (!file) throw std::runtime_error("writing " + outPath + " failed");
  return 0;
}

Command addTopoCommand(CLI::App& parent) {
  return addCommandGroup(parent, "topo", "cluster topology: check a description, emit what NCCL and schedulers read",
                         {addTopoDiscoverCommand, addTopoMergeCommand, addTopoExpandCommand, addTopoCheckCommand,
                          addTopoLabelsCommand, addTopoHyperNodesCommand, addTopoKueueCommand, addTopoSlurmCommand,
                          addTopoEnvCommand, addTopoNcclXmlCommand, addTopoRailMapCommand});
}

}  // namespace railtune::cli
