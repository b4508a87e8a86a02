// `railtune topo check [--fabric FILE] [--rail-map JSON [--topo-file XML [--host NAME]]]`: reads the
// cluster description and runs every check on it: every unknown or duplicated key, the fabric's own
// checks (fabric/validate.h), NCCL's XML limits for every host; given a rail map, the rail map reader's
// checks (what the plugins would refuse), and given a topology file as well, whether their rails and
// planes agree. Prints one `file:line:column: error: message` line per finding, then one line per file checked
// saying what was checked in it and whether it passed; exit 1 on any error.
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// One line per file checked, after the findings: what was checked in it, and whether it passed.
struct FileReport {
  std::string name;
  std::string checked;  // what was checked in it
  std::string facts;    // what it holds, when read ("2 NVLink domains, 36 hosts, 4 rails x 1 planes")
  size_t errors = 0;
  std::string line() const {
    std::string text = name + ": " + (errors == 0 ? "ok" : std::to_string(errors) + " error(s)");
    if (!facts.empty()) text += " (" + facts + ")";
    return text + "; checked: " + checked;
  }
};

FileReport checkFabric(const CheckOptions& opts, fabric::Fabric& model, fabric::Diagnostics& diagnostics) {
  const size_t before = diagnostics.errorCount();
  bool readable = false;
  model = loadForCheck(opts.fabric, diagnostics, readable);
  FileReport report{opts.fabric.empty() ? "the built-in default cluster" : opts.fabric,
                    "keys and values, names, bus ids, NVLinks, rails and planes of every host, rail groups and "
                    "leaves, NCCL's XML limits, plane GUIDs",
                    "", 0};
  if (readable) {
    fabric::validate(model, diagnostics);
    topo::checkNcclXmlLimits(model, diagnostics);
    topo::checkPlaneGuids(model, diagnostics);
    report.facts = std::to_string(model.domains.size()) + " NVLink domains, " + std::to_string(model.hosts.size()) +
                   " hosts, " + std::to_string(model.network.rails) + " rails x " +
                   std::to_string(model.network.planes) + " planes";
  }
  report.errors = diagnostics.errorCount() - before;
  return report;
}

FileReport checkRailMap(const std::string& path, std::optional<formats::RailMap>& railMap,
                        fabric::Diagnostics& diagnostics) {
  const size_t before = diagnostics.errorCount();
  formats::RailMap map;
  FileReport report{path, "read as the plugins read it (fields, bus ids, rails and planes in range, names)", "", 0};
  if (readRailMapInto(path, map, diagnostics)) {
    report.facts = std::to_string(map.hosts.size()) + " hosts, " + std::to_string(map.rails) + " rails x " +
                   std::to_string(map.planes) + " planes";
    railMap = std::move(map);
  }
  report.errors = diagnostics.errorCount() - before;
  return report;
}

FileReport checkTopoFile(const CheckOptions& opts, const std::optional<formats::RailMap>& railMap,
                         fabric::Diagnostics& diagnostics) {
  const size_t before = diagnostics.errorCount();
  FileReport report{opts.topoFile, "read as NCCL's topology XML", "", 0};
  fabric::Host topoHost;
  try {
    topoHost = topo::readNcclXmlFile(opts.topoFile);
  } catch (const std::exception& e) {
    diagnostics.add(fromReaderMessage(e.what(), opts.topoFile));
    report.errors = diagnostics.errorCount() - before;
    return report;
  }
  const std::string host = opts.host.empty() ? topoHost.name : opts.host;
  report.facts = "host " + host + ", " + std::to_string(topoHost.nics.size()) + " NICs";
  if (!railMap) {
    report.checked += "; not compared with " + opts.railMap + ", which could not be read";
  } else {
    report.checked += "; each NIC's rail and plane against host " + host + " of " + opts.railMap;
    topo::checkTopoAgainstRailMap(topoHost, *railMap, opts.host, {opts.topoFile, 0, 0}, diagnostics);
  }
  report.errors = diagnostics.errorCount() - before;
  return report;
}

int runCheck(const CheckOptions& opts) {
  fabric::Diagnostics diagnostics;
  fabric::Fabric model;
  std::vector<FileReport> reports{checkFabric(opts, model, diagnostics)};
  std::optional<formats::RailMap> railMap;
  if (!opts.railMap.empty()) reports.push_back(checkRailMap(opts.railMap, railMap, diagnostics));
  if (!opts.topoFile.empty()) reports.push_back(checkTopoFile(opts, railMap, diagnostics));
  for (const fabric::Diagnostic& d : diagnostics.all()) std::cerr << d.str() << "\n";
  const size_t errors = diagnostics.errorCount();
  for (const FileReport& report : reports) (errors > 0 ? std::cerr : std::cout) << report.line() << "\n";
  if (errors > 0) {
    std::cerr << "railtune topo check: " << errors << " error(s)\n";
    return 1;
  }
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
