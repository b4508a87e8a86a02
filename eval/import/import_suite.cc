// The NCCL-log import, scored against the truth of the logs it reads (docs/accuracy.md, "import"): jobs
// rendered from NCCL's own format strings for every version 2.7-2.31, over NCCL's IB and Socket transports
// and IB-derived net plugins under their own names, laid out as launchers and shared files lay them out;
// then readLogs + importLogs (what `railtune paths import` runs), each record held to every fact its line
// states.
#include "eval/import/import_suite.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"
#include "eval/import/layout.h"
#include "eval/import/nccl_job.h"

namespace railtune::eval {
namespace {

namespace is = import_suite;
namespace nl = analysis::nccl_log;
namespace pl = formats::path_log;

struct KindInfo {
  std::string kind;
  int versionIndex = -1;  // a fixed version; -1: drawn from the seed
  is::Mangling mangling = is::Mangling::None;
  std::string plugin;  // an IB-derived plugin's network name
};

std::vector<KindInfo> allKinds() {
  std::vector<KindInfo> kinds;
  const std::vector<is::NcclVersion>& versions = is::ncclVersions();
  for (size_t i = 0; i < versions.size(); ++i)
    kinds.push_back(KindInfo{"nccl-" + versions[i].text(), static_cast<int>(i), is::Mangling::None, ""});
  kinds.push_back(KindInfo{"plugin-ibext", -1, is::Mangling::None, "IBext_v8"});
  kinds.push_back(KindInfo{"plugin-ucx", -1, is::Mangling::None, "UCX"});
  kinds.push_back(KindInfo{"interleaved", -1, is::Mangling::Interleaved, ""});
  kinds.push_back(KindInfo{"split-files", -1, is::Mangling::Split, ""});
  kinds.push_back(KindInfo{"duplicated-files", -1, is::Mangling::Duplicated, ""});
  kinds.push_back(KindInfo{"spliced-lines", -1, is::Mangling::Spliced, ""});
  kinds.push_back(KindInfo{"cut-last-lines", -1, is::Mangling::CutLastLines, ""});
  kinds.push_back(KindInfo{"other-output", -1, is::Mangling::OtherOutput, ""});
  kinds.push_back(KindInfo{"cut-shuffled", -1, is::Mangling::CutShuffled, ""});
  return kinds;
}

const KindInfo& kindInfo(const std::string& kind) {
  static const std::vector<KindInfo> kinds = allKinds();
  for (const KindInfo& k : kinds)
    if (k.kind == kind) return k;
  throw std::runtime_error("import suite: no kind '" + kind + "'");
}

is::JobOptions jobOptions(const KindInfo& kind, std::mt19937_64& rng) {
  const std::vector<is::NcclVersion>& versions = is::ncclVersions();
  is::JobOptions o;
  const int first = kind.plugin.empty() ? 0 : 5;  // the plugins' net API v5+ is NCCL 2.12+
  const int index = kind.versionIndex >= 0 ? kind.versionIndex
                                           : std::uniform_int_distribution<int>(first, int(versions.size()) - 1)(rng);
  o.version = versions[static_cast<size_t>(index)];
  const int draw = std::uniform_int_distribution<int>(0, 99)(rng);
  o.network = !kind.plugin.empty() ? is::Network::IbPlugin : draw < 65 ? is::Network::Ib : is::Network::Socket;
  o.pluginName = kind.plugin;
  o.perProcessFiles = kind.mangling != is::Mangling::Interleaved && kind.mangling != is::Mangling::Spliced &&
                      kind.mangling != is::Mangling::OtherOutput && (kind.versionIndex < 0 || draw % 2 == 0);
  return o;
}

void writeFiles(const std::string& dir, const is::Layout& layout) {
  for (const is::LogFile& file : layout.files) {
    std::ofstream out(dir + "/" + file.name, std::ios::binary);
    for (size_t i = 0; i < file.lines.size(); ++i)
      out << file.lines[i] << (i + 1 < file.lines.size() || file.lastNewline ? "\n" : "");
    if (!out) throw std::runtime_error("cannot write " + dir + "/" + file.name);
  }
}

using EndKey =
    std::tuple<std::string, int, int, int, int, int, bool>;  // host, pid, channel, connIndex, rank, peer, send

struct Scorer {
  const is::NcclJob& job;
  const is::Layout& layout;
  bool badInput = false;
  Counters counters;
  std::vector<std::string> notes;
  std::vector<bool> readRightly = std::vector<bool>(job.ends.size());  // a complete record of the end

  bool lost(int end) const { return layout.lost.contains(end); }
  bool commUnstated(const std::string& host, int pid) const {
    return layout.commUnstated.contains(host + ":" + std::to_string(pid));
  }

  // The facts of `r` that its line states and that differ from the truth.
  std::vector<std::string> wrongFacts(const pl::PathRecord& r, const is::TruthEnd& t) const {
    std::vector<std::string> wrong;
    const auto check = [&wrong](bool ok, const char* what) {
      if (!ok) wrong.push_back(what);
    };
    check(r.local.device == t.device, "device");
    check(r.nccl.net.view() == t.net, "net");
    check(r.nccl.gdr == t.gdr, "gdr");
    check(r.nccl.shared == t.shared, "shared");
    check(r.nccl.proxyRank == t.proxyRank, "pxn proxy");
    const bool unstated = commUnstated(t.host, t.pid) || badInput;
    const bool hcaUnstated = badInput || layout.hcaUnstated.contains(t.host + ":" + std::to_string(t.pid));
    check(r.local.hca.view() == t.hca || (hcaUnstated && r.local.hca.view().empty()), "hca");
    check(r.comm == t.commId || (unstated && !r.comm), "comm");
    check(r.local.gpu == t.gpu || (badInput && r.local.gpu < 0), "gpu");
    const bool peerIntact = !t.peerHost.empty() && !peerLost(t);
    const bool peerMaybe = badInput || unstated || commUnstated(t.peerHost, t.peerPid) || peerMaybeLost(t);
    if (r.remote.host.view().empty()) {
      check(!peerIntact || peerMaybe, "peer host (not found)");
    } else {
      check(r.remote.host.view() == t.peerHost && r.remote.pid == t.peerPid, "peer host");
      int i = -1;
      if (const is::TruthEnd* peer = peerEnd(t, &i)) {  // the peer's own line: its device and HCA
        const bool peerHcaUnstated =
            badInput || layout.hcaUnstated.contains(peer->host + ":" + std::to_string(peer->pid));
        check(r.remote.device == peer->device, "peer device");
        check(r.remote.hca.view() == peer->hca || (peerHcaUnstated && r.remote.hca.view().empty()), "peer hca");
      }
    }
    return wrong;
  }

  const is::TruthEnd* peerEnd(const is::TruthEnd& t, int* index) const {
    for (size_t i = 0; i < job.ends.size(); ++i) {
      const is::TruthEnd& o = job.ends[i];
      if (o.send != t.send && o.channel == t.channel && o.connIndex == t.connIndex && o.commId == t.commId &&
          o.rank == t.peerRank && o.peerRank == t.rank) {
        *index = static_cast<int>(i);
        return &o;
      }
    }
    return nullptr;
  }
  bool peerLost(const is::TruthEnd& t) const {
    int i = -1;
    return peerEnd(t, &i) == nullptr || lost(i) || layout.maybe.contains(i);
  }
  bool peerMaybeLost(const is::TruthEnd& t) const {
    int i = -1;
    return peerEnd(t, &i) != nullptr && (lost(i) || layout.maybe.contains(i));
  }

  void score(const nl::LogSet& logs, const nl::Import& import) {
    std::map<EndKey, std::vector<int>> truth;
    for (size_t i = 0; i < job.ends.size(); ++i) {
      const is::TruthEnd& t = job.ends[i];
      truth[{t.host, t.pid, t.channel, t.connIndex, t.rank, t.peerRank, t.send}].push_back(static_cast<int>(i));
    }
    std::vector<int> seen(job.ends.size());
    std::set<std::pair<std::string, int>> processes;
    for (const is::Process& p : job.processes) processes.emplace(p.host, p.pid);
    for (const nl::ImportedProcess& p : import.processes) {
      if (!processes.contains({p.identity.host, p.identity.pid})) {
        counters["phantom_hosts"] += 1;
        notes.push_back("phantom host " + p.identity.host + ":" + std::to_string(p.identity.pid));
      }
      for (const nl::ImportedConnection& c : p.connections) scoreRecord(p, c.record, truth, seen);
    }
    scoreCoverage(seen);
    scoreNames(logs, import);
    if (!badInput) scoreCounts(import);
  }

  void scoreRecord(const nl::ImportedProcess& p, const pl::PathRecord& r,
                   const std::map<EndKey, std::vector<int>>& truth, std::vector<int>& seen) {
    const auto it = truth.find({p.identity.host, p.identity.pid, r.nccl.channel, r.nccl.connIndex, r.rank,
                                r.remote.rank, r.direction == pl::Direction::Send});
    int end = -1;
    if (it != truth.end()) {
      for (const int i : it->second)  // two communicators may hold the same ranks: the commId tells them apart
        if (end < 0 || job.ends[static_cast<size_t>(i)].commId == r.comm) end = i;
    }
    if (end < 0) {
      counters["extra_records"] += 1;
      notes.push_back("a record of no Channel line: " + p.identity.host + " rank " + std::to_string(r.rank) +
                      " channel " + std::to_string(r.nccl.channel));
      return;
    }
    if (++seen[static_cast<size_t>(end)] > 1) {
      counters["extra_records"] += 1;
      notes.push_back("a Channel line read twice: end " + std::to_string(end));
    }
    const std::vector<std::string> wrong = wrongFacts(r, job.ends[static_cast<size_t>(end)]);
    if (!wrong.empty()) {
      counters["false_facts"] += 1;
      std::string what;
      for (const std::string& w : wrong) what += (what.empty() ? "" : ", ") + w;
      if (notes.size() < 5) notes.push_back(p.identity.host + " rank " + std::to_string(r.rank) + ": wrong " + what);
    } else if (seen[static_cast<size_t>(end)] == 1) {
      readRightly[static_cast<size_t>(end)] = true;
      counters["complete"] += 1;
      if (lost(end) || layout.maybe.contains(end)) counters["complete_of_damaged"] += 1;
    }
  }

  // Every intact Channel line must have become a complete record.
  void scoreCoverage(const std::vector<int>& seen) {
    for (size_t i = 0; i < job.ends.size(); ++i) {
      const bool damaged = lost(static_cast<int>(i)) || layout.maybe.contains(static_cast<int>(i));
      if (damaged) continue;
      counters["channel_lines"] += 1;
      if (seen[i] == 0 && !badInput && notes.size() < 8) notes.push_back("no record of end " + std::to_string(i));
    }
    counters["complete"] -= counters["complete_of_damaged"];
    counters.erase("complete_of_damaged");
  }

  bool named(const nl::LogSet& logs, const std::string& file, int line) const {
    for (const nl::Diagnostic& d : logs.diagnostics)
      if (d.where.ends_with("/" + file + ":" + std::to_string(line))) return true;
    return false;
  }

  void scoreNames(const nl::LogSet& logs, const nl::Import& import) {
    for (const is::MustName& m : layout.mustName) {
      counters["damaged_lines"] += 1;
      bool ok = named(logs, m.file, m.line);
      if (!ok && m.readableEnd >= 0) ok = readRightly[static_cast<size_t>(m.readableEnd)];
      if (ok) {
        counters["damaged_named"] += 1;
      } else {
        notes.push_back("damaged line not named: " + m.file + ":" + std::to_string(m.line));
      }
    }
    std::set<std::string> names;
    for (const auto& [name, text] : nl::renderPathLogs(import)) {
      if (!names.insert(name).second || name.starts_with(".") || name.find('/') != std::string::npos) {
        counters["bad_file_names"] += 1;
        notes.push_back("file name taken twice or hidden: " + name);
      }
    }
  }

  // `paths import` counts logical connections as `paths check` does.
  void scoreCounts(const nl::Import& import) {
    uint64_t expected = 0;
    for (size_t i = 0; i < job.ends.size(); ++i) {
      const is::TruthEnd& t = job.ends[i];
      if (lost(static_cast<int>(i)) || layout.maybe.contains(static_cast<int>(i))) continue;
      int peer = -1;
      const bool peerHere = peerEnd(t, &peer) != nullptr && !lost(peer) && !layout.maybe.contains(peer);
      if (t.send || !peerHere) ++expected;
    }
    const bool exact = layout.maybe.empty() && layout.commUnstated.empty();
    if (exact && import.counts.connections != expected) {
      counters["count_mismatches"] += 1;
      notes.push_back("connections counted " + std::to_string(import.counts.connections) + ", truth " +
                      std::to_string(expected));
    }
  }
};

class ImportSuite : public Suite {
 public:
  std::string name() const override { return "import"; }
  std::string describe() const override {
    return "NCCL INFO logs of every version 2.7-2.31 (IB, Socket, IB-derived plugins), split, duplicated, spliced "
           "and cut, rebuilt into path logs: every stated fact of every Channel line";
  }
  std::vector<std::string> kinds() const override {
    std::vector<std::string> out;
    for (const KindInfo& k : allKinds()) out.push_back(k.kind);
    return out;
  }
  std::vector<ScenarioSpec> scenarios(SetSize set) const override {
    std::vector<ScenarioSpec> out;
    const uint64_t seeds = set == SetSize::Ci ? 10 : 30;
    for (const KindInfo& k : allKinds())
      for (uint64_t s = 1; s <= seeds; ++s) out.push_back(ScenarioSpec{k.kind, s, 0});
    return out;
  }
  ScenarioResult run(const ScenarioSpec& spec, const RunContext& context) const override;
  std::vector<Target> targets() const override;
};

ScenarioResult ImportSuite::run(const ScenarioSpec& spec, const RunContext& context) const {
  const KindInfo& kind = kindInfo(spec.kind);
  std::mt19937_64 rng(spec.seed * 0x9e3779b97f4a7c15ULL ^ std::hash<std::string>()(spec.kind));
  const is::JobOptions options = jobOptions(kind, rng);
  const is::NcclJob job = is::makeJob(options, rng);
  const is::Layout layout = is::layOut(job, kind.mangling, rng);
  writeFiles(context.scratchDir, layout);
  std::vector<std::string> given;
  for (const std::string& g : layout.given) given.push_back(context.scratchDir + "/" + g);
  ScenarioResult result;
  result.shape = job.shape;
  Scorer scorer{job, layout, kind.mangling == is::Mangling::CutShuffled, {}, {}};
  try {
    const nl::LogSet logs = nl::readLogs(given);
    nl::ImportOptions importOptions;
    importOptions.job = spec.seed % 3 == 0 ? "../../x" : "job-" + std::to_string(spec.seed);
    const nl::Import import = nl::importLogs(logs, importOptions);
    scorer.score(logs, import);
    // Bad input: whatever it could not read, it says.
    if (scorer.badInput && scorer.counters["complete"] < scorer.counters["channel_lines"] && logs.diagnostics.empty() &&
        logs.counts.badLines == 0) {
      scorer.counters["unsaid_losses"] += 1;
      scorer.notes.push_back("lines lost without a word");
    }
  } catch (const std::exception& e) {
    scorer.counters["crashes"] += 1;
    scorer.notes.push_back(std::string("the import threw: ") + e.what());
  }
  Counters& c = scorer.counters;
  for (const char* key : {"complete", "channel_lines", "extra_records", "false_facts", "phantom_hosts", "damaged_lines",
                          "damaged_named", "bad_file_names", "count_mismatches", "crashes", "unsaid_losses"})
    c[key] += 0;
  if (scorer.badInput) {
    c["bad_input_scenarios"] = 1;
    c["bad_input_channel_lines"] = c["channel_lines"];
    c["bad_input_complete"] = c["complete"];
    c["channel_lines"] = c["complete"] = 0;  // shuffled lines lose communicators rightly: not the score
  }
  result.correct = (scorer.badInput || c["complete"] == c["channel_lines"]) && c["extra_records"] == 0 &&
                   c["false_facts"] == 0 && c["phantom_hosts"] == 0 && c["damaged_named"] == c["damaged_lines"] &&
                   c["bad_file_names"] == 0 && c["count_mismatches"] == 0 && c["crashes"] == 0 &&
                   c["unsaid_losses"] == 0;
  constexpr size_t kNotesShown = 6;  // a miss's first few reasons, then how many more
  for (size_t i = 0; i < scorer.notes.size() && i < kNotesShown; ++i)
    result.miss += (result.miss.empty() ? "" : "; ") + scorer.notes[i];
  if (scorer.notes.size() > kNotesShown)
    result.miss += "; and " + std::to_string(scorer.notes.size() - kNotesShown) + " more";
  result.counters = std::move(c);
  return result;
}

std::vector<Target> ImportSuite::targets() const {
  return {
      {"Channel lines with every stated fact",
       [](const Counters& c) { return counterRatio(c, "complete", "channel_lines", 1.0); }, 0.99, true, "%"},
      {"records with a false fact", [](const Counters& c) { return counterValue(c, "false_facts"); }, 0, false, ""},
      {"records of no line, or a line twice", [](const Counters& c) { return counterValue(c, "extra_records"); }, 0,
       false, ""},
      {"spliced and cut lines named FILE:LINE",
       [](const Counters& c) { return counterRatio(c, "damaged_named", "damaged_lines", 1.0); }, 1.0, true, "%"},
      {"phantom hosts", [](const Counters& c) { return counterValue(c, "phantom_hosts"); }, 0, false, ""},
      {"file names taken twice or hidden", [](const Counters& c) { return counterValue(c, "bad_file_names"); }, 0,
       false, ""},
      {"connection counts unlike check's", [](const Counters& c) { return counterValue(c, "count_mismatches"); }, 0,
       false, ""},
      {"bad input: crashes and unsaid losses",
       [](const Counters& c) { return counterValue(c, "crashes") + counterValue(c, "unsaid_losses"); }, 0, false, ""},
  };
}

}  // namespace

std::unique_ptr<Suite> makeImportSuite() {
  return std::make_unique<ImportSuite>();
}

}  // namespace railtune::eval
