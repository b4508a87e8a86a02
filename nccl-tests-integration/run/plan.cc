// The sweep's plan (plan.h).
#include "nccl-tests-integration/run/plan.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <utility>

#include "common/byte_size.h"
#include "nccl-tests-integration/dataset/tuner_rules_json.h"

namespace railtune::sweep {
namespace {

// NCCL's name of a collective in its messages (ncclFuncToString).
std::string_view ncclFunctionName(std::string_view collective) {
  if (collective == "allreduce") return "AllReduce";
  if (collective == "allgather") return "AllGather";
  if (collective == "reducescatter") return "ReduceScatter";
  if (collective == "broadcast") return "Broadcast";
  if (collective == "reduce") return "Reduce";
  return collective;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

template <typename T>
std::vector<T> withoutRepeats(const std::vector<T>& items) {
  std::vector<T> out;
  for (const T& item : items)
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  return out;
}

// NCCL_ALGO/NCCL_PROTO and the rest of what one run sets, and its command line.
void completeRun(const SweepSpec& spec, const std::string& collective, PlannedRun& run) {
  const Choice& c = run.choice;
  if (!c.algorithm.empty()) run.env["NCCL_ALGO"] = ncclAlgorithmName(c.algorithm);
  if (!c.protocol.empty()) run.env["NCCL_PROTO"] = ncclProtocolName(c.protocol);
  if (c.channels > 0) {
    run.env["NCCL_MIN_NCHANNELS"] = std::to_string(c.channels);
    run.env["NCCL_MAX_NCHANNELS"] = std::to_string(c.channels);
  }
  if (c.chunkSize > 0) {
    run.rulesFile = spec.dir + "/tuner-rules/" + collective + "." + idLabel(c) + ".json";
    run.rulesText = tunerRulesText(collective, c);
    run.env["NCCL_TUNER_PLUGIN"] = spec.tunerPlugin;
    run.env["RAILTUNE_TUNER_CONFIG"] = run.rulesFile;
    run.env["RAILTUNE_SWEEP_CHUNK_SIZE"] = std::to_string(c.chunkSize);
  }
  for (const auto& [name, value] : run.netEnv) run.env[name] = value;
  run.env["RAILTUNE_SWEEP_RUN_ID"] = run.id;
  if (spec.setNcclDebug && spec.probe && isProbeRun(c, run.repeat)) {
    run.env["NCCL_DEBUG"] = "INFO";  // WARN lines still print: a rejection is still told
    run.env["NCCL_DEBUG_SUBSYS"] = "INIT,ENV";
  } else if (spec.setNcclDebug) {
    run.env["NCCL_DEBUG"] = "WARN";
  }
  run.output = "runs/" + run.id + ".txt";
  if (spec.json) run.json = "runs/" + run.id + ".json";

  run.command = spec.launcher;
  if (launcherNeedsExport(spec.launcher)) {
    for (const auto& entry : run.env) {
      run.command.push_back("-x");
      run.command.push_back(entry.first);
    }
  }
  run.command.push_back(spec.binary);
  run.command.insert(run.command.end(), spec.args.begin(), spec.args.end());
  if (spec.json) {
    run.command.push_back("-J");
    run.command.push_back(spec.dir + "/" + run.json);
  }
}

void checkName(const std::string& name, const auto& known, const char* option) {
  if (name.empty()) return;
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw std::invalid_argument(std::string(option) + ": unknown name '" + name + "' (known: " + list + ", any)");
  }
}

// Every algorithm × protocol × channel count × chunk size but NCCL's own choice, in that order.
std::vector<Choice> forcedChoices(const std::vector<std::string>& algorithms, const std::vector<std::string>& protocols,
                                  const std::vector<int>& channels, const std::vector<uint64_t>& chunks) {
  std::vector<Choice> choices;
  for (const std::string& a : algorithms)
    for (const std::string& p : protocols)
      for (int ch : channels)
        for (uint64_t chunk : chunks) {
          Choice c;
          c.algorithm = a;
          c.protocol = p;
          c.channels = ch;
          c.chunkSize = chunk;
          if (c.isDefault()) continue;  // "any" × "any": the default run, planned anyway
          if (chunk > 0 && (a.empty() || p.empty()))
            throw std::invalid_argument(
                "--chunk-sizes needs a forced algorithm and protocol (the tuner rule that forces the chunk size "
                "names both): drop 'any' from --algos and --protos");
          choices.push_back(std::move(c));
        }
  return choices;
}

}  // namespace

std::vector<std::string> defaultAlgorithms(std::string_view collective) {
  if (collective == "allreduce") return {"ring", "tree", "nvls", "nvls_tree"};
  if (collective == "allgather" || collective == "reducescatter") return {"ring", "nvls", "pat"};
  if (collective == "broadcast" || collective == "reduce") return {"ring"};
  return {};
}

std::vector<std::string> defaultProtocols() {
  return {"ll", "ll128", "simple"};
}

std::optional<std::string> testFromBinaryName(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (endsWith(name, "_mpi")) name.remove_suffix(4);
  if (!endsWith(name, "_perf")) return std::nullopt;
  name.remove_suffix(5);
  for (const auto& [stem, collective] : ncclTestsPrograms()) {
    if (!endsWith(name, stem)) continue;
    const size_t before = name.size() - stem.size();
    if (before == 0 || name[before - 1] == '_' || name[before - 1] == '-') return std::string(stem) + "_perf";
  }
  return std::nullopt;
}

std::string neverOffered(std::string_view collective, const Choice& choice) {
  const std::string& a = choice.algorithm;
  const std::string& p = choice.protocol;
  const std::string function(ncclFunctionName(collective));
  if ((collective == "broadcast" || collective == "reduce") && !a.empty() && a != "ring")
    return "NCCL runs " + function + " with Ring only (src/graph/tuning.cc:294@v2.30.7)";
  if ((collective == "allgather" || collective == "reducescatter") && !a.empty() && a != "ring" && a != "pat" &&
      a != "nvls" && a != "collnet_direct")
    return "NCCL runs " + function + " with Ring, PAT, NVLS or CollNet Direct only (src/graph/tuning.cc:295@v2.30.7)";
  if (collective == "allreduce" && a == "pat")
    return "NCCL never runs AllReduce with PAT (src/graph/tuning.cc:298@v2.30.7)";
  if ((a == "nvls" || a == "nvls_tree") && !p.empty() && p != "simple")
    return "NCCL runs " + ncclAlgorithmName(a) + " with the Simple protocol only (src/graph/tuning.cc:301@v2.30.7)";
  if (a == "pat" && !p.empty() && p != "simple")
    return "NCCL runs PAT with the Simple protocol only (src/graph/tuning.cc:302@v2.30.7)";
  return "";
}

std::string runId(std::string_view collective, const Choice& choice, const NetEnv& netEnv, int repeat) {
  const std::string setting = netEnvTag(netEnv);
  return std::string(collective) + "." + idLabel(choice) + (setting.empty() ? "" : "." + setting) + ".r" +
         std::to_string(repeat);
}

std::string idLabel(const Choice& choice) {
  if (choice.isDefault()) return "default";
  std::string label;
  const auto add = [&](const std::string& part) {
    if (!part.empty()) label += (label.empty() ? "" : "-") + part;
  };
  add(choice.algorithm);
  add(choice.protocol);
  if (choice.channels > 0) add("ch" + std::to_string(choice.channels));
  if (choice.chunkSize > 0) add("chunk" + byteSizeLabel(choice.chunkSize));
  return label;
}

std::string tunerRulesText(std::string_view collective, const Choice& choice) {
  std::string rule;
  formats::JsonAppender json(&rule);
  json.beginObject();
  if (tunerCollective(collective)) json.key("collective").string(collective);
  appendRuleChoice(json, choice);
  json.endObject();
  return tunerRulesDocument("railtune sweep run: forces " + choice.label(), {rule}, RulesLayout::kOneLine);
}

bool isProbeRun(const Choice& c, int repeat) {
  return repeat == 0 && c.algorithm.empty() && c.protocol.empty() && c.channels == 0 && c.chunkSize == 0;
}

bool launcherNeedsExport(const std::vector<std::string>& launcher) {
  if (launcher.empty()) return false;
  const std::string& first = launcher.front();
  const size_t slash = first.rfind('/');
  const std::string name = slash == std::string::npos ? first : first.substr(slash + 1);
  return name == "mpirun" || name == "mpiexec" || name == "orterun" || name == "prterun";
}

Plan makePlan(const SweepSpec& spec) {
  Plan plan;
  plan.test = spec.test;
  plan.collective = collectiveOfTest(spec.test);
  if (plan.collective.empty()) throw std::invalid_argument("--test " + spec.test + ": not an nccl-tests program name");
  if (spec.repeats < 1) throw std::invalid_argument("--repeats must be at least 1");

  std::vector<std::string> algorithms = withoutRepeats(spec.algorithms);
  std::vector<std::string> protocols = withoutRepeats(spec.protocols);
  const std::vector<int> channels = spec.channels.empty() ? std::vector<int>{0} : withoutRepeats(spec.channels);
  const std::vector<uint64_t> chunks =
      spec.chunkSizes.empty() ? std::vector<uint64_t>{0} : withoutRepeats(spec.chunkSizes);
  for (const std::string& a : algorithms) checkName(a, algorithmNames(), "--algos");
  for (const std::string& p : protocols) checkName(p, protocolNames(), "--protos");
  for (int c : channels)
    if (c < 0 || c > 64) throw std::invalid_argument("--channels: " + std::to_string(c) + " is not 1 to 64 (or 0)");
  for (uint64_t c : chunks)
    if (c > (1ull << 30)) throw std::invalid_argument("--chunk-sizes: " + byteSizeLabel(c) + " is above 1G");
  if (algorithms.empty()) algorithms = defaultAlgorithms(plan.collective);
  if (protocols.empty()) protocols = defaultProtocols();

  const bool matrix = tunerCollective(plan.collective);
  if (!matrix) {
    plan.notes.push_back(spec.test +
                         " runs point-to-point operations, which NCCL_ALGO and NCCL_PROTO do not "
                         "steer: only NCCL's own choice is run");
    algorithms.clear();
  }
  const std::vector<Choice> choices = forcedChoices(algorithms, protocols, channels, chunks);
  const std::vector<NetEnv> settings = envCombinations(spec.env);

  std::set<std::string> ids;
  for (int r = 0; r < spec.repeats; ++r) {
    for (size_t s = 0; s < settings.size(); ++s) {
      const auto add = [&](const Choice& choice) {
        PlannedRun run;
        run.choice = choice;
        run.repeat = r;
        run.netEnv = settings[s];
        run.notRun = neverOffered(plan.collective, choice);
        if (!run.notRun.empty() && (r > 0 || s > 0)) return;  // one "not run" entry per choice is enough
        run.id = runId(plan.collective, choice, run.netEnv, r);
        if (!ids.insert(run.id).second) throw std::invalid_argument("two runs would have the id " + run.id);
        completeRun(spec, plan.collective, run);
        plan.runs.push_back(std::move(run));
      };
      add(Choice{});  // NCCL's own choice under this setting: what the forced ones are judged against
      for (const Choice& c : choices) add(c);
    }
  }
  return plan;
}

std::vector<std::string> splitCommandLine(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (inWord) words.push_back(std::move(word));
      word.clear();
      inWord = false;
    } else if (c == '\\') {
      if (i + 1 == text.size()) throw std::invalid_argument("ends with a lone backslash");
      word += text[++i];
      inWord = true;
    } else if (c == '\'') {
      const size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) throw std::invalid_argument("a ' is not closed");
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
      inWord = true;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("$`\"\\\n").find(text[j + 1]) != std::string_view::npos)
          ++j;
        word += text[j];
      }
      if (j >= text.size()) throw std::invalid_argument("a \" is not closed");
      i = j;
      inWord = true;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push_back(std::move(word));
  return words;
}

}  // namespace railtune::sweep
