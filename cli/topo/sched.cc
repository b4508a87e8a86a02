// `railtune topo labels | hypernodes | kueue | slurm | env`: what the schedulers and the launcher
// read, from the cluster description (--fabric FILE, default the built-in cluster), written to
// stdout or --out PATH. See docs/scheduling.md.
#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "cli/launcher_options.h"
#include "cli/topo/topo.h"
#include "topo_gen/hypernodes.h"
#include "topo_gen/kueue.h"
#include "topo_gen/labels.h"
#include "topo_gen/launcher_env.h"
#include "topo_gen/measured_net.h"  // measuredNcclDecisions, for --why
#include "topo_gen/slurm.h"

namespace railtune::cli {
namespace {

struct Common {
  std::string fabricPath;
  std::string outPath;  // "" = stdout
};

// `topo env --why`: the policy's lines, then the measured variables outside it, as shell comments, so the output
// stays a script to source.
std::string qpPolicyComments(const qp::QpPolicy& policy, const std::vector<qp::Decision>& measured) {
  std::string text;
  std::string lines = qp::describe(policy, false);
  for (const qp::Decision& d : measured) lines += d.variable + "=" + d.value + ": " + d.source + "\n";
  for (size_t begin = 0, end = 0; begin < lines.size(); begin = end + 1) {
    end = std::min(lines.find('\n', begin), lines.size());
    text += "# " + lines.substr(begin, end - begin) + "\n";
  }
  return text;
}

void addCommonOptions(CLI::App& app, Common& common) {
  addFabricOption(app, common.fabricPath);
  app.add_option("--out", common.outPath, "write here instead of stdout");
}

}  // namespace

Command addTopoLabelsCommand(CLI::App& topo) {
  CLI::App* app =
      topo.add_subcommand("labels", "Kubernetes node labels (railtune.io/...), as JSON or a kubectl script");
  auto common = std::make_shared<Common>();
  auto format = std::make_shared<std::string>("json");
  auto compat = std::make_shared<std::string>();
  addCommonOptions(*app, *common);
  app->add_option("--format", *format, "json (node -> labels) or kubectl (a `kubectl label node` script)")
      ->check(CLI::IsMember({"json", "kubectl"}))
      ->capture_default_str();
  app->add_option("--compat", *compat, "also write the keys of another tool: topograph")
      ->check(CLI::IsMember({"topograph"}));
  return {app, [=] {
            const auto nodes = topo::nodeLabels(loadFabricOption(common->fabricPath), {*compat == "topograph"});
            return writeOutput(*format == "json" ? topo::labelsJson(nodes) : topo::labelsKubectlScript(nodes),
                               common->outPath);
          }};
}

Command addTopoHyperNodesCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("hypernodes", "Volcano HyperNodes: NVLink domains, rail groups, spines");
  auto common = std::make_shared<Common>();
  addCommonOptions(*app, *common);
  return {app, [=] {
            const auto nodes = topo::hyperNodes(loadFabricOption(common->fabricPath));
            return writeOutput(topo::hyperNodesYaml(nodes), common->outPath);
          }};
}

Command addTopoKueueCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("kueue", "Kueue Topology: levels by railtune's node labels");
  auto common = std::make_shared<Common>();
  auto name = std::make_shared<std::string>();
  addCommonOptions(*app, *common);
  auto apiVersion = std::make_shared<std::string>(topo::kKueueApiVersions[0]);
  app->add_option("--name", *name, "the Topology's name; default: the cluster's name");
  app->add_option("--api-version", *apiVersion,
                  "Kueue's API version: v1beta2 (Kueue 0.15 and later) or v1beta1 (deprecated, for older Kueue)")
      ->check(CLI::IsMember({"v1beta2", "v1beta1"}))
      ->capture_default_str();
  return {app, [=] {
            return writeOutput(topo::kueueTopologyYaml(loadFabricOption(common->fabricPath), *name, *apiVersion),
                               common->outPath);
          }};
}

Command addTopoSlurmCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("slurm", "Slurm topology.conf for topology/block or topology/tree");
  auto common = std::make_shared<Common>();
  auto plugin = std::make_shared<std::string>("block");
  addCommonOptions(*app, *common);
  app->add_option("--plugin", *plugin, "block (one block per NVLink domain) or tree (the switch hierarchy)")
      ->check(CLI::IsMember({"block", "tree"}))
      ->capture_default_str();
  return {app, [=] {
            const auto kind = *plugin == "block" ? topo::SlurmTopologyPlugin::Block : topo::SlurmTopologyPlugin::Tree;
            return writeOutput(topo::slurmTopologyConf(loadFabricOption(common->fabricPath), kind), common->outPath);
          }};
}

Command addTopoEnvCommand(CLI::App& topo) {
  CLI::App* app = topo.add_subcommand("env", "the NCCL_* environment for one host (and local rank) as export lines");
  auto common = std::make_shared<Common>();
  auto options = std::make_shared<LauncherCliOptions>();
  addCommonOptions(*app, *common);
  app->add_option("--host", options->env.host, "the host; default: the first host of the fabric");
  addLauncherOptions(*app, *options);
  auto why = std::make_shared<bool>(false);
  app->add_flag("--why", *why,
                "before the exports, a comment line per QP-policy variable (NCCL_IB_QPS_PER_CONNECTION...): its "
                "value and source, also where NCCL's default is kept (docs/qp-policy.md)");
  return {app, [=] {
            const fabric::Fabric model = loadFabricOption(common->fabricPath);
            topo::LauncherEnvOptions env = resolveLauncherOptions(*options);
            if (env.host.empty() && !model.hosts.empty()) env.host = model.hosts.front().name;
            env.env = processEnv;
            applyMeasured(*options, model, env, "topo env");
            const topo::EnvVars vars = topo::launcherEnv(model, env);
            const qp::QpPolicy policy = topo::launcherQpPolicy(model, env);
            for (const std::string& warning : policy.warnings)
              std::cerr << "railtune topo env: warning: " << warning << "\n";
            for (const std::string& warning : launcherFileWarnings(vars))
              std::cerr << "railtune topo env: warning: " << warning << "\n";
            const std::string comments =
                *why ? qpPolicyComments(policy, topo::measuredNcclDecisions(env.measured, env.env)) : "";
            return writeOutput(comments + topo::exportLines(vars), common->outPath);
          }};
}

}  // namespace railtune::cli
