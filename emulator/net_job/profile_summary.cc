#include "emulator/net_job/profile_summary.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace railtune::emu::netjob {
namespace {

namespace fs = std::filesystem;
namespace out = formats::profile;

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "<job>-<host>-<pid>.<kind>": the pid is the last '-' field before the kind.
int pidOf(const std::string& name, const std::string& kind) {
  const std::string stem = name.substr(0, name.size() - kind.size());
  const size_t dash = stem.rfind('-');
  if (dash == std::string::npos) throw std::runtime_error(name + ": not a profiler file name (<job>-<host>-<pid>)");
  // "<pid>" or, since the start tag, "<pid>.<start>": the digits before the dot.
  const std::string pid = stem.substr(dash + 1, stem.find('.', dash) - dash - 1);
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error(name + ": no pid before " + kind);
  try {
    return std::stoi(pid);
  } catch (const std::exception&) {
    throw std::runtime_error(name + ": no pid before " + kind);
  }
}

bool endsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

void readFile(const fs::path& path, ProfileSummary& summary) {
  const std::string name = path.filename().string();
  const std::string file = path.string();
  if (endsWith(name, ".collectives.jsonl")) {
    out::CollectiveParseResult parsed = out::parseCollectiveRecords(readText(path), file);
    if (!parsed.error.empty()) throw std::runtime_error(parsed.error);
    ProfileFiles& files = summary.byPid[pidOf(name, ".collectives.jsonl")];
    for (const out::ParsedCollective& header : parsed.headers) files.recordsLost += header.recordsDropped;
    for (const out::ParsedCollective& line : parsed.records) {
      if (line.droppedNotice) {
        files.recordsLost += line.recordsDropped;
      } else {
        ++files.records;
      }
    }
    files.collectives = std::move(parsed.records);
  } else if (endsWith(name, ".net.jsonl")) {
    out::NetParseResult parsed = out::parseNetRecords(readText(path), file);
    if (!parsed.error.empty()) throw std::runtime_error(parsed.error);
    summary.byPid[pidOf(name, ".net.jsonl")].net = std::move(parsed.records);
  } else if (endsWith(name, ".trace.json")) {
    summary.byPid[pidOf(name, ".trace.json")].traceParses = nlohmann::json::accept(readText(path));
  }
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

bool hasNetFlows(const ProfileFiles& files, uint64_t seq) {
  return std::any_of(files.net.begin(), files.net.end(), [&](const out::ParsedNet& n) { return n.record.seq == seq; });
}

// The median bus bandwidth counts only records with network flows: on a rank whose links are all
// NVLink the emulated kernel has no network step to wait for, and its time says nothing about the job.
void summarise(ProfileSummary& summary) {
  std::vector<std::vector<double>> busbw;
  for (const auto& [pid, files] : summary.byPid) {
    summary.records += files.records;
    summary.recordsLost += files.recordsLost;
    for (const out::ParsedCollective& c : files.collectives) {
      if (c.header || c.droppedNotice || c.record.kind != formats::profile::RecordKind::Collective) continue;
      const std::string op(c.record.operation.view()), algo(c.record.algorithm.view());
      auto it = std::find_if(summary.collectives.begin(), summary.collectives.end(),
                             [&](const CollectiveStats& s) { return s.operation == op && s.algorithm == algo; });
      if (it == summary.collectives.end()) {
        summary.collectives.push_back({op, algo, 0, 0, c.record.bytes, 0});
        busbw.emplace_back();
        it = summary.collectives.end() - 1;
      }
      ++it->records;
      if (!hasNetFlows(files, c.record.seq)) continue;
      ++it->withNetFlows;
      busbw[static_cast<size_t>(it - summary.collectives.begin())].push_back(
          formats::profile::busBandwidthGBps(c.record));  // unrounded: emulated jobs are slow
    }
    for (const out::ParsedNet& n : files.net)
      for (uint32_t i = 0; i < n.record.nFlows; ++i)
        if (!n.record.flows[i].hca.view().empty())
          summary.nics.insert(std::string(n.record.flows[i].hca.view()) + " rail " +
                              std::to_string(n.record.flows[i].rail));
  }
  for (size_t i = 0; i < summary.collectives.size(); ++i) summary.collectives[i].medianBusbwGBps = median(busbw[i]);
}

}  // namespace

ProfileSummary readProfile(const fs::path& dir) {
  ProfileSummary summary;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    readFile(it->path(), summary);
  if (ec) throw std::runtime_error("cannot list the profile folder " + dir.string() + ": " + ec.message());
  if (summary.byPid.empty()) throw std::runtime_error("the profile folder " + dir.string() + " holds no profile");
  summarise(summary);
  return summary;
}

std::string formatProfileSummary(const ProfileSummary& summary, const fs::path& dir) {
  std::string text =
      "\nProfile (" + std::to_string(summary.byPid.size()) + " rank processes, in " + dir.string() + "):\n";
  char line[200];
  for (const CollectiveStats& c : summary.collectives) {
    std::snprintf(line, sizeof line,
                  "  %-14s %-5s %4zu records, %10llu bytes, median busbw %.3g GB/s over the %zu with network flows\n",
                  c.operation.c_str(), c.algorithm.c_str(), c.records, static_cast<unsigned long long>(c.bytes),
                  c.medianBusbwGBps, c.withNetFlows);
    text += line;
  }
  std::string nics;
  for (const std::string& nic : summary.nics) nics += (nics.empty() ? "" : ", ") + nic;
  text += "  NICs in the network summaries (from railtune's net plugin events): " + (nics.empty() ? "none" : nics) +
          "\n  Files per rank process: <job>-<host>-<pid>.<start>.collectives.jsonl (one record per collective),\n"
          "  .net.jsonl (its network flows per peer and NIC), .trace.json (open in https://ui.perfetto.dev)\n";
  return text + "  " + formatProfileCount(summary, dir);
}

std::string formatProfileCount(const ProfileSummary& summary, const fs::path& dir) {
  std::string text = "profile: " + std::to_string(summary.records) + " records in " + dir.string() + " from " +
                     std::to_string(summary.byPid.size()) + " rank processes";
  if (summary.recordsLost == 0) return text + ", none lost\n";
  return text + "; " + std::to_string(summary.recordsLost) +
         " records lost, counted in the files' dropped lines and headers (docs/profiler.md, \"Nothing "
         "unaccounted\")\n";
}

}  // namespace railtune::emu::netjob
