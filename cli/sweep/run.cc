// `railtune sweep run -o DIR [--launcher L] [--algos ...] [--protos ...] [--channels ...] [--chunk-sizes ...]
// [--env NAME=V1,V2]... [--repeats N] [--timeout S] [--json auto|on|off] [--dry-run] [--restart] -- BINARY
// ARGS...`: an nccl-tests binary run over a matrix of NCCL choices (under each setting of --env), NCCL's own
// first (nccl-tests-integration/run/; docs/sweep.md, "Running a sweep"). Exit status: 0 every run ok or rejected by
// NCCL, 1 a run failed, 2 bad usage or an unusable folder, 128+N stopped by signal N (130 for Ctrl-C).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/plugin_files.h"
#include "cli/sweep/shape_options.h"
#include "cli/sweep/sweep.h"
#include "common/shell_quote.h"
#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/process.h"
#include "nccl-tests-integration/run/runner.h"
#include "nccl-tests-integration/run/spec.h"

namespace railtune::cli {
namespace sweep_run_cli {
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + shellQuote(w);
  return out;
}

void printPlan(const sweep::Plan& plan, const sweep::SweepSpec& spec, const std::set<std::string>& done,
               const std::string& jsonNote) {
  size_t notRun = 0;
  for (const sweep::PlannedRun& run : plan.runs) notRun += run.notRun.empty() ? 0 : 1;
  std::printf("sweep plan: %s (%s), %zu runs (%zu not run: NCCL never offers them), %s output, folder %s\n",
              plan.test.c_str(), plan.collective.c_str(), plan.runs.size() - notRun, notRun,
              spec.json ? "JSON (-J) and text" : "text", spec.dir.c_str());
  if (!jsonNote.empty()) std::printf("# %s\n", jsonNote.c_str());
  for (const sweep::PlannedRun& run : plan.runs) {
    if (!run.notRun.empty()) {
      std::printf("%s: not run: %s\n", run.id.c_str(), run.notRun.c_str());
      continue;
    }
    std::string env;
    for (const auto& [name, value] : run.env) env += name + "=" + shellQuote(value) + " ";
    std::printf("%s:%s %s%s\n", run.id.c_str(), done.count(run.id) > 0 ? " (done: skipped on resume)" : "", env.c_str(),
                joined(run.command).c_str());
  }
}

void printSummary(const sweep::SweepResult& r, const sweep::SweepSpec& spec) {
  std::printf(
      "sweep: %zu ok, %zu rejected by NCCL, %zu failed; %zu not run (NCCL never offers them); %zu already done\n", r.ok,
      r.rejected, r.failed, r.notRun, r.alreadyDone);
  for (const auto& [id, reason] : r.failures) std::printf("  failed: %s: %s\n", id.c_str(), reason.c_str());
  std::printf("manifest: %s/%s\n", spec.dir.c_str(), std::string(sweep::kManifestFileName).c_str());
  if (r.interruptSignal != 0) {
    std::printf("interrupted: run the same command again to resume\n");
  } else if (r.failed > 0) {
    std::printf("run the same command again to retry the failed runs (the others are kept)\n");
  }
  std::printf("next: railtune sweep parse %s -o %s/dataset.jsonl\n", shellQuote(spec.dir).c_str(),
              shellQuote(spec.dir).c_str());
}

// --rail-map FILE / --fabric FILE read now (a bad file is refused before any run) and recorded in the manifest.
std::optional<sweep::ManifestFabric> clusterOption(const std::string& railMap, const std::string& fabric) {
  if (!railMap.empty() && !fabric.empty()) throw std::invalid_argument("--rail-map and --fabric: give one of them");
  if (railMap.empty() && fabric.empty()) return std::nullopt;
  const bool fromFabric = !fabric.empty();
  const std::string path = std::filesystem::absolute(fromFabric ? fabric : railMap).string();
  sweep::ManifestFabric out;
  out.from = fromFabric ? sweep::ShapeSource::Fabric : sweep::ShapeSource::RailMap;
  out.file = path;
  out.fabric = clusterFacts(path, fromFabric).fabric;
  return out;
}

int runSweepCommand(const sweep::SweepRequest& request) {
  const sweep::PreparedSweep sweep = sweep::prepareSweep(request);
  for (const std::string& note : sweep.notes) std::fprintf(stderr, "railtune sweep run: %s\n", note.c_str());
  if (request.dryRun) {
    printPlan(sweep.plan, sweep.spec, sweep::runsDoneBefore(sweep, request.restart), sweep.jsonNote);
    return 0;
  }
  sweep::catchInterrupts();
  sweep::RunnerOptions options;
  options.timeoutSeconds = request.timeout;
  options.restart = request.restart;
  options.unset = sweep.unset;
  options.progress = stderr;
  options.progressIsTerminal = isatty(STDERR_FILENO) != 0;
  const sweep::SweepResult result = sweep::runSweep(sweep.plan, sweep.spec, options);
  printSummary(result, sweep.spec);
  if (result.interruptSignal != 0) return 128 + result.interruptSignal;
  return result.failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace sweep_run_cli

Command addSweepRunCommand(CLI::App& sweep) {
  auto o = std::make_shared<sweep::SweepRequest>();
  CLI::App* app = sweep.add_subcommand(
      "run", "run an nccl-tests binary over NCCL_ALGO x NCCL_PROTO (x channels, chunk sizes), NCCL's own choice first");
  app->add_option("-o,--output", o->output, "folder for the outputs and the manifest (created; a sweep there resumes)")
      ->required();
  app->add_option("--launcher", o->launcher,
                  "launcher command put before the binary, e.g. \"srun -N 2 --ntasks-per-node 4\" or \"mpirun -np 16 "
                  "-H a:8,b:8\" (default: none, one process, use -g N)");
  app->add_option("--algos", o->algos,
                  "algorithms: ring, tree, nvls, nvls_tree, pat, collnet_direct, collnet_chain, any (NCCL's own); "
                  "default: those the collective can use");
  app->add_option("--protos", o->protos, "protocols: ll, ll128, simple, any (NCCL's own); default: all three");
  app->add_option("--channels", o->channels,
                  "channel counts (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS), 0 = NCCL's own; default: NCCL's own");
  app->add_option("--chunk-sizes", o->chunkSizes,
                  "chunk sizes (128K, 512K, 1M), forced through the railtune tuner plugin (NCCL 2.30+); needs forced "
                  "algorithms and protocols");
  app->add_option("--repeats", o->repeats, "runs of each choice")->capture_default_str();
  app->add_option("--nvl-domains", o->nvlDomains, "NVLink domains of the communicator, recorded for `sweep parse`")
      ->check(CLI::Range(0, 1000000));
  app->add_option("--mnnvl", o->mnnvl, "whether NCCL runs with MNNVL (on|off), recorded for `sweep parse`")
      ->check(CLI::IsMember({"on", "off"}));
  app->add_option("--env", o->env,
                  "NAME=V1,V2,...: NCCL variable to measure under each value (repeatable: every combination, at most "
                  "64), each with NCCL's own choice and every forced one")
      ->allow_extra_args(false);
  auto cluster = std::make_shared<std::pair<std::string, std::string>>();
  app->add_option("--rail-map", cluster->first,
                  "rail map of the hosts: recorded for `sweep parse` (each host's NVLink domain, the network)");
  app->add_option("--fabric", cluster->second,
                  "cluster description (railtune topo): recorded for `sweep parse` (domains, the network)");
  app->add_option("--timeout", o->timeout, "seconds one run may take before it is killed (default: no limit)");
  app->add_option("--json", o->json, "-J JSON output: auto (when `BINARY -h` lists -J), on, off")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  app->add_option("--tuner-plugin", o->tunerPlugin,
                  "libnccl-tuner-railtune.so for --chunk-sizes (default: ../lib/ beside the railtune binary)");
  app->add_option("--test", o->test, "the nccl-tests program when the binary's name does not say (all_reduce_perf)");
  app->add_flag("--dry-run", o->dryRun, "print the plan (each run's id, environment and command) and run nothing");
  app->add_flag("--restart", o->restart,
                "forget the runs an earlier sweep in the folder recorded (the manifest is emptied)");
  app->add_option("command", o->command, "the nccl-tests binary and its arguments, after --")->required();
  return {app, [o, cluster]() {
            o->fabric = sweep_run_cli::clusterOption(cluster->first, cluster->second);
            o->defaultTunerPlugin = (defaultPluginDir() / "libnccl-tuner-railtune.so").string();
            return sweep_run_cli::runSweepCommand(*o);
          }};
}

}  // namespace railtune::cli
