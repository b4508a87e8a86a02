// What `emu net-job --profile-dir` left in the profile folder, read back with the profiler's strict
// readers (formats/profile_logs.h): per rank process its collective log, network summary
// and trace; per collective the count and median bus bandwidth (of the ranks with network flows); the NICs the network
// summaries name. The demo prints it; the tests check it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "formats/profile_logs.h"

namespace railtune::emu::netjob {

struct ProfileFiles {  // one rank process's files: <job>-<host>-<pid>.{collectives.jsonl,net.jsonl,trace.json}
  std::vector<formats::profile::ParsedCollective> collectives;
  std::vector<formats::profile::ParsedNet> net;
  bool traceParses = false;
  uint64_t records = 0;      // collective, p2p and hang lines
  uint64_t recordsLost = 0;  // records its dropped lines and headers count lost (queue full, disk, file removed)
};

struct CollectiveStats {
  std::string operation;       // "AllReduce"
  std::string algorithm;       // "RING", "TREE"
  size_t records = 0;          // over all ranks and iterations
  size_t withNetFlows = 0;     // of which had network flows (a rank with net plugin links)
  uint64_t bytes = 0;          // the message size of the first record
  double medianBusbwGBps = 0;  // over the records with network flows (0: none had any)
};

struct ProfileSummary {
  std::map<int, ProfileFiles> byPid;
  std::vector<CollectiveStats> collectives;  // in order of first appearance
  std::set<std::string> nics;                // "mlx5_3 rail 3" from the network summaries
  uint64_t records = 0, recordsLost = 0;     // over every rank process
};

// Throws std::runtime_error naming FILE:LINE:COLUMN when a record does not parse, or the folder
// when it holds no collective log.
ProfileSummary readProfile(const std::filesystem::path& dir);

// The demo's few lines: per collective count and median busbw, the NICs, where the files are, and the
// records on disk beside those counted lost.
// One line for `emu net-job`'s exit: records on disk, records counted lost, in how many rank processes.
std::string formatProfileCount(const ProfileSummary& summary, const std::filesystem::path& dir);
std::string formatProfileSummary(const ProfileSummary& summary, const std::filesystem::path& dir);

}  // namespace railtune::emu::netjob
