// The emulated job's tests read back the path logs its ranks wrote with this oracle: every file
// through the strict reader (formats/path_log.h), any bad record an error, and the connections that
// crossed rails: the local NIC is not on the rail the served GPU maps to (rail_match false), or the
// two ends sit on different rails. It is independent of analysis/paths on purpose: the demo's part of
// the same tests runs `paths check` itself, and the two must agree.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "formats/path_log.h"

namespace railtune::testing {

struct PathLogs {
  std::vector<std::string> files;
  std::vector<formats::path_log::ParsedRecord> connects;  // every connect record of every file
  std::vector<formats::path_log::ParsedRecord> closes;
};

// Every *.jsonl file of `dir`, strictly parsed. Throws std::runtime_error with the parser's
// "FILE:LINE:COLUMN: reason" on a bad record, or naming the folder when it cannot be read.
PathLogs readPathLogs(const std::string& dir);

bool railMismatch(const formats::path_log::PathRecord& connect);  // expected rail known and != the local NIC's
bool crossRail(const formats::path_log::PathRecord& connect);     // railMismatch, or local rail != remote rail

// The rank that wrote a record: the record's own, else the writing process's (a receive record
// carries none); -1 when unknown. `rankOfPid`: pid -> rank, from the job's results.
int writerRank(const formats::path_log::ParsedRecord& record, const std::map<int, int>& rankOfPid);

// "rank 0 (rack00-tray00, GPU 0) sends to rank 8 (rack01-tray00, mlx5_0 rail 0): local mlx5_1 rail 1,
// expected rail 0"
std::string describeConnection(const formats::path_log::ParsedRecord& connect, const std::map<int, int>& rankOfPid);

}  // namespace railtune::testing
