// `railtune topo discover`: this host's part of the cluster description, read from hwloc (or an
// hwloc XML export), sysfs (or a fake tree) and NVML when present, written in the full form
// (docs/fabric.md "Discovery"). Findings go to stderr; exit 1 when one is an error (the YAML is
// still written, so the operator sees what was found). No GPU: says so, writes nothing, exit 0.
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "common/identity.h"
#include "common/regular_file.h"
#include "doctor/nvml_probe.h"
#include "fabric/discover/assemble.h"
#include "fabric/discover/hwloc_source.h"
#include "fabric/discover/nvml_source.h"
#include "fabric/discover/sysfs_source.h"
#include "fabric/validate.h"
#include "fabric/yaml_write.h"

namespace railtune::cli {
namespace {

namespace discover = fabric::discover;

constexpr int kNvmlTimeoutSeconds = 30;  // nvmlInit on a busy host takes seconds, never minutes

struct DiscoverCliOptions {
  discover::DiscoverOptions assemble;
  std::string hwlocXml;  // "" = the live topology
  std::string sysfsRoot = "/";
  std::string nvmlLibrary;  // "" = RAILTUNE_NVML_LIBRARY, else libnvidia-ml.so.1
  bool noNvml = false;
  bool noHwloc = false;
  std::string nodeLabels;  // kubectl get node -o json, or a JSON object of labels
  bool cliqueLabelSet = false;
  std::string out;
};

struct ReadSources {
  discover::HwlocTopology hwloc;
  discover::SysfsInventory sysfs;
  discover::NvmlInventory nvml;
  bool haveHwloc = false;
};

const char* severityWord(discover::Severity s) {
  return s == discover::Severity::Error ? "error" : s == discover::Severity::Warning ? "warning" : "note";
}

void say(discover::Severity severity, const std::string& text) {
  std::cerr << "railtune topo discover: " << severityWord(severity) << ": " << text << "\n";
}

std::string readFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxInputFileBytes);
  if (!file.ok()) throw std::runtime_error("cannot read " + file.describe());
  return file.bytes;
}

// The node's nvidia.com/gpu.clique label ("" when absent) from `kubectl get node NAME -o json` or a
// plain JSON object of labels.
std::string cliqueFromLabels(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not JSON: " + e.what());
  }
  const nlohmann::json* labels = &doc;
  if (doc.is_object() && doc.contains("metadata")) {
    const nlohmann::json& meta = doc["metadata"];
    if (!meta.is_object() || !meta.contains("labels")) return "";
    labels = &meta["labels"];
  }
  if (!labels->is_object()) throw std::runtime_error(path + ": expected a JSON object of node labels");
  auto it = labels->find("nvidia.com/gpu.clique");
  if (it == labels->end()) return "";
  if (!it->is_string()) throw std::runtime_error(path + ": nvidia.com/gpu.clique is not a string");
  return it->get<std::string>();
}

// The live topology is optional (discovery goes on without it); a file the user named is not: a
// file hwloc cannot have written stops discovery rather than describing the host from half of it.
void readHwloc(const DiscoverCliOptions& opts, ReadSources& src) {
  if (opts.noHwloc) return;
  std::vector<std::string> errors;
  src.hwloc = opts.hwlocXml.empty() ? discover::readLiveHwloc(errors)
                                    : discover::readHwlocXml(readFile(opts.hwlocXml), opts.hwlocXml, errors);
  src.haveHwloc = errors.empty();
  for (const std::string& w : src.hwloc.warnings) say(discover::Severity::Warning, "hwloc: " + w);
  for (const std::string& e : errors)
    say(opts.hwlocXml.empty() ? discover::Severity::Warning : discover::Severity::Error, "hwloc: " + e);
  if (!errors.empty() && !opts.hwlocXml.empty())
    throw std::runtime_error("cannot use " + opts.hwlocXml + " (errors above); nothing written");
}

ReadSources readSources(const DiscoverCliOptions& opts) {
  ReadSources src;
  readHwloc(opts, src);
  src.sysfs = discover::readSysfs(opts.sysfsRoot);
  for (const std::string& note : src.sysfs.notes) say(discover::Severity::Note, "sysfs: " + note);
  if (!opts.noNvml) {
    // In a child under a deadline, as doctor does: a truncated libnvidia-ml.so.1 makes ld.so die
    // with SIGBUS and a FIFO given as the library never returns from dlopen.
    src.nvml = doctor::readNvmlInChild(opts.nvmlLibrary, kNvmlTimeoutSeconds);
    if (!src.nvml.loaded) say(discover::Severity::Note, src.nvml.error);
    for (const std::string& note : src.nvml.notes) say(discover::Severity::Note, "NVML: " + note);
  }
  return src;
}

std::string header(const DiscoverCliOptions& opts, const ReadSources& src) {
  std::string text = "railtune topo discover on " + opts.assemble.host + ": hwloc " +
                     (!src.haveHwloc          ? "not read"
                      : opts.hwlocXml.empty() ? "live"
                                              : "from " + opts.hwlocXml) +
                     ", sysfs " + std::to_string(src.sysfs.rdma.size()) + " RDMA device(s), NVML " +
                     (src.nvml.loaded ? "driver " + src.nvml.driverVersion : "absent") + ".\n";
  text += "Switches are placeholders (rail group rg0, spine0): merge hosts with `railtune topo merge`\n";
  text += "and name your fabric's switches before emitting scheduler topology.";
  return text;
}

int runDiscover(DiscoverCliOptions opts) {
  if (opts.assemble.host.empty()) opts.assemble.host = resolveIdentity().host;
  if (!opts.nodeLabels.empty()) {
    opts.assemble.cliqueLabel = cliqueFromLabels(opts.nodeLabels);
    opts.assemble.cliqueLabelGiven = true;
  }
  opts.assemble.cliqueLabelGiven = opts.assemble.cliqueLabelGiven || opts.cliqueLabelSet;
  const ReadSources src = readSources(opts);
  discover::Sources sources{src.haveHwloc ? &src.hwloc : nullptr, &src.sysfs, opts.noNvml ? nullptr : &src.nvml};
  const discover::Discovery found = discover::assembleHost(sources, opts.assemble);
  for (const discover::Finding& f : found.findings) say(f.severity, f.text);
  const fabric::Host& host = found.fabric.hosts.front();
  if (host.gpus.empty()) {
    std::cerr << "railtune topo discover: no NVIDIA GPU found on " << host.name
              << " (hwloc and NVML list none): not a GPU compute host, nothing to describe\n";
    return found.hasErrors() ? 1 : 0;
  }
  if (host.nics.empty())
    say(discover::Severity::Warning, "no RDMA NIC found: NCCL would fall back to sockets between hosts");
  fabric::Diagnostics diagnostics;
  fabric::validate(found.fabric, diagnostics);
  for (const fabric::Diagnostic& d : diagnostics.all()) std::cerr << d.str() << "\n";
  const int written = writeOutput(fabric::writeFabricYaml(found.fabric, header(opts, src)), opts.out);
  return written != 0 || found.hasErrors() || diagnostics.hasErrors() ? 1 : 0;
}

}  // namespace

Command addTopoDiscoverCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("discover", "describe this host (hwloc, sysfs, NVML) in the full fabric form");
  auto opts = std::make_shared<DiscoverCliOptions>();
  app->add_option("--host", opts->assemble.host, "host name (default: RAILTUNE_HOST, NCCL_HOSTID, else the hostname)");
  app->add_option("--domain", opts->assemble.domain,
                  "NVLink domain name (default: from the NVLink clique, else the host name)");
  app->add_option("--rack", opts->assemble.rack, "physical rack (default: the domain name)");
  app->add_option("--profile", opts->assemble.profile,
                  "hardware profile to check against (default: guessed from the GPUs; none: no profile)");
  app->add_option("--hca", opts->assemble.hcas, "compute NICs, by RDMA device name (default: see docs/fabric.md)")
      ->delimiter(',');
  app->add_option("--hwloc-xml", opts->hwlocXml, "read this hwloc XML export (lstopo --of xml) instead of hwloc")
      ->check(CLI::ExistingFile);
  app->add_flag("--no-hwloc", opts->noHwloc, "do not read hwloc (NICs pair with GPUs by NUMA node, else bus order)")
      ->excludes("--hwloc-xml");
  app->add_option("--sysfs-root", opts->sysfsRoot, "directory holding sys/class/{infiniband,net} (default: /)")
      ->check(CLI::ExistingDirectory);
  app->add_option("--nvml-library", opts->nvmlLibrary, "NVML library to load (default: libnvidia-ml.so.1)");
  app->add_flag("--no-nvml", opts->noNvml, "do not load NVML");
  CLI::Option* labels =
      app->add_option("--node-labels", opts->nodeLabels,
                      "node labels (kubectl get node NAME -o json) to check nvidia.com/gpu.clique against NVML")
          ->check(CLI::ExistingFile);
  app->add_option("--clique-label", opts->assemble.cliqueLabel,
                  "the node's nvidia.com/gpu.clique value to check against NVML (\"\" = label absent)")
      ->excludes(labels)
      ->each([opts](const std::string&) { opts->cliqueLabelSet = true; });
  app->add_option("--out", opts->out, "write the description here instead of stdout");
  return {app, [opts] { return runDiscover(*opts); }};
}

}  // namespace railtune::cli
