// The topology half of `railtune demo` (see topology.h): every output topo_gen produces, each by the same library
// call its `railtune topo ...` subcommand makes (topo_gen/cluster_outputs.h), so the demo shows what those
// subcommands print for the built-in cluster (or the `--fabric` file).
#include "cli/demo/topology.h"

#include <cstdio>

#include "topo_gen/cluster_outputs.h"

namespace railtune::cli {

int writeDemoTopology(const std::filesystem::path& dir, const std::filesystem::path& pluginDir,
                      const std::string& fabricPath) {
  const topo::ClusterOutputs outputs = topo::writeClusterOutputs(fabricPath, dir / "topology", pluginDir);
  std::printf("Topology of %s: %zu NVLink domains, %zu hosts, %zu GPUs, %d rails x %d planes\n",
              outputs.clusterName.c_str(), outputs.domains, outputs.hosts, outputs.gpus, outputs.rails, outputs.planes);
  std::printf("Wrote %d files under %s\n", outputs.filesWritten, (dir / "topology").c_str());
  std::printf("%s", outputs.checkReport.c_str());
  return static_cast<int>(outputs.errors);
}

}  // namespace railtune::cli
