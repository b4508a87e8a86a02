// See paths_emulated.h.
#include "eval/paths/paths_emulated.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "emulator/net_job/job_plan.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/schedule.h"
#include "eval/common/command.h"
#include "eval/paths/paths_job.h"
#include "formats/rail_map.h"

namespace railtune::eval::paths {
namespace {

namespace nj = emu::netjob;
namespace fs = std::filesystem;

constexpr int kJobSeconds = 120;      // net-job's own --timeout is below it, so the job reports its failure
constexpr int kAnalysisSeconds = 60;  // check and render of a 16-rank job take well under a second

// The job the seed chose, and what was injected into it.
struct EmulatedJob {
  int ranks = 0, racks = 0;
  std::vector<std::string> trays;  // net-job's --hosts, in rank order
  bool mnnvl = true;
  std::string collectives;
  size_t bytes = 0;
  std::set<nj::Edge> pluginEdges;  // sender -> receiver over the net plugin: one connection each
  std::set<std::string> hosts;     // hosts with a rank that has a plugin connection: the ones that log
  std::map<std::pair<std::string, int>, int> rankAt;  // (host, GPU) -> rank, from the plan
  int faultRank = -1;
  std::string from, to;          // RAILTUNE_NET_FAULT_MISBIND=from:to
  std::set<nj::Edge> violating;  // the truth
  std::string shape;
};

constexpr int kRankCounts[] = {8, 12, 16};  // 2 to 4 trays of the built-in cluster (4 GPUs each)
const char* const kCollectives[] = {"all-reduce,tree", "all-reduce", "tree", "all-gather,reduce-scatter"};

// Another GPU of the rank's host whose NIC is on another rail: the HCA a miswired cable would use instead.
std::string otherRailHca(const formats::RailMap& map, const nj::JobPlan& plan, int rank, Rng& rng) {
  const nj::RankPlace& r = plan.ranks[static_cast<size_t>(rank)];
  const formats::RailMapHost* host = map.findHost(plan.hosts[static_cast<size_t>(r.hostIndex)].name);
  std::vector<std::string> others;
  for (const formats::RailMapGpu& g : host->gpus)
    if (!g.nics.empty() && g.nics.front().rail != r.rail) others.push_back(g.nics.front().hca);
  if (others.empty()) throw std::runtime_error("host " + host->name + " has no NIC on another rail");
  return others[static_cast<size_t>(rng.below(static_cast<int>(others.size())))];
}

// Trays anywhere in the cluster, the first two in different racks so that the job has connections over the plugin
// (between NVLink domains) with MNNVL too.
std::vector<std::string> pickTrays(const formats::RailMap& map, int count, Rng& rng) {
  std::vector<std::string> trays;
  const auto unused = [&](const formats::RailMapHost& h) {
    return std::find(trays.begin(), trays.end(), h.name) == trays.end();
  };
  while (static_cast<int>(trays.size()) < count) {
    const formats::RailMapHost& h = map.hosts[static_cast<size_t>(rng.below(static_cast<int>(map.hosts.size())))];
    const bool otherRack = trays.size() != 1 || h.domain != map.findHost(trays.front())->domain;
    if (unused(h) && otherRack) trays.push_back(h.name);
  }
  return trays;
}

EmulatedJob planJob(const ScenarioSpec& spec, const formats::RailMap& map) {
  Rng rng(spec.seed * 0x9e3779b97f4a7c15ULL + 0x656d75);
  EmulatedJob job;
  job.ranks = kRankCounts[rng.below(static_cast<int>(std::size(kRankCounts)))];
  if (spec.ranks > 0) job.ranks = spec.ranks;  // a replay's --ranks
  const int gpus = static_cast<int>(map.hosts.front().gpus.size());
  job.trays = pickTrays(map, std::max(2, (job.ranks + gpus - 1) / gpus), rng);
  job.mnnvl = rng.below(3) != 0;  // without MNNVL trays of one rack talk over the plugin too: more connections
  job.collectives = kCollectives[rng.below(static_cast<int>(std::size(kCollectives)))];
  job.bytes = static_cast<size_t>(16 * 1024 + rng.below(48 * 1024));  // odd sizes too: unequal parts
  const nj::JobPlan plan = nj::makePlan(map, nj::PlacementOptions{job.ranks, 0, job.trays});
  std::set<std::string> racks;
  for (const nj::PlannedHost& h : plan.hosts) racks.insert(h.domain);
  job.racks = static_cast<int>(racks.size());
  for (const nj::RankPlace& r : plan.ranks)
    job.rankAt[{plan.hosts[static_cast<size_t>(r.hostIndex)].name, r.gpu}] = r.rank;
  for (const nj::Edge& e : nj::edgesFor(nj::parseCollectiveList(job.collectives), plan.ranks, job.mnnvl)) {
    const nj::RankPlace &a = plan.ranks[static_cast<size_t>(e.first)], &b = plan.ranks[static_cast<size_t>(e.second)];
    if (nj::overNvlink(a, b, job.mnnvl)) continue;
    job.pluginEdges.insert(e);
    job.hosts.insert(plan.hosts[static_cast<size_t>(a.hostIndex)].name);
    job.hosts.insert(plan.hosts[static_cast<size_t>(b.hostIndex)].name);
  }
  job.shape = std::to_string(job.ranks) + " ranks on " + std::to_string(plan.hosts.size()) + " trays in " +
              std::to_string(job.racks) + " racks, " + (job.mnnvl ? "MNNVL" : "no MNNVL") + ", " + job.collectives +
              ", " + std::to_string(job.pluginEdges.size()) + " plugin connections";
  if (spec.kind != "emu-misbound") return job;
  std::vector<int> candidates;  // ranks with a plugin connection: the misbinding shows only there
  for (const nj::Edge& e : job.pluginEdges) candidates.push_back(e.first);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  job.faultRank = candidates[static_cast<size_t>(rng.below(static_cast<int>(candidates.size())))];
  job.from = plan.ranks[static_cast<size_t>(job.faultRank)].hca;
  job.to = otherRailHca(map, plan, job.faultRank, rng);
  for (const nj::Edge& e : job.pluginEdges)
    if (e.first == job.faultRank || e.second == job.faultRank) job.violating.insert(e);
  job.shape += ", rank " + std::to_string(job.faultRank) + " " + job.from + " misbound to " + job.to;
  return job;
}

std::vector<std::string> netJobCommand(const EmulatedJob& job, const RunContext& context, const std::string& map,
                                       const std::string& pathLogs) {
  std::string hosts;
  for (const std::string& t : job.trays) hosts += (hosts.empty() ? "" : ",") + t;
  std::vector<std::string> argv{context.binDir + "/railtune", "emu", "net-job", "--ranks", std::to_string(job.ranks)};
  const std::vector<std::pair<std::string, std::string>> options{{"--hosts", hosts},
                                                                 {"--rail-map", map},
                                                                 {"--collectives", job.collectives},
                                                                 {"--iterations", "1"},
                                                                 {"--warmup", "0"},
                                                                 {"--bytes", std::to_string(job.bytes)},
                                                                 {"--path-log-dir", pathLogs},
                                                                 {"--plugin-dir", context.libDir},
                                                                 {"--timeout", std::to_string(kJobSeconds - 30)}};
  for (const auto& [option, value] : options) argv.insert(argv.end(), {option, value});
  if (!job.mnnvl) argv.push_back("--no-mnnvl");
  if (job.faultRank >= 0)
    for (const std::string& a : {std::string("--fault-rank"), std::to_string(job.faultRank), std::string("--fault"),
                                 "RAILTUNE_NET_FAULT_MISBIND=" + job.from + ":" + job.to})
      argv.push_back(a);
  return argv;
}

// The connection a violation finding is about. Its message names the ends by rank where the record states one, but a
// receive record carries no rank of its own and a sender learns none of its peer's ("to rank ?"), so the connection
// is identified from the records the finding cites ("FILE:LINE"): each end's host and GPU are that end's rank in the
// plan (net-job's placement), a send record the sender, a receive record the receiver. A finding citing one end
// only is matched to the one plugin edge of that rank towards the peer host it names.
class FindingEdges {
 public:
  explicit FindingEdges(const EmulatedJob& job) : job_(job) {}
  std::optional<nj::Edge> edgeOf(const nlohmann::json& finding);

 private:
  const nlohmann::json* record(const std::string& where);
  const EmulatedJob& job_;
  std::map<std::string, std::vector<nlohmann::json>> files_;  // path -> its lines, parsed (null: unreadable)
};

const nlohmann::json* FindingEdges::record(const std::string& where) {
  const size_t colon = where.rfind(':');
  if (colon == std::string::npos) return nullptr;
  const std::string path = where.substr(0, colon);
  if (!files_.contains(path)) {
    std::ifstream in(path);
    std::vector<nlohmann::json>& lines = files_[path];
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line, nullptr, false));
  }
  const std::vector<nlohmann::json>& lines = files_[path];
  const long n = std::strtol(where.c_str() + colon + 1, nullptr, 10);
  return n >= 1 && static_cast<size_t>(n) <= lines.size() && lines[static_cast<size_t>(n - 1)].is_object()
             ? &lines[static_cast<size_t>(n - 1)]
             : nullptr;
}

std::optional<nj::Edge> FindingEdges::edgeOf(const nlohmann::json& finding) {
  int sender = -1, receiver = -1;
  std::string peerHost;
  for (const nlohmann::json& where : finding["records"]) {
    const nlohmann::json* r = record(where.get<std::string>());
    if (r == nullptr || !r->contains("local") || !(*r)["local"].contains("gpu")) continue;
    const auto at = job_.rankAt.find({r->value("host", ""), (*r)["local"].value("gpu", -1)});
    if (at == job_.rankAt.end()) continue;
    (r->value("direction", "") == "send" ? sender : receiver) = at->second;
    if (r->contains("remote")) peerHost = (*r)["remote"].value("host", "");
  }
  if (sender >= 0 && receiver >= 0) return nj::Edge{sender, receiver};
  std::optional<nj::Edge> only;
  for (const nj::Edge& e : job_.pluginEdges) {
    const int peer = sender >= 0 ? e.second : e.first;
    if ((sender >= 0 ? e.first != sender : e.second != receiver) || (sender < 0 && receiver < 0)) continue;
    const auto host =
        std::find_if(job_.rankAt.begin(), job_.rankAt.end(), [&](const auto& p) { return p.second == peer; });
    if (host->first.first != peerHost) continue;
    if (only) return std::nullopt;  // two candidates: not identified
    only = e;
  }
  return only;
}

class EmulatedScorer {
 public:
  EmulatedScorer(const EmulatedJob& job, ScenarioResult* result) : job_(job), result_(result) {}
  void miss(const std::string& text) {
    result_->correct = false;
    result_->miss += (result_->miss.empty() ? "" : "; ") + text;
  }
  void count(const std::string& what, long got, long want) {
    result_->counters["counts_compared"] += 1;
    if (got == want) return;
    result_->counters["count_mismatches"] += 1;
    miss(what + ": " + std::to_string(got) + ", truth " + std::to_string(want));
  }
  long checkAnswer(const CommandRun& run);  // the check's violations, -1 when it gave no answer
  void renderAnswer(const std::string& svg, long checkViolations, long checkConnections);

 private:
  const EmulatedJob& job_;
  ScenarioResult* result_;
};

long EmulatedScorer::checkAnswer(const CommandRun& run) {
  const long injected = static_cast<long>(job_.violating.size());
  result_->counters["injected_violations"] += static_cast<double>(injected);
  const int expectedExit = injected > 0 ? 1 : 0;
  if (run.exitCode != expectedExit)
    miss("paths check: " + run.describe() + ", expected " + std::to_string(expectedExit) + ": " +
         run.err.substr(0, 300));
  nlohmann::json answer;
  try {
    answer = nlohmann::json::parse(run.out);
  } catch (const std::exception& e) {
    miss(std::string("paths check --json printed no JSON: ") + e.what());
    result_->counters["count_mismatches"] += 1;
    return -1;
  }
  count("check jobs", static_cast<long>(answer["jobs"].size()), 1);
  if (answer["jobs"].size() != 1) return -1;
  const nlohmann::json& j = answer["jobs"][0];
  std::set<nj::Edge> found;
  FindingEdges edges(job_);
  long falses = 0, violations = 0;
  for (const nlohmann::json& f : j["findings"]) {
    if (f["severity"] != "violation") continue;
    ++violations;
    const std::optional<nj::Edge> edge = edges.edgeOf(f);
    if (edge && job_.violating.contains(*edge)) {
      found.insert(*edge);
      continue;
    }
    if (++falses <= 3) miss("false violation: " + f["message"].get<std::string>());
  }
  result_->counters["found_violations"] += static_cast<double>(found.size());
  result_->counters["false_violations"] += static_cast<double>(falses);
  if (static_cast<long>(found.size()) < injected)
    miss("found " + std::to_string(found.size()) + " of " + std::to_string(injected) + " injected violations");
  count("check violations", j["violations"].get<long>(), injected);
  count("check violation findings", violations, injected);
  count("check connections", j["connections"].get<long>(), static_cast<long>(job_.pluginEdges.size()));
  count("check connection ends", j["connection_ends"].get<long>(), 2 * static_cast<long>(job_.pluginEdges.size()));
  count("check hosts", j["hosts"].get<long>(), static_cast<long>(job_.hosts.size()));
  if (!j["diagnostics"].empty() || !answer["diagnostics"].empty())
    miss("diagnostics on logs the plugin wrote: " + j["diagnostics"].dump().substr(0, 200));
  return j["violations"].get<long>();
}

long timesIn(const std::string& text, const std::string& what) {
  long n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The picture's heading ("job J: H hosts logged, C connections, E connection ends, V violations", as the suite's
// scorer reads it) and its links, against the truth and the check's counts.
void EmulatedScorer::renderAnswer(const std::string& svg, long checkViolations, long checkConnections) {
  static const std::regex heading(
      R"(<title>railtune paths: job [^:]*: (\d+) hosts? logged, (\d+) connections?(?: \(\d+ from NCCL[^)]*\))?, (\d+) connection ends?, (\d+) violations?)");
  std::smatch m;
  if (!std::regex_search(svg, m, heading)) {
    miss("paths render: no heading in the picture");
    result_->counters["count_mismatches"] += 1;
    return;
  }
  const long edges = static_cast<long>(job_.pluginEdges.size());
  count("render heading hosts", std::stol(m[1]), static_cast<long>(job_.hosts.size()));
  count("render heading connections", std::stol(m[2]), edges);
  count("render heading connection ends", std::stol(m[3]), 2 * edges);
  count("render heading violations", std::stol(m[4]), static_cast<long>(job_.violating.size()));
  count("render heading violations (check's)", std::stol(m[4]), checkViolations);
  count("render links drawn (check's connections)", timesIn(svg, "<path class=\"link"), checkConnections);
  count("render violation links", timesIn(svg, "<path class=\"link violation\""),
        static_cast<long>(job_.violating.size()));
}

std::vector<std::string> linesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The job's path logs copied and damaged as a crashed writer and a careless copy leave them: one file cut inside a
// line (the rest of it lost), another's lines shuffled. Returns "FILE:LINE" of the cut line.
std::string damageCopy(const std::string& from, const std::string& to, Rng& rng) {
  fs::create_directories(to);
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(from)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) return "(no path log to damage)";  // never matches a diagnostic: a miss, as it should be
  const size_t cut = static_cast<size_t>(rng.below(static_cast<int>(files.size())));
  const size_t shuffle = (cut + 1 + static_cast<size_t>(rng.below(static_cast<int>(files.size()) - 1))) % files.size();
  std::string where;
  for (size_t f = 0; f < files.size(); ++f) {
    std::vector<std::string> lines = linesOf(files[f]);
    const fs::path out = fs::path(to) / files[f].filename();
    std::ofstream text(out, std::ios::binary | std::ios::trunc);
    if (f == cut && !lines.empty()) {
      const size_t keep = static_cast<size_t>(rng.below(static_cast<int>(lines.size())));
      for (size_t i = 0; i < keep; ++i) text << lines[i] << '\n';
      text << lines[keep].substr(0, 1 + static_cast<size_t>(rng.below(static_cast<int>(lines[keep].size()) - 2)));
      where = out.string() + ":" + std::to_string(keep + 1);
      continue;
    }
    for (size_t i = lines.size(); f == shuffle && i > 1; --i)
      std::swap(lines[i - 1], lines[static_cast<size_t>(rng.below(static_cast<int>(i)))]);
    for (const std::string& line : lines) text << line << '\n';
  }
  return where;
}

// The damaged copy through `paths check --json`: it must finish with an answer (0, 1 or 3) and name the cut line.
void damagedCheck(const EmulatedJob& job, const std::string& logs, const std::string& map, const ScenarioSpec& spec,
                  const RunContext& context, EmulatedScorer& scorer, ScenarioResult* result) {
  Rng rng(spec.seed ^ 0x64616d616765ULL);
  const std::string copy = context.scratchDir + "/paths-damaged";
  const std::string where = damageCopy(logs, copy, rng);
  const CommandRun run = runCli({context.binDir + "/railtune", "paths", "check", copy, "--rail-map", map, "--json"},
                                context.scratchDir, "check-damaged", kAnalysisSeconds);
  result->counters["damaged_lines"] += 1;
  const nlohmann::json answer = nlohmann::json::parse(run.out, nullptr, false);
  if (run.exitCode != 0 && run.exitCode != 1 && run.exitCode != 3) {
    scorer.miss("paths check on damaged logs: " + run.describe() + ": " + run.err.substr(0, 200));
    return;
  }
  bool named = false;
  const auto scan = [&](const nlohmann::json& diagnostics) {
    for (const nlohmann::json& d : diagnostics) {
      const std::string w = d.value("where", "");
      named = named || w == where || w.starts_with(where + ":");
    }
  };
  if (!answer.is_discarded()) {
    scan(answer["diagnostics"]);
    for (const nlohmann::json& j : answer["jobs"]) scan(j["diagnostics"]);
  }
  result->counters["damaged_lines_named"] += named ? 1 : 0;
  if (!named) scorer.miss("damaged line not named: " + where + " (" + job.shape + ")");
}

}  // namespace

const std::vector<std::string>& emulatedKinds() {
  static const std::vector<std::string> kinds{"emu-misbound", "emu-healthy"};
  return kinds;
}

bool isEmulatedKind(const std::string& kind) {
  const auto& k = emulatedKinds();
  return std::find(k.begin(), k.end(), kind) != k.end();
}

std::vector<ScenarioSpec> emulatedScenarios(SetSize set) {
  const int perKind = set == SetSize::Ci ? 1 : 20;
  std::vector<ScenarioSpec> out;
  for (const std::string& kind : emulatedKinds())
    for (int i = 0; i < perKind; ++i) out.push_back(ScenarioSpec{kind, static_cast<uint64_t>(1 + i), 0});
  return out;
}

ScenarioResult runEmulated(const ScenarioSpec& spec, const RunContext& context) {
  ScenarioResult result;
  result.spec = spec;
  const std::string mapText = nj::railMapText("");  // the built-in cluster's, written where the user would keep it
  const formats::RailMap map = formats::parseRailMap(mapText, "built-in rail map");
  const EmulatedJob job = planJob(spec, map);
  result.spec.ranks = job.ranks;
  result.shape = job.shape;
  const std::string dir = context.scratchDir, mapPath = dir + "/rail-map.json", logs = dir + "/paths";
  std::ofstream(mapPath) << mapText;
  EmulatedScorer scorer(job, &result);
  const std::vector<std::string> netJob = netJobCommand(job, context, mapPath, logs);
  const CommandRun ran = runCli(netJob, dir, "net-job", kJobSeconds);
  if (ran.exitCode != 0) {  // no job, nothing to analyse: a miss of the harness's own making, said as such
    scorer.miss("emu net-job: " + ran.describe() + ": " + ran.err.substr(0, 400) + " (" + commandLine(netJob) + ")");
    result.counters["injected_violations"] += static_cast<double>(job.violating.size());
    result.counters["count_mismatches"] += 1;
    return result;
  }
  const CommandRun check =
      runCli({context.binDir + "/railtune", "paths", "check", logs, "--rail-map", mapPath, "--json"}, dir, "check",
             kAnalysisSeconds);
  const long violations = scorer.checkAnswer(check);
  const std::string picture = dir + "/paths.svg";
  const CommandRun render =
      runCli({context.binDir + "/railtune", "paths", "render", logs, "--rail-map", mapPath, "-o", picture}, dir,
             "render", kAnalysisSeconds);
  if (render.exitCode != 0) {  // its status says whether the picture was written
    scorer.miss("paths render: " + render.describe() + ": " + render.err.substr(0, 300));
    result.counters["count_mismatches"] += 1;
    return result;
  }
  std::ifstream in(picture, std::ios::binary);
  std::ostringstream svg;
  svg << in.rdbuf();
  scorer.renderAnswer(svg.str(), violations, static_cast<long>(job.pluginEdges.size()));
  damagedCheck(job, logs, mapPath, spec, context, scorer, &result);
  return result;
}

}  // namespace railtune::eval::paths
