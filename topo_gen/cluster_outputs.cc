// Every output of one cluster written and checked (cluster_outputs.h).
#include "topo_gen/cluster_outputs.h"

#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include "common/regular_file.h"
#include "fabric/default_cluster.h"
#include "fabric/diagnostics.h"
#include "fabric/rail_map_write.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "formats/names.h"
#include "formats/rail_map.h"
#include "topo_gen/hypernodes.h"
#include "topo_gen/kueue.h"
#include "topo_gen/labels.h"
#include "topo_gen/launcher_env.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"
#include "topo_gen/slurm.h"

namespace railtune::topo {
namespace {

namespace fs = std::filesystem;

// Writes `text` to dir/name (creating dir) and counts the file, for the summary.
class FileWriter {
 public:
  explicit FileWriter(fs::path root) : root_(std::move(root)) {}

  // Throws std::invalid_argument (formats::joinUnder) for a `relative` that would leave the root: a host
  // named "../x" gets no file outside it even when validation was bypassed.
  fs::path write(const fs::path& relative, const std::string& text) {
    const fs::path path = formats::joinUnder(root_, relative.string());
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot create output folder " + path.parent_path().string() + ": " + ec.message());
    std::ofstream out(path, std::ios::trunc | std::ios::binary);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path.string());
    ++count_;
    return path;
  }
  const fs::path& root() const { return root_; }
  int count() const { return count_; }

 private:
  fs::path root_;
  int count_ = 0;
};

size_t gpuCount(const fabric::Fabric& model) {
  size_t gpus = 0;
  for (const fabric::Host& host : model.hosts) gpus += host.gpus.size();
  return gpus;
}

void writeSchedulerOutputs(const fabric::Fabric& model, FileWriter& files) {
  const auto labels = nodeLabels(model, {});
  files.write("labels.json", labelsJson(labels));
  files.write("label-nodes.sh", labelsKubectlScript(labels));
  files.write("hypernodes.yaml", hyperNodesYaml(hyperNodes(model)));
  files.write("kueue-topology.yaml", kueueTopologyYaml(model));
  files.write("slurm-topology-block.conf", slurmTopologyConf(model, SlurmTopologyPlugin::Block));
  files.write("slurm-topology-tree.conf", slurmTopologyConf(model, SlurmTopologyPlugin::Tree));
}

// The first host's launcher env, pointing at the topology files and rail map just written, so that
// `source env/<host>.sh` on that host is all a launcher needs.
void writeLauncherEnv(const fabric::Fabric& model, const fs::path& pluginDir, FileWriter& files) {
  LauncherEnvOptions options;
  options.host = model.hosts.front().name;
  options.topoFile = (files.root() / "nccl-topo" / "{host}.xml").string();
  options.railMap = (files.root() / "rail-map.json").string();
  options.pluginDir = pluginDir.string();
  const std::string header = "# railtune demo: NCCL environment for " + options.host + "; source this file\n";
  files.write(fs::path("env") / (options.host + ".sh"), header + exportLines(launcherEnv(model, options)));
}

// A written file that cannot be read back is itself a finding, at the file's position when known.
void addReadError(const std::exception& e, const std::string& path, fabric::Diagnostics& out) {
  const auto* xml = dynamic_cast<const NcclXmlError*>(&e);
  if (xml != nullptr) {
    out.error(xml->where(), xml->reason());
    return;
  }
  out.error({path, 0, 0}, e.what());
}

// Every written topology file read back and compared with the written rail map, as `railtune topo
// check --topo-file --rail-map` would: the outputs must agree with each other, not only the model.
// The rail map is read once (not per host as checkTopoFileAgainstRailMap would): at 2,052 hosts
// re-reading its 2.7 MB per host took over a minute.
void checkWrittenOutputs(const fabric::Fabric& model, const fs::path& root, fabric::Diagnostics& diagnostics) {
  const std::string railMapPath = (root / "rail-map.json").string();
  formats::RailMap railMap;
  try {
    railMap = formats::readRailMapFile(railMapPath);
  } catch (const std::exception& e) {
    addReadError(e, railMapPath, diagnostics);
    return;
  }
  for (const fabric::Host& host : model.hosts) {
    const std::string topoPath = (root / "nccl-topo" / (host.name + ".xml")).string();
    try {
      const fabric::Host readBack = readNcclXmlFile(topoPath);
      checkTopoAgainstRailMap(readBack, railMap, host.name, {topoPath, 0, 0}, diagnostics);
    } catch (const std::exception& e) {
      addReadError(e, topoPath, diagnostics);
    }
  }
}

void writeOutputs(const fabric::Fabric& model, const fs::path& pluginDir, FileWriter& files) {
  for (const fabric::Host& host : model.hosts)
    files.write(fs::path("nccl-topo") / (host.name + ".xml"), writeNcclXml(host));
  files.write("rail-map.json", fabric::writeRailMap(model));
  writeSchedulerOutputs(model, files);
  writeLauncherEnv(model, pluginDir, files);
}

// The findings, then one verdict line (the test and a user read the last line).
std::string checkReport(const fabric::Diagnostics& diagnostics, const std::string& clusterName, size_t topoFiles) {
  std::string report;
  for (const fabric::Diagnostic& d : diagnostics.all()) report += d.str() + "\n";
  const size_t errors = diagnostics.errorCount();
  if (errors == 0)
    return report + "railtune topo check (" + clusterName + ", " + std::to_string(topoFiles) +
           " topology files against rail-map.json): ok\n";
  return report + "railtune topo check (" + clusterName + "): " + std::to_string(errors) + " error(s)\n";
}

std::string readText(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error("cannot read " + file.describe());
  return file.bytes;
}

}  // namespace

ClusterOutputs writeClusterOutputs(const std::string& fabricPath, const fs::path& dir, const fs::path& pluginDir) {
  const std::string yaml = fabricPath.empty() ? std::string(fabric::defaultClusterYaml()) : readText(fabricPath);
  const fabric::Fabric model =
      fabricPath.empty() ? fabric::loadDefaultCluster() : fabric::readFabricYaml(yaml, fabricPath);
  ClusterOutputs outputs;
  outputs.clusterName = fabricPath.empty() ? "the built-in cluster " + model.name : fabricPath;
  if (model.hosts.empty()) throw std::runtime_error(outputs.clusterName + " has no hosts");
  FileWriter files(dir);
  files.write("fabric.yaml", yaml);
  // What `railtune topo check` reports first: a model it rejects (a NIC without a rail, a GPU short
  // of NVLinks) gets no outputs, since the emitters would refuse it or describe a broken host.
  fabric::Diagnostics diagnostics;
  fabric::validate(model, diagnostics);
  checkNcclXmlLimits(model, diagnostics);
  if (!diagnostics.hasErrors()) {
    try {
      writeOutputs(model, pluginDir, files);
      checkWrittenOutputs(model, files.root(), diagnostics);
    } catch (const std::invalid_argument& e) {  // an emitter refused what the checks let through
      diagnostics.error(model.loc, e.what());
    }
  }
  outputs.checkReport = checkReport(diagnostics, outputs.clusterName, model.hosts.size());
  files.write("check.txt", outputs.checkReport);
  outputs.domains = model.domains.size();
  outputs.hosts = model.hosts.size();
  outputs.gpus = gpuCount(model);
  outputs.rails = model.network.rails;
  outputs.planes = model.network.planes;
  outputs.filesWritten = files.count();
  outputs.errors = diagnostics.errorCount();
  return outputs;
}

}  // namespace railtune::topo
