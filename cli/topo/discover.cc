// `railtune topo discover`: this host's part of the cluster description, read from hwloc (or an
// hwloc XML export), sysfs (or a fake tree) and NVML when present, written in the full form
// (docs/fabric.md "Discovery"). Findings go to stderr; exit 1 when one is an error (the YAML is
// still written, so the operator sees what was found). No GPU: says so, writes nothing, exit 0.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/topo/topo.h"
#include "common/identity.h"
#include "doctor/nvml_probe.h"
#include "fabric/discover/discover_host.h"
#include "fabric/yaml_write.h"

namespace railtune::cli {
namespace {

namespace discover = fabric::discover;

constexpr int kNvmlTimeoutSeconds = 30;  // nvmlInit on a busy host takes seconds, never minutes

struct DiscoverCliOptions {
  discover::HostDiscoveryRequest request;
  std::string nvmlLibrary;  // "" = RAILTUNE_NVML_LIBRARY, else libnvidia-ml.so.1
  bool noNvml = false;
  bool cliqueLabelSet = false;
  std::string out;
};

const char* severityWord(discover::Severity s) {
  return s == discover::Severity::Error ? "error" : s == discover::Severity::Warning ? "warning" : "note";
}

int runDiscover(DiscoverCliOptions opts) {
  discover::HostDiscoveryRequest& request = opts.request;
  if (request.assemble.host.empty()) request.assemble.host = resolveIdentity().host;
  request.assemble.cliqueLabelGiven = request.assemble.cliqueLabelGiven || opts.cliqueLabelSet;
  // NVML in a child under a deadline, as doctor reads it: a truncated libnvidia-ml.so.1 makes ld.so die with
  // SIGBUS, and a FIFO given as the library never returns from dlopen.
  if (!opts.noNvml)
    request.readNvml = [&opts] { return doctor::readNvmlInChild(opts.nvmlLibrary, kNvmlTimeoutSeconds); };
  const discover::HostDiscovery found = discover::discoverHost(request);
  for (const discover::Finding& f : found.findings)
    std::cerr << "railtune topo discover: " << severityWord(f.severity) << ": " << f.text << "\n";
  if (!found.refusal.empty()) throw std::runtime_error(found.refusal);
  if (found.noGpu) {
    std::cerr << "railtune topo discover: no NVIDIA GPU found on " << found.found.fabric.hosts.front().name
              << " (hwloc and NVML list none): not a GPU compute host, nothing to describe\n";
    return found.found.hasErrors() ? 1 : 0;
  }
  for (const fabric::Diagnostic& d : found.diagnostics.all()) std::cerr << d.str() << "\n";
  const int written = writeOutput(fabric::writeFabricYaml(found.found.fabric, found.header), opts.out);
  if (written != 0) return written;
  return found.found.hasErrors() || found.diagnostics.hasErrors() ? 1 : 0;
}

}  // namespace

Command addTopoDiscoverCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("discover", "describe this host (hwloc, sysfs, NVML) in the full fabric form");
  auto opts = std::make_shared<DiscoverCliOptions>();
  app->add_option("--host", opts->request.assemble.host,
                  "host name (default: RAILTUNE_HOST, NCCL_HOSTID, else the hostname)");
  app->add_option("--domain", opts->request.assemble.domain,
                  "NVLink domain name (default: from the NVLink clique, else the host name)");
  app->add_option("--rack", opts->request.assemble.rack, "physical rack (default: the domain name)");
  app->add_option("--profile", opts->request.assemble.profile,
                  "hardware profile to check against (default: guessed from the GPUs; none: no profile)");
  app->add_option("--hca", opts->request.assemble.hcas,
                  "compute NICs, by RDMA device name (default: see docs/fabric.md)")
      ->delimiter(',');
  app->add_option("--hwloc-xml", opts->request.hwlocXml,
                  "read this hwloc XML export (lstopo --of xml) instead of hwloc")
      ->check(CLI::ExistingFile);
  app->add_flag("--no-hwloc", opts->request.noHwloc,
                "do not read hwloc (NICs pair with GPUs by NUMA node, else bus order)")
      ->excludes("--hwloc-xml");
  app->add_option("--sysfs-root", opts->request.sysfsRoot, "directory holding sys/class/{infiniband,net} (default: /)")
      ->check(CLI::ExistingDirectory);
  app->add_option("--nvml-library", opts->nvmlLibrary, "NVML library to load (default: libnvidia-ml.so.1)");
  app->add_flag("--no-nvml", opts->noNvml, "do not load NVML");
  CLI::Option* labels =
      app->add_option("--node-labels", opts->request.nodeLabels,
                      "node labels (kubectl get node NAME -o json) to check nvidia.com/gpu.clique against NVML")
          ->check(CLI::ExistingFile);
  app->add_option("--clique-label", opts->request.assemble.cliqueLabel,
                  "the node's nvidia.com/gpu.clique value to check against NVML (\"\" = label absent)")
      ->excludes(labels)
      ->each([opts](const std::string&) { opts->cliqueLabelSet = true; });
  app->add_option("--out", opts->out, "write the description here instead of stdout");
  return {app, [opts] { return runDiscover(*opts); }};
}

}  // namespace railtune::cli
