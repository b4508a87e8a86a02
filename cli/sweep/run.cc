// `railtune sweep run -o DIR [--launcher L] [--algos ...] [--protos ...] [--channels ...] [--chunk-sizes ...]
// [--repeats N] [--timeout S] [--json auto|on|off] [--dry-run] [--restart] -- BINARY ARGS...`: an nccl-tests
// binary run over a matrix of NCCL choices, NCCL's own first (nccl-tests-integration/run/; docs/sweep.md,
// "Running a sweep"). Exit status: 0 every run ok or rejected by NCCL, 1 a run failed, 2 bad usage or an
// unusable folder, 128+N stopped by signal N (130 for Ctrl-C).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/sweep/sweep.h"
#include "common/byte_size.h"
#include "common/shell_quote.h"
#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/plan.h"
#include "nccl-tests-integration/run/process.h"
#include "nccl-tests-integration/run/runner.h"

namespace railtune::cli {
namespace sweep_run_cli {
namespace {

namespace fs = std::filesystem;

struct SweepRunOptions {
  std::string output;
  std::string launcher;
  std::string algos, protos, channels, chunkSizes;  // comma-separated lists
  int repeats = 1;
  int nvlDomains = 0;
  std::string mnnvl;
  double timeout = 0;
  std::string json = "auto";
  std::string tunerPlugin;
  std::string test;
  bool dryRun = false;
  bool restart = false;
  std::vector<std::string> command;
};

// Variables that force a choice: a sweep sets them per run, so the user's own values would spoil every run.
constexpr const char* kForcingVariables[] = {"NCCL_ALGO",
                                             "NCCL_PROTO",
                                             "NCCL_MIN_NCHANNELS",
                                             "NCCL_MAX_NCHANNELS",
                                             "RAILTUNE_SWEEP_CHUNK_SIZE",
                                             "RAILTUNE_SWEEP_RUN_ID"};
// Variables that load a tuner, which may move NCCL's own choice in the default run.
constexpr const char* kTunerVariables[] = {"NCCL_TUNER_PLUGIN", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_CONFIG"};

// A comma-separated list; blanks around items are dropped, empty items refused.
std::vector<std::string> listItems(const std::string& text, const char* option) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) throw std::invalid_argument(std::string(option) + " " + text + ": an empty item");
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<std::string> algorithmNames(const std::string& given) {
  std::vector<std::string> out;
  for (const std::string& name : listItems(given, "--algos")) {
    if (name == "any") {
      out.emplace_back();
    } else if (const std::optional<std::string> rule = sweep::algorithmFromNccl(name)) {
      out.push_back(*rule);
    } else {
      throw std::invalid_argument("--algos: unknown algorithm '" + name +
                                  "' (ring, tree, nvls, nvls_tree, pat, collnet_direct, collnet_chain, or any)");
    }
  }
  return out;
}

std::vector<std::string> protocolNames(const std::string& given) {
  std::vector<std::string> out;
  for (const std::string& name : listItems(given, "--protos")) {
    if (name == "any") {
      out.emplace_back();
    } else if (const std::optional<std::string> rule = sweep::protocolFromNccl(name)) {
      out.push_back(*rule);
    } else {
      throw std::invalid_argument("--protos: unknown protocol '" + name + "' (ll, ll128, simple, or any)");
    }
  }
  return out;
}

std::vector<int> channelCounts(const std::string& given) {
  std::vector<int> out;
  for (const std::string& text : listItems(given, "--channels")) {
    const std::optional<uint64_t> count =
        text.find_first_not_of("0123456789") == std::string::npos ? parseByteSize(text) : std::nullopt;
    if (!count || *count > 64)
      throw std::invalid_argument("--channels: '" + text + "' is not a channel count from 1 to 64 (or 0: NCCL's own)");
    out.push_back(static_cast<int>(*count));
  }
  return out;
}

std::vector<uint64_t> chunkSizes(const std::string& given) {
  std::vector<uint64_t> out;
  for (const std::string& text : listItems(given, "--chunk-sizes")) {
    const std::optional<uint64_t> size = parseByteSize(text);
    if (!size || *size > (1ull << 30))
      throw std::invalid_argument("--chunk-sizes: '" + text + "' is not a size from 1 to 1G (e.g. 128K, 512K, 1M)");
    out.push_back(*size);
  }
  return out;
}

bool namesOutputFile(const std::string& arg) {
  return arg == "-J" || arg.rfind("--output_file", 0) == 0 || (arg.size() > 2 && arg.rfind("-J", 0) == 0);
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + shellQuote(w);
  return out;
}

std::string defaultTunerPlugin() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "libnccl-tuner-railtune.so";
  return (self.parent_path().parent_path() / "lib" / "libnccl-tuner-railtune.so").lexically_normal().string();
}

// The folder: absolute; for a real run created and writable.
std::string prepareOutputFolder(const std::string& given, bool create) {
  std::error_code ec;
  const std::string dir = fs::absolute(given, ec).lexically_normal().string();
  const std::string clean = dir.size() > 1 && dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir;
  if (fs::exists(clean, ec) && !fs::is_directory(clean, ec))
    throw std::invalid_argument("-o " + given + " exists and is not a folder");
  if (!create) return clean;
  fs::create_directories(clean, ec);
  if (ec) throw std::invalid_argument("-o " + given + ": cannot create the folder: " + ec.message());
  if (access(clean.c_str(), W_OK | X_OK) != 0)
    throw std::invalid_argument("-o " + given + ": the folder is not writable");
  return clean;
}

sweep::SweepSpec makeSpec(const SweepRunOptions& o, std::vector<std::string>& notes) {
  sweep::SweepSpec spec;
  if (o.command.empty())
    throw std::invalid_argument("the nccl-tests binary is missing: ... -- all_reduce_perf -b 8 -e 16G");
  if (o.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
  if (o.timeout < 0) throw std::invalid_argument("--timeout must not be negative");
  try {
    spec.launcher = sweep::splitCommandLine(o.launcher);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--launcher: " + std::string(e.what()));
  }
  if (!spec.launcher.empty() && !sweep::findExecutable(spec.launcher.front()))
    throw std::invalid_argument("--launcher: " + spec.launcher.front() + " not found" +
                                (spec.launcher.front().find('/') == std::string::npos ? " in PATH" : ""));

  const std::string& binary = o.command.front();
  const std::optional<std::string> found = sweep::findExecutable(binary);
  if (!found && spec.launcher.empty())
    throw std::invalid_argument(
        binary + ": " + (binary.find('/') == std::string::npos ? "not found in PATH" : "not an executable file"));
  if (!found) notes.push_back(binary + " is not found here: the launcher must find it where it runs");
  // Alone, the binary as found (absolute, so that the manifest says which); after a launcher, as given: the
  // launcher finds it where the ranks run.
  spec.binary = spec.launcher.empty() ? fs::absolute(*found).lexically_normal().string() : binary;
  spec.args.assign(o.command.begin() + 1, o.command.end());
  for (const std::string& arg : spec.args)
    if (namesOutputFile(arg))
      throw std::invalid_argument(arg + ": the sweep gives each run its own -J file (--json on|off|auto)");

  if (!o.test.empty()) {
    spec.test = o.test.size() > 5 && o.test.substr(o.test.size() - 5) == "_perf" ? o.test : o.test + "_perf";
    if (sweep::collectiveOfTest(spec.test).empty())
      throw std::invalid_argument("--test " + o.test +
                                  ": not an nccl-tests program (all_reduce_perf, all_gather_perf, ...)");
  } else if (const std::optional<std::string> test = sweep::testFromBinaryName(binary)) {
    spec.test = *test;
  } else {
    throw std::invalid_argument(binary +
                                ": cannot tell the nccl-tests program from the name; pass --test all_reduce_perf");
  }

  spec.algorithms = algorithmNames(o.algos);
  spec.protocols = protocolNames(o.protos);
  spec.channels = channelCounts(o.channels);
  spec.chunkSizes = chunkSizes(o.chunkSizes);
  spec.repeats = o.repeats;
  spec.nvlDomains = o.nvlDomains;
  spec.mnnvl = o.mnnvl;
  spec.setNcclDebug = std::getenv("NCCL_DEBUG") == nullptr;
  if (!spec.chunkSizes.empty()) {
    spec.tunerPlugin = o.tunerPlugin.empty() ? defaultTunerPlugin() : o.tunerPlugin;
    if (!fs::exists(spec.tunerPlugin)) {
      if (spec.launcher.empty())
        throw std::invalid_argument("--chunk-sizes needs the railtune tuner plugin: " + spec.tunerPlugin +
                                    " does not exist (--tuner-plugin PATH)");
      notes.push_back("the tuner plugin " + spec.tunerPlugin + " is not found here: the ranks must find it there");
    }
  }
  return spec;
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

int runSweepCommand(const SweepRunOptions& o) {
  std::vector<std::string> notes;
  sweep::SweepSpec spec = makeSpec(o, notes);
  spec.dir = prepareOutputFolder(o.output, !o.dryRun);

  std::string jsonNote;
  if (o.json == "on") {
    spec.json = true;
  } else if (o.json == "auto") {
    if (o.dryRun) {
      jsonNote = "--json auto: -J is added when `" + spec.binary + " -h` lists it (not probed in a dry run)";
    } else if (const std::optional<std::string> local = sweep::findExecutable(o.command.front())) {
      const sweep::JsonProbe probe = sweep::probeJsonSupport(*local, spec.dir);
      spec.json = probe.supported;
      jsonNote = probe.note;
    } else {
      jsonNote = "--json auto: " + o.command.front() + " is not here to ask: text output only (--json on forces -J)";
    }
  }
  const sweep::Plan plan = sweep::makePlan(spec);

  std::vector<std::string> unset;
  for (const char* name : kForcingVariables) {
    if (std::getenv(name) == nullptr) continue;
    unset.emplace_back(name);
    notes.push_back(std::string(name) + "=" + std::getenv(name) +
                    " is removed from every run's environment (the sweep forces it per run)");
  }
  for (const char* name : kTunerVariables)
    if (std::getenv(name) != nullptr)
      notes.push_back(std::string(name) + "=" + std::getenv(name) +
                      " is set: NCCL's own choice is measured with that tuner loaded");
  notes.insert(notes.end(), plan.notes.begin(), plan.notes.end());
  if (!o.dryRun && !jsonNote.empty()) notes.push_back(jsonNote);
  for (const std::string& note : notes) std::fprintf(stderr, "railtune sweep run: %s\n", note.c_str());

  const std::string manifestPath = spec.dir + "/" + std::string(sweep::kManifestFileName);
  if (o.dryRun) {
    std::set<std::string> done;
    std::error_code ec;
    if (!o.restart && fs::is_regular_file(manifestPath, ec)) {
      std::FILE* file = std::fopen(manifestPath.c_str(), "rb");
      std::string text;
      if (file != nullptr) {
        char buffer[65536];
        size_t got = 0;
        while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, got);
        std::fclose(file);
      }
      done = sweep::finishedRuns(sweep::readManifestText(text), plan, manifestPath);
    }
    printPlan(plan, spec, done, jsonNote);
    return 0;
  }

  sweep::catchInterrupts();
  sweep::RunnerOptions options;
  options.timeoutSeconds = o.timeout;
  options.restart = o.restart;
  options.unset = unset;
  options.progress = stderr;
  options.progressIsTerminal = isatty(STDERR_FILENO) != 0;
  const sweep::SweepResult result = sweep::runSweep(plan, spec, options);
  printSummary(result, spec);
  if (result.interruptSignal != 0) return 128 + result.interruptSignal;
  return result.failed > 0 ? 1 : 0;
}

}  // namespace
}  // namespace sweep_run_cli

Command addSweepRunCommand(CLI::App& sweep) {
  auto o = std::make_shared<sweep_run_cli::SweepRunOptions>();
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
  return {app, [o]() {
            try {
              return sweep_run_cli::runSweepCommand(*o);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "railtune sweep run: %s\n", e.what());
              return 2;
            }
          }};
}

}  // namespace railtune::cli
