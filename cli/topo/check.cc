// `railtune topo check [--fabric FILE] [--rail-map JSON [--topo-file XML [--host NAME]]]`: reads the
// cluster description and runs every check on it: every unknown or duplicated key, the fabric's own
// checks (fabric/validate.h), NCCL's XML limits for every host; given a rail map, the rail map reader's
// checks (what the plugins would refuse), and given a topology file as well, whether their rails and
// planes agree. Prints one `file:line:column: error: message` line per finding, then one line per file checked
// saying what was checked in it and whether it passed; exit 1 on any error.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "topo_gen/cluster_check.h"

namespace railtune::cli {
namespace {

int runCheck(const topo::ClusterCheckRequest& request) {
  const topo::ClusterCheck check = topo::checkCluster(request);
  for (const fabric::Diagnostic& d : check.diagnostics.all()) std::cerr << d.str() << "\n";
  const size_t errors = check.diagnostics.errorCount();
  for (const topo::CheckedFile& file : check.files) (errors > 0 ? std::cerr : std::cout) << file.line() << "\n";
  if (errors > 0) {
    std::cerr << "railtune topo check: " << errors << " error(s)\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command addTopoCheckCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("check", "read a cluster description and report every error with its position");
  auto opts = std::make_shared<topo::ClusterCheckRequest>();
  addFabricOption(*app, opts->fabric);
  CLI::Option* railMap =
      app->add_option("--rail-map", opts->railMap,
                      "rail map (JSON) to check as the plugins read it, and that --topo-file must agree with")
          ->check(CLI::ExistingFile);
  app->add_option("--topo-file", opts->topoFile, "NCCL topology XML to compare with --rail-map on rails and planes")
      ->check(CLI::ExistingFile)
      ->needs(railMap);
  app->add_option("--host", opts->host, "the topology file's host in the rail map (default: its <system name>)");
  return {app, [opts] { return runCheck(*opts); }};
}

}  // namespace railtune::cli
