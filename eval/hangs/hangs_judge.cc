// The analysis as `railtune profile hangs --json` runs it, and its answer judged (hangs_judge.h).
#include "eval/hangs/hangs_judge.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/profile/hangs.h"
#include "analysis/profile/hangs_render.h"
#include "analysis/profile/logs.h"

namespace railtune::eval::hangs {
namespace {

namespace fs = std::filesystem;
namespace pa = analysis::profile;
using nlohmann::json;

struct Answer {
  json report;
  std::string table;
  pa::ProfileLogs logs;
};

Answer analyse(const std::string& dir) {
  Answer a;
  a.logs = pa::readProfileLogs(pa::ReadOptions{{dir}, false, 2, 20});
  const pa::HangReport report = pa::analyseHangs(a.logs, nullptr, std::nullopt);
  a.report = json::parse(pa::renderHangsJson(report));
  a.table = pa::renderHangsTable(report);
  return a;
}

std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

int num(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : -1;
}

std::string truthText(const Truth& t) {
  if (t.kind == "rank")
    return "rank " + std::to_string(t.rank) +
           (t.host.empty() ? "" : " (pid " + std::to_string(t.pid) + ", " + t.host + ")");
  if (t.kind == "nic") return "NIC " + t.hca + " of " + t.host + " (rank " + std::to_string(t.rank) + ")";
  if (t.kind == "link" && t.host.empty())
    return "link rank " + std::to_string(t.rank) + " -> rank " + std::to_string(t.toRank);
  if (t.kind == "link")
    return "link " + t.host + " pid " + std::to_string(t.pid) + " -> " + t.toHost + " pid " + std::to_string(t.toPid);
  return "no hang";
}

bool matches(const Truth& t, const json& cause) {
  const std::string kind = str(cause, "kind");
  if (kind != t.kind) return false;
  if (kind == "rank")
    return t.host.empty() ? num(cause, "rank") == t.rank : str(cause, "host") == t.host && num(cause, "pid") == t.pid;
  if (kind == "nic") return str(cause, "host") == t.host && str(cause, "hca") == t.hca;
  const json &from = cause["from"], &to = cause["to"];
  if (t.host.empty())
    return from.is_object() && to.is_object() && num(from, "rank") == t.rank && num(to, "rank") == t.toRank;
  return from.is_object() && to.is_object() && str(from, "host") == t.host && num(from, "pid") == t.pid &&
         str(to, "host") == t.toHost && num(to, "pid") == t.toPid;
}

// The table's first line under the job must be the same root cause as the JSON's first.
bool tableLeadsWith(const std::string& table, const std::string& text) {
  std::istringstream in(table);
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  return line == "  root cause: " + text;
}

// Every hung operation names the user tag of its communicator's operations (profiler v7 jobs only).
void judgeTags(const json& hung, const Truth& truth, Verdict* v) {
  if (truth.commTags.empty()) return;
  for (const json& h : hung) {
    const auto tag = truth.commTags.find(str(h, "comm"));
    ++v->taggedHung;
    const bool right = tag != truth.commTags.end() && h.contains("user_tag") && h["user_tag"].is_number_unsigned() &&
                       h["user_tag"].get<uint64_t>() == tag->second;
    v->tagRight += right ? 1 : 0;
    if (!right)
      v->miss += (v->miss.empty() ? "" : "; ") + std::string("hung operation in comm ") + str(h, "comm") +
                 " names user_tag " + (h.contains("user_tag") ? h["user_tag"].dump() : "none");
  }
}

}  // namespace

Verdict judgeHangs(const std::string& dir, const Truth& truth) {
  Verdict v;
  const Answer a = analyse(dir);
  const json& jobs = a.report["jobs"];
  if (jobs.size() != 1) {
    v.miss = "expected one job, the analysis found " + std::to_string(jobs.size());
    return v;
  }
  const json& job = jobs[0];
  const json& causes = job["root_causes"];
  v.hangReported = !job["hung"].empty();
  v.named = !causes.empty();
  judgeTags(job["hung"], truth, &v);
  if (truth.kind == "none") {
    v.correct = !v.hangReported && causes.empty();
    if (!v.correct)
      v.miss = "no hang injected; the analysis reported " + std::to_string(job["hung"].size()) + " hung operations" +
               (causes.empty() ? "" : ", first cause: " + str(causes[0], "text"));
    return v;
  }
  if (causes.empty()) {
    v.miss = "truth " + truthText(truth) + "; the analysis named no root cause (" + std::to_string(job["hung"].size()) +
             " hung operations)";
    return v;
  }
  v.correct =
      matches(truth, causes[0]) && tableLeadsWith(a.table, str(causes[0], "text")) && v.tagRight == v.taggedHung;
  if (!matches(truth, causes[0]) || !tableLeadsWith(a.table, str(causes[0], "text")))
    v.miss = "truth " + truthText(truth) + "; named first: " + str(causes[0], "text") +
             (tableLeadsWith(a.table, str(causes[0], "text")) ? "" : " (the table does not lead with it)");
  return v;
}

Counters badInputCheck(const std::string& dir, const std::string& copyDir, uint64_t seed) {
  std::mt19937_64 rng(seed * 31 + 7);
  Counters c{{"bad_input_runs", 1}, {"bad_input_unreported", 0}, {"bad_input_errors", 0}};
  fs::create_directories(copyDir);
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  size_t cut = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::ifstream in(files[i], std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (rng() % 2 == 0) std::shuffle(lines.begin(), lines.end(), rng);
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    // One file in three (the first always) is cut inside a line: the reader must say so.
    if ((i == 0 || rng() % 3 == 0) && text.size() > 2) {
      size_t at = 1 + rng() % (text.size() - 1);
      while (at > 0 && (text[at] == '\n' || text[at - 1] == '\n')) --at;
      if (at > 0) text.resize(at), ++cut;
    }
    std::ofstream out(fs::path(copyDir) / files[i].filename(), std::ios::binary);
    out << text;
  }
  try {
    const Answer a = analyse(copyDir);
    if (cut > 0 && a.logs.problems.count + a.logs.skippedFiles == 0) c["bad_input_unreported"] = 1;
  } catch (const std::exception&) {
    c["bad_input_errors"] = 1;
  }
  return c;
}

}  // namespace railtune::eval::hangs
