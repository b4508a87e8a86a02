#include "tests/support/path_log_oracle.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace railtune::testing {

namespace fs = std::filesystem;
using formats::path_log::RecordKind;

PathLogs readPathLogs(const std::string& dir) {
  PathLogs logs;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it)
    if (it->path().extension() == ".jsonl") logs.files.push_back(it->path().string());
  if (ec) throw std::runtime_error("cannot read the path log folder " + dir + ": " + ec.message());
  std::sort(logs.files.begin(), logs.files.end());
  for (const std::string& file : logs.files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    formats::path_log::ParseAllResult parsed = formats::path_log::parseRecords(text.str(), file);
    if (!parsed.error.empty()) throw std::runtime_error(parsed.error);
    for (auto& r : parsed.records) {
      if (r.record.kind == RecordKind::Connect) logs.connects.push_back(r);
      if (r.record.kind == RecordKind::Close) logs.closes.push_back(r);
    }
  }
  return logs;
}

bool railMismatch(const formats::path_log::PathRecord& c) {
  return formats::path_log::railMatch(c.expectedRail, c.local.rail) == false;  // rail_match as the log writes it
}

bool crossRail(const formats::path_log::PathRecord& c) {
  return railMismatch(c) || (c.local.rail >= 0 && c.remote.rail >= 0 && c.local.rail != c.remote.rail);
}

int writerRank(const formats::path_log::ParsedRecord& record, const std::map<int, int>& rankOfPid) {
  if (record.record.rank >= 0) return record.record.rank;
  const auto it = rankOfPid.find(record.identity.pid);
  return it != rankOfPid.end() ? it->second : -1;
}

std::string describeConnection(const formats::path_log::ParsedRecord& p, const std::map<int, int>& rankOfPid) {
  const formats::path_log::PathRecord& c = p.record;
  const int rank = writerRank(p, rankOfPid);
  const auto peer = rankOfPid.find(c.remote.pid);
  const int remoteRank = c.remote.rank >= 0 ? c.remote.rank : peer != rankOfPid.end() ? peer->second : -1;
  const bool send = c.direction == formats::path_log::Direction::Send;
  std::string out = "rank " + std::to_string(rank) + " (" + p.identity.host + ", GPU " + std::to_string(c.local.gpu) +
                    ") " + (send ? "sends to" : "receives from") + " rank " + std::to_string(remoteRank) + " (" +
                    std::string(c.remote.host.view()) + ", " + std::string(c.remote.hca.view()) + " rail " +
                    std::to_string(c.remote.rail) + "): local " + std::string(c.local.hca.view()) + " rail " +
                    std::to_string(c.local.rail) + ", expected rail " + std::to_string(c.expectedRail);
  return out;
}

}  // namespace railtune::testing
