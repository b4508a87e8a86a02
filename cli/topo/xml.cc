// `railtune topo nccl-xml [--fabric FILE] [--host NAME] [--out PATH]`: the NCCL topology XML
// (NCCL_TOPO_FILE) of one host, the first one by default.
// `railtune topo rail-map [--fabric FILE] [--measured NET_ENV] [--out PATH]`: the rail map the plugins read
// (RAILTUNE_RAIL_MAP), with the measured network settings for the cluster as `network.measured`.
// Both write to stdout unless --out names a file.
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "fabric/rail_map_write.h"
#include "topo_gen/measured_net.h"
#include "topo_gen/nccl_xml.h"

namespace railtune::cli {
namespace {

struct XmlOptions {
  std::string fabric;
  std::string host;      // "" = the first host
  std::string out;       // "" = stdout
  std::string measured;  // rail-map: a railtune.net-env/1 file; "" = none
};

const fabric::Host& pickHost(const fabric::Fabric& model, const std::string& name) {
  if (model.hosts.empty()) throw std::runtime_error("the cluster description has no hosts");
  if (name.empty()) return model.hosts.front();
  for (const fabric::Host& host : model.hosts)
    if (host.name == name) return host;
  throw std::runtime_error("no host named '" + name + "' (the first is " + model.hosts.front().name + ")");
}

int runNcclXml(const XmlOptions& opts) {
  const fabric::Fabric model = loadFabricOption(opts.fabric);
  const topo::XmlElement root = topo::buildNcclXml(pickHost(model, opts.host));
  // Never hand NCCL a file it would truncate or refuse: report why instead.
  const std::vector<std::string> violations = topo::ncclLimitViolations(root);
  for (const std::string& v : violations) std::cerr << "railtune topo nccl-xml: " << v << "\n";
  if (!violations.empty()) return 1;
  return writeOutput(topo::dumpNcclXml(root), opts.out);
}

// The measured entry is chosen for the first host's GPU and rail NICs: the map has one `network` for the cluster.
int runRailMap(const XmlOptions& opts) {
  const fabric::Fabric model = loadFabricOption(opts.fabric);
  if (opts.measured.empty()) return writeOutput(fabric::writeRailMap(model), opts.out);
  if (model.hosts.empty()) throw std::runtime_error("the cluster description has no hosts");
  const formats::NetEnvChoice choice = topo::measuredForHost(model, model.hosts.front().name, opts.measured);
  for (const std::string& note : choice.notes) std::cerr << "railtune topo rail-map: note: " << note << "\n";
  if (!choice.entry) return writeOutput(fabric::writeRailMap(model), opts.out);
  return writeOutput(fabric::writeRailMap(model, choice.entry->env, choice.measured.source), opts.out);
}

}  // namespace

Command addTopoNcclXmlCommand(CLI::App& topo) {
  auto opts = std::make_shared<XmlOptions>();
  CLI::App* app = topo.add_subcommand("nccl-xml", "NCCL topology XML (NCCL_TOPO_FILE) for one host");
  addFabricOption(*app, opts->fabric);
  app->add_option("--host", opts->host, "host name (default: the first host)");
  app->add_option("--out", opts->out, "write to this file instead of stdout");
  return {app, [opts] { return runNcclXml(*opts); }};
}

Command addTopoRailMapCommand(CLI::App& topo) {
  auto opts = std::make_shared<XmlOptions>();
  CLI::App* app = topo.add_subcommand("rail-map", "rail map JSON (GPU -> NIC, rail, plane per host) the plugins read");
  addFabricOption(*app, opts->fabric);
  app->add_option("--measured", opts->measured,
                  "network settings measured by `railtune sweep` (railtune.net-env/1): the entry for this cluster goes "
                  "into the map, for the net plugin's QP policy (docs/qp-policy.md)")
      ->check(CLI::ExistingFile);
  app->add_option("--out", opts->out, "write to this file instead of stdout");
  return {app, [opts] { return runRailMap(*opts); }};
}

}  // namespace railtune::cli
