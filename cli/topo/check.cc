// `railtune topo check [--fabric FILE] [--rail-map JSON [--topo-file XML [--host NAME]]]`: reads the
// cluster description and runs every check on it: every unknown or duplicated key, the fabric's own
// checks (fabric/validate.h), NCCL's XML limits for every host; given a rail map, the rail map reader's
// checks (what the plugins would refuse), and given a topology file as well, whether their rails and
// planes agree. Prints one `file:line:column: error: message` line per finding; exit 1 on any error.
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "fabric/diagnostics.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "formats/rail_map.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::cli {
namespace {

struct CheckOptions {
  std::string fabric;
  std::string topoFile;  // NCCL topology XML to compare with the rail map
  std::string railMap;
  std::string host;  // the topology file's entry in the rail map; "" = its <system name>
};

// Readers of other formats say "PATH:LINE:COLUMN: reason"; keep that position as the finding's.
fabric::Diagnostic fromReaderMessage(const std::string& what, const std::string& path) {
  fabric::Diagnostic d{fabric::Severity::Error, {path, 0, 0}, what};
  if (what.rfind(path + ":", 0) != 0) return d;
  std::string rest = what.substr(path.size() + 1);
  int numbers[2] = {0, 0};
  for (int& number : numbers) {
    const size_t colon = rest.find(':');
    if (colon == 0 || colon == std::string::npos || rest.find_first_not_of("0123456789") != colon) break;
    number = std::stoi(rest.substr(0, colon));
    rest = rest.substr(colon + 1);
  }
  d.loc = {path, numbers[0], numbers[1]};
  d.message = rest.substr(rest.find_first_not_of(' ') == std::string::npos ? 0 : rest.find_first_not_of(' '));
  return d;
}

// The rail map through the reader the plugins use (formats/rail_map.h), every problem it finds reported.
bool readRailMapInto(const std::string& path, formats::RailMap& railMap, fabric::Diagnostics& diagnostics) {
  try {
    railMap = formats::readRailMapFile(path);
    return true;
  } catch (const formats::RailMapError& e) {
    for (const std::string& problem : e.problems()) diagnostics.add(fromReaderMessage(problem, path));
  } catch (const std::exception& e) {
    diagnostics.add(fromReaderMessage(e.what(), path));
  }
  return false;
}

void checkTopoFile(const CheckOptions& opts, fabric::Diagnostics& diagnostics) {
  fabric::Host topoHost;
  formats::RailMap railMap;
  try {
    topoHost = topo::readNcclXmlFile(opts.topoFile);
  } catch (const std::exception& e) {
    diagnostics.add(fromReaderMessage(e.what(), opts.topoFile));
    return;
  }
  if (!readRailMapInto(opts.railMap, railMap, diagnostics)) return;
  topo::checkTopoAgainstRailMap(topoHost, railMap, opts.host, {opts.topoFile, 0, 0}, diagnostics);
}

// A file given: unknown and duplicated keys are collected (all of them, reading goes on) and the model
// is still checked; `readable` is false only when the file could not be read into a model at all.
fabric::Fabric loadForCheck(const std::string& path, fabric::Diagnostics& diagnostics, bool& readable) {
  const size_t before = diagnostics.errorCount();
  if (path.empty()) {
    fabric::Fabric model = loadFabricOption(path, diagnostics);
    readable = diagnostics.errorCount() == before;
    return model;
  }
  try {
    readable = true;
    return fabric::loadFabricFile(path, diagnostics);
  } catch (const fabric::FabricError& e) {
    diagnostics.add(e.diagnostic());
    readable = false;
    return {};
  }
}

int runCheck(const CheckOptions& opts) {
  fabric::Diagnostics diagnostics;
  bool readable = false;
  const fabric::Fabric model = loadForCheck(opts.fabric, diagnostics, readable);
  if (readable) {
    fabric::validate(model, diagnostics);
    topo::checkNcclXmlLimits(model, diagnostics);
    topo::checkPlaneGuids(model, diagnostics);
  }
  if (!opts.topoFile.empty()) {
    checkTopoFile(opts, diagnostics);
  } else if (!opts.railMap.empty()) {  // the rail map on its own: what the plugins would make of it
    formats::RailMap railMap;
    readRailMapInto(opts.railMap, railMap, diagnostics);
  }
  for (const fabric::Diagnostic& d : diagnostics.all()) std::cerr << d.str() << "\n";
  const size_t errors = diagnostics.errorCount();
  const std::string name = opts.fabric.empty() ? "the built-in default cluster" : opts.fabric;
  if (errors > 0) {
    std::cerr << "railtune topo check: " << errors << " error(s)\n";
    return 1;
  }
  std::cout << name << ": ok (" << model.domains.size() << " NVLink domains, " << model.hosts.size() << " hosts, "
            << model.network.rails << " rails x " << model.network.planes << " planes)\n";
  return 0;
}

}  // namespace

Command addTopoCheckCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("check", "read a cluster description and report every error with its position");
  auto opts = std::make_shared<CheckOptions>();
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
