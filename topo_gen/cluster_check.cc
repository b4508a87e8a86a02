// The checks of `railtune topo check` (cluster_check.h).
#include "topo_gen/cluster_check.h"

#include <exception>
#include <optional>
#include <utility>

#include "fabric/default_cluster.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "formats/rail_map.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::topo {
namespace {

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
  try {
    readable = true;
    if (path.empty()) return fabric::loadFabricOrDefault(path);
    return fabric::loadFabricFile(path, diagnostics);
  } catch (const fabric::FabricError& e) {
    diagnostics.add(e.diagnostic());
    readable = false;
    return {};
  }
}

CheckedFile checkFabric(const ClusterCheckRequest& opts, fabric::Fabric& model, fabric::Diagnostics& diagnostics) {
  const size_t before = diagnostics.errorCount();
  bool readable = false;
  model = loadForCheck(opts.fabric, diagnostics, readable);
  CheckedFile report{opts.fabric.empty() ? "the built-in default cluster" : opts.fabric,
                     "keys and values, names, bus ids, NVLinks, rails and planes of every host, rail groups and "
                     "leaves, NCCL's XML limits, plane GUIDs",
                     "", 0};
  if (readable) {
    fabric::validate(model, diagnostics);
    checkNcclXmlLimits(model, diagnostics);
    checkPlaneGuids(model, diagnostics);
    report.facts = std::to_string(model.domains.size()) + " NVLink domains, " + std::to_string(model.hosts.size()) +
                   " hosts, " + std::to_string(model.network.rails) + " rails x " +
                   std::to_string(model.network.planes) + " planes";
  }
  report.errors = diagnostics.errorCount() - before;
  return report;
}

CheckedFile checkRailMap(const std::string& path, std::optional<formats::RailMap>& railMap,
                         fabric::Diagnostics& diagnostics) {
  const size_t before = diagnostics.errorCount();
  formats::RailMap map;
  CheckedFile report{path, "read as the plugins read it (fields, bus ids, rails and planes in range, names)", "", 0};
  if (readRailMapInto(path, map, diagnostics)) {
    report.facts = std::to_string(map.hosts.size()) + " hosts, " + std::to_string(map.rails) + " rails x " +
                   std::to_string(map.planes) + " planes";
    railMap = std::move(map);
  }
  report.errors = diagnostics.errorCount() - before;
  return report;
}

CheckedFile checkTopoFile(const ClusterCheckRequest& opts, const std::optional<formats::RailMap>& railMap,
                          fabric::Diagnostics& diagnostics) {
  const size_t before = diagnostics.errorCount();
  CheckedFile report{opts.topoFile, "read as NCCL's topology XML", "", 0};
  fabric::Host topoHost;
  try {
    topoHost = readNcclXmlFile(opts.topoFile);
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
    checkTopoAgainstRailMap(topoHost, *railMap, opts.host, {opts.topoFile, 0, 0}, diagnostics);
  }
  report.errors = diagnostics.errorCount() - before;
  return report;
}

}  // namespace

std::string CheckedFile::line() const {
  std::string text = name + ": " + (errors == 0 ? "ok" : std::to_string(errors) + " error(s)");
  if (!facts.empty()) text += " (" + facts + ")";
  return text + "; checked: " + checked;
}

ClusterCheck checkCluster(const ClusterCheckRequest& request) {
  ClusterCheck check;
  fabric::Fabric model;
  check.files.push_back(checkFabric(request, model, check.diagnostics));
  std::optional<formats::RailMap> railMap;
  if (!request.railMap.empty()) check.files.push_back(checkRailMap(request.railMap, railMap, check.diagnostics));
  if (!request.topoFile.empty()) check.files.push_back(checkTopoFile(request, railMap, check.diagnostics));
  return check;
}

}  // namespace railtune::topo
