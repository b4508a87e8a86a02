// `railtune demo [--out DIR] [--plugin-dir DIR] [--fabric FILE]`: loads the three railtune plugins
// through the emulator's loader as NCCL 2.28 and 2.30 would, prints what each binds, and writes the
// same as DIR/bindings.jsonl; then writes the topology outputs of the built-in cluster (or FILE's)
// under DIR/topology/ (demo_topology.h) and checks them, the tuner's decision tables under DIR/tuner/,
// runs an emulated 16-rank job over the net plugin with one NIC miswired (DIR/net/, demo/net.h), and an 8-rank job
// over the verbs transport on the verbs simulator whose path log shows each connection's HCA, GID and QPs
// (DIR/verbs/, demo/verbs.h). The env plugin is loaded as NCCL loads it and asked, for the first host, every NCCL
// variable topo env exports (DIR/env/, demo/env.h). Everything the demo produces goes under DIR.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/bindings_report.h"
#include "cli/commands.h"
#include "cli/demo/env.h"
#include "cli/demo/net.h"
#include "cli/demo/topology.h"
#include "cli/demo/tuner.h"
#include "cli/demo/verbs.h"
#include "cli/plugin_files.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;

struct DemoOptions {
  std::string outDir = "railtune-demo";
  std::string pluginDir;  // empty: defaultPluginDir()
  std::string fabric;     // empty: the embedded default cluster
};

std::ofstream openOutput(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
  std::ofstream out(dir / name, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
  return out;
}

void printBinding(const emu::Binding& b, const NcclBindings& all) {
  const emu::NcclBehaviour nccl = all.nccl;
  const std::string lib = b.library ? fs::path(b.library->path()).filename().string() : std::string("-");
  if (b) {
    const std::string assigned =
        b.kind == emu::PluginKind::Net ? "   (communicators get: " + all.netAssigned + ")" : "";
    std::printf("  NCCL %-5s %-9s %-30s %-20s v%d%s\n", emu::behaviourName(nccl), emu::kindName(b.kind), lib.c_str(),
                b.symbol.c_str(), b.version, assigned.c_str());
    return;
  }
  std::printf("  NCCL %-5s %-9s nothing bound from %s\n", emu::behaviourName(nccl), emu::kindName(b.kind),
              b.requested.c_str());
  for (const std::string& line : b.log) std::printf("      %s\n", line.c_str());
}

// Returns the number of plugin kinds that bound nothing (each is a defect in our plugins).
int reportBindings(const PluginFiles& files, std::ostream& jsonl) {
  const Identity id = resolveIdentity();
  int unbound = 0;
  for (emu::NcclBehaviour nccl : {emu::NcclBehaviour::V2_28, emu::NcclBehaviour::V2_30, emu::NcclBehaviour::V2_31}) {
    const NcclBindings all = bindRailtunePlugins(nccl, files);
    for (const emu::Binding& binding : all.bindings) {
      printBinding(binding, all);
      jsonl << bindingRecord(all, binding, id).dump() << "\n";
      if (!binding) ++unbound;
    }
  }
  return unbound;
}

int runDemo(const DemoOptions& opts) {
  const fs::path pluginDir = opts.pluginDir.empty() ? defaultPluginDir() : fs::path(opts.pluginDir);
  const PluginFiles files = findPluginFiles(pluginDir);
  const fs::path out = fs::absolute(opts.outDir).lexically_normal();
  std::ofstream jsonl = openOutput(out, "bindings.jsonl");

  std::printf("railtune demo: plugins from %s\n", files.net.parent_path().c_str());
  std::printf("What NCCL binds from them (library, symbol, ABI version):\n");
  const int unbound = reportBindings(files, jsonl);
  jsonl.close();
  if (!jsonl) throw std::runtime_error("writing " + (out / "bindings.jsonl").string() + " failed");
  std::printf(
      "The tuner applies rules from RAILTUNE_TUNER_CONFIG (none here) and its cost model advises\n"
      "(RAILTUNE_TUNER_MODEL=advise: NCCL's choice stands). The profiler records collectives under\n"
      "RAILTUNE_PROFILE_DIR and watches for hangs. The net plugin carries the traffic over TCP on a host\n"
      "without an active RDMA port and steps aside for NCCL's own IB transport where one is active:\n"
      "\"communicators get\" above says which it was here.\n");
  std::printf("Wrote %s\n\n", (out / "bindings.jsonl").c_str());
  const int topologyErrors = writeDemoTopology(out, files.net.parent_path(), opts.fabric);
  const fs::path envPlugin = files.net.parent_path() / "libnccl-env-railtune.so";
  if (!fs::is_regular_file(envPlugin))
    throw std::runtime_error("libnccl-env-railtune.so not found in " + files.net.parent_path().string());
  if (topologyErrors == 0 && writeDemoEnv(out, envPlugin, out / "topology", opts.fabric) > 0)
    throw std::runtime_error("the env plugin's answers differ from topo env's: see MISMATCH in " +
                             (out / "env" / "answers.txt").string());
  if (writeDemoTuner(out, files.tuner) > 0)
    throw std::runtime_error("the tuner disagreed with its rules: see MISMATCH in " + (out / "tuner").string());
  size_t pluginWarnings = 0;  // of the emulated jobs' ranks, printed on stderr by each job
  if (writeDemoNet(out, files.net, pluginWarnings) > 0)
    throw std::runtime_error("the path logs did not show exactly the injected misbinding; see above");
  if (writeDemoVerbs(out, files.net, findVerbsSimulator(pluginDir), pluginWarnings) > 0)
    throw std::runtime_error("the verbs job's path logs lack their verbs facts; see above");
  // WARNs do not fail the demo (as they do not fail `emu net-job`), but they are never silent.
  if (pluginWarnings > 0)
    std::printf("\nrailtune demo: the plugins logged %zu WARN(s) in the emulated jobs (printed on stderr above)\n",
                pluginWarnings);
  else
    std::printf("\nrailtune demo: the plugins logged no WARN in the emulated jobs\n");
  if (unbound > 0) {
    std::fprintf(stderr, "railtune demo: %d plugin(s) bound nothing; see the loader's lines above\n", unbound);
    return 1;
  }
  if (topologyErrors > 0) {
    std::fprintf(stderr, "railtune demo: the topology check found %d error(s); see %s\n", topologyErrors,
                 (out / "topology" / "check.txt").c_str());
    return 1;
  }
  return 0;
}

}  // namespace

Command addDemoCommand(CLI::App& parent) {
  auto opts = std::make_shared<DemoOptions>();
  CLI::App* sub = parent.add_subcommand("demo",
                                        "Load the railtune plugins as NCCL 2.28 and 2.30 would; write the built-in "
                                        "cluster's topology outputs and tuner decisions");
  sub->add_option("--out", opts->outDir, "Folder for everything the demo writes")->capture_default_str();
  sub->add_option("--plugin-dir", opts->pluginDir, "Folder holding the plugin .so files (default: <bin>/../lib)");
  sub->add_option("--fabric", opts->fabric, "cluster description (YAML) for topology/; default: the built-in cluster")
      ->check(CLI::ExistingFile);
  return Command{sub, [opts] { return runDemo(*opts); }};
}

}  // namespace railtune::cli
