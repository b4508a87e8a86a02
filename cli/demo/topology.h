// The topology half of `railtune demo`: every output topo_gen produces for the embedded default
// cluster (2 GB300 NVL72 racks, 4 rails) or a `--fabric` file, written under DIR/topology/, then
// checked as `railtune topo check` would, so a user sees in one folder what NCCL, the plugins and
// the schedulers would read.
#pragma once

#include <filesystem>
#include <string>

namespace railtune::cli {

// `fabricPath` "" = the embedded default cluster. Writes DIR/topology/ (topo::writeClusterOutputs) and prints a
// short summary. Returns the number of errors the check found (0 = the outputs agree with each other and with
// NCCL's limits). Throws as writeClusterOutputs does.
int writeDemoTopology(const std::filesystem::path& dir, const std::filesystem::path& pluginDir,
                      const std::string& fabricPath);

}  // namespace railtune::cli
