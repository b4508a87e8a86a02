// `railtune topo merge FILE...`: one cluster description from many (the per-host files `topo
// discover` writes on every node, or hand-written parts), in the full form. `railtune topo expand`:
// the full form of one description (what the compact form means, host by host). Both check the
// result like `topo check`; on any error they write nothing and exit 2 (input they cannot use: docs/design.md,
// "Exit status").
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "fabric/merge.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "fabric/yaml_write.h"

namespace railtune::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> files;
  std::string cluster;
  std::string fabric;  // expand only
  std::string out;
};

int finish(const char* command, const fabric::Fabric& model, fabric::Diagnostics& diagnostics, const std::string& out) {
  if (!diagnostics.hasErrors()) fabric::validate(model, diagnostics);
  for (const fabric::Diagnostic& d : diagnostics.all()) std::cerr << d.str() << "\n";
  if (diagnostics.hasErrors()) {
    std::cerr << "railtune topo " << command << ": " << diagnostics.errorCount() << " error(s), nothing written\n";
    return 2;
  }
  return writeOutput(fabric::writeFabricYaml(model), out);
}

int runMerge(const MergeOptions& opts) {
  fabric::Diagnostics diagnostics;
  std::vector<fabric::Fabric> parts;
  for (const std::string& file : opts.files) {
    try {
      parts.push_back(fabric::loadFabricFile(file));
    } catch (const fabric::FabricError& e) {
      diagnostics.add(e.diagnostic());
    }
  }
  const fabric::Fabric merged =
      diagnostics.hasErrors() ? fabric::Fabric{} : fabric::mergeFabrics(parts, opts.cluster, diagnostics);
  return finish("merge", merged, diagnostics, opts.out);
}

int runExpand(const MergeOptions& opts) {
  fabric::Diagnostics diagnostics;
  const fabric::Fabric model = loadFabricOption(opts.fabric, diagnostics);
  return finish("expand", model, diagnostics, opts.out);
}

}  // namespace

Command addTopoMergeCommand(CLI::App& topo) {
  CLI::App* app =
      topo.add_subcommand("merge", "join cluster descriptions (e.g. every host's `topo discover`) into one");
  auto opts = std::make_shared<MergeOptions>();
  app->add_option("files", opts->files, "descriptions to join, in order (YAML, either form)")
      ->required()
      ->check(CLI::ExistingFile);
  app->add_option("--cluster", opts->cluster, "name of the merged cluster (default: the first file's)");
  app->add_option("--out", opts->out, "write the merged description here instead of stdout");
  return {app, [opts] { return runMerge(*opts); }};
}

Command addTopoExpandCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("expand", "write a description in the full form (every host, GPU, NIC, switch)");
  auto opts = std::make_shared<MergeOptions>();
  addFabricOption(*app, opts->fabric);
  app->add_option("--out", opts->out, "write the full form here instead of stdout");
  return {app, [opts] { return runExpand(*opts); }};
}

}  // namespace railtune::cli
