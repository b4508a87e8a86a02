// `railtune sweep run`'s request turned into a sweep (spec.h).
#include "nccl-tests-integration/run/spec.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "common/byte_size.h"
#include "nccl-tests-integration/run/call_options.h"
#include "nccl-tests-integration/run/manifest.h"
#include "nccl-tests-integration/run/process.h"
#include "nccl-tests-integration/run/runner.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

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

std::vector<std::string> algorithmOption(const std::string& given) {
  std::vector<std::string> out;
  for (const std::string& name : listItems(given, "--algos")) {
    if (name == "any") {
      out.emplace_back();
    } else if (const std::optional<std::string> rule = algorithmFromNccl(name)) {
      out.push_back(*rule);
    } else {
      throw std::invalid_argument("--algos: unknown algorithm '" + name +
                                  "' (ring, tree, nvls, nvls_tree, pat, collnet_direct, collnet_chain, or any)");
    }
  }
  return out;
}

std::vector<std::string> protocolOption(const std::string& given) {
  std::vector<std::string> out;
  for (const std::string& name : listItems(given, "--protos")) {
    if (name == "any") {
      out.emplace_back();
    } else if (const std::optional<std::string> rule = protocolFromNccl(name)) {
      out.push_back(*rule);
    } else {
      throw std::invalid_argument("--protos: unknown protocol '" + name + "' (ll, ll128, simple, or any)");
    }
  }
  return out;
}

std::vector<int> channelOption(const std::string& given) {
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

std::vector<uint64_t> chunkSizeOption(const std::string& given) {
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

// The launcher's words and the binary as it goes on the command line, with its arguments.
void resolveCommand(const SweepRequest& r, SweepSpec& spec, std::vector<std::string>& notes) {
  try {
    spec.launcher = splitCommandLine(r.launcher);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--launcher: " + std::string(e.what()));
  }
  if (!spec.launcher.empty() && !findExecutable(spec.launcher.front()))
    throw std::invalid_argument("--launcher: " + spec.launcher.front() + " not found" +
                                (spec.launcher.front().find('/') == std::string::npos ? " in PATH" : ""));

  const std::string& binary = r.command.front();
  const std::optional<std::string> found = findExecutable(binary);
  if (!found && spec.launcher.empty())
    throw std::invalid_argument(
        binary + ": " + (binary.find('/') == std::string::npos ? "not found in PATH" : "not an executable file"));
  if (!found) notes.push_back(binary + " is not found here: the launcher must find it where it runs");
  // Alone, the binary as found (absolute, so that the manifest says which); after a launcher, as given: the
  // launcher finds it where the ranks run.
  spec.binary = spec.launcher.empty() ? fs::absolute(*found).lexically_normal().string() : binary;
  spec.args.assign(r.command.begin() + 1, r.command.end());
  for (const std::string& arg : spec.args)
    if (namesOutputFile(arg))
      throw std::invalid_argument(arg + ": the sweep gives each run its own -J file (--json on|off|auto)");
}

// The nccl-tests program: --test, else the binary's name.
std::string testOf(const SweepRequest& r) {
  if (!r.test.empty()) {
    std::string test = r.test.size() > 5 && r.test.substr(r.test.size() - 5) == "_perf" ? r.test : r.test + "_perf";
    if (collectiveOfTest(test).empty())
      throw std::invalid_argument("--test " + r.test +
                                  ": not an nccl-tests program (all_reduce_perf, all_gather_perf, ...)");
    return test;
  }
  const std::string& binary = r.command.front();
  if (const std::optional<std::string> test = testFromBinaryName(binary)) return *test;
  throw std::invalid_argument(binary +
                              ": cannot tell the nccl-tests program from the name; pass --test all_reduce_perf");
}

// -J: forced on or off, or (auto) asked of the binary with -h where it is here to ask. Returns the note.
std::string decideJson(const SweepRequest& r, SweepSpec& spec) {
  if (r.json == "on") spec.json = true;
  if (r.json != "auto") return "";
  if (r.dryRun) return "--json auto: -J is added when `" + spec.binary + " -h` lists it (not probed in a dry run)";
  if (const std::optional<std::string> local = findExecutable(r.command.front())) {
    const JsonProbe probe = probeJsonSupport(*local, spec.dir);
    spec.json = probe.supported;
    return probe.note;
  }
  return "--json auto: " + r.command.front() + " is not here to ask: text output only (--json on forces -J)";
}

// The forcing variables of the caller's environment, removed from every run's, and the tuner variables kept.
void noteEnvironment(PreparedSweep& sweep) {
  for (const char* name : kForcingVariables) {
    if (std::getenv(name) == nullptr) continue;
    sweep.unset.emplace_back(name);
    sweep.notes.push_back(std::string(name) + "=" + std::getenv(name) +
                          " is removed from every run's environment (the sweep forces it per run)");
  }
  for (const EnvAxis& axis : sweep.spec.env) {
    const char* value = std::getenv(axis.name.c_str());
    if (value == nullptr) continue;
    sweep.unset.push_back(axis.name);
    sweep.notes.push_back(axis.name + "=" + value +
                          " is removed from every run's environment (the --env matrix sets it per run)");
  }
  for (const char* name : kTunerVariables)
    if (std::getenv(name) != nullptr)
      sweep.notes.push_back(std::string(name) + "=" + std::getenv(name) +
                            " is set: NCCL's own choice is measured with that tuner loaded");
}

// -R 2, -D, -x: asked of the binary's -h where it is here (not in a dry run), and told to the user.
void checkCallSupport(const SweepRequest& r, PreparedSweep& sweep) {
  const CallMode& call = sweep.spec.call;
  if (call.isDefault()) return;
  for (std::string& note : callOptionNotes(call)) sweep.notes.push_back(std::move(note));
  if (r.dryRun) return;
  const std::optional<std::string> local = findExecutable(r.command.front());
  if (!local) return;
  const JsonProbe probe = probeJsonSupport(*local, sweep.spec.dir);
  if (probe.help.empty()) return;
  if (const std::string why = unsupportedCallOptions(call, probe.help); !why.empty())
    throw std::invalid_argument(why + ": " + *local + " -h does not list it");
}

}  // namespace

SweepSpec makeSpec(const SweepRequest& r, std::vector<std::string>& notes) {
  SweepSpec spec;
  if (r.command.empty())
    throw std::invalid_argument("the nccl-tests binary is missing: ... -- all_reduce_perf -b 8 -e 16G");
  if (r.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");
  if (r.timeout < 0) throw std::invalid_argument("--timeout must not be negative");
  resolveCommand(r, spec, notes);
  spec.test = testOf(r);
  spec.algorithms = algorithmOption(r.algos);
  spec.protocols = protocolOption(r.protos);
  spec.channels = channelOption(r.channels);
  spec.chunkSizes = chunkSizeOption(r.chunkSizes);
  for (const std::string& axis : r.env) spec.env.push_back(parseEnvAxis(axis));
  spec.repeats = r.repeats;
  spec.nvlDomains = r.nvlDomains;
  spec.mnnvl = r.mnnvl;
  spec.setNcclDebug = std::getenv("NCCL_DEBUG") == nullptr;
  spec.probe = spec.setNcclDebug && std::getenv("NCCL_DEBUG_SUBSYS") == nullptr;
  spec.fabric = r.fabric;
  spec.call = readCallOptions(spec.args);
  if (!spec.chunkSizes.empty()) {
    spec.tunerPlugin = r.tunerPlugin.empty() ? r.defaultTunerPlugin : r.tunerPlugin;
    if (!fs::exists(spec.tunerPlugin)) {
      if (spec.launcher.empty())
        throw std::invalid_argument("--chunk-sizes needs the railtune tuner plugin: " + spec.tunerPlugin +
                                    " does not exist (--tuner-plugin PATH)");
      notes.push_back("the tuner plugin " + spec.tunerPlugin + " is not found here: the ranks must find it there");
    }
  }
  return spec;
}

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

PreparedSweep prepareSweep(const SweepRequest& request) {
  PreparedSweep sweep;
  sweep.spec = makeSpec(request, sweep.notes);
  sweep.spec.dir = prepareOutputFolder(request.output, !request.dryRun);
  sweep.jsonNote = decideJson(request, sweep.spec);
  checkCallSupport(request, sweep);
  sweep.plan = makePlan(sweep.spec);
  noteEnvironment(sweep);
  sweep.notes.insert(sweep.notes.end(), sweep.plan.notes.begin(), sweep.plan.notes.end());
  if (!request.dryRun && !sweep.jsonNote.empty()) sweep.notes.push_back(sweep.jsonNote);
  return sweep;
}

std::set<std::string> runsDoneBefore(const PreparedSweep& sweep, bool restart) {
  const std::string manifestPath = sweep.spec.dir + "/" + std::string(kManifestFileName);
  std::error_code ec;
  if (restart || !fs::is_regular_file(manifestPath, ec)) return {};
  std::string text;
  if (std::FILE* file = std::fopen(manifestPath.c_str(), "rb")) {
    char buffer[65536];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, got);
    std::fclose(file);
  }
  return finishedRuns(readManifestText(text), sweep.plan, manifestPath);
}

}  // namespace railtune::sweep
