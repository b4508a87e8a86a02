// What one rank reports back to the launcher (a JSON file in the job folder, written by the rank's
// process before it exits) and how the launcher reads it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace railtune::emu::netjob {

struct CollectiveResult {
  std::string collective;  // collectiveName()
  size_t bytes = 0;        // per rank, as asked
  int iterations = 0;
  double seconds = 0;        // this rank's wall time over the timed iterations
  size_t verifiedBytes = 0;  // received and checked, timed iterations
  int warmup = 0;            // untimed iterations run first, followed by a barrier of all ranks
};

struct RankResult {
  int rank = -1;
  int pid = 0;           // the rank's process: path log files and records name it
  std::string startTag;  // its processStartTag(), the "<pid>.<tag>" of the record files it names
  std::string host;
  int gpu = -1;
  std::string hca;
  int device = -1;  // the plugin device it used; -1: no plugin connection
  int pluginSends = 0, pluginRecvs = 0, nvlinkSends = 0, nvlinkRecvs = 0;
  std::vector<CollectiveResult> collectives;
  std::string error;       // "" when every byte was verified
  int64_t failedAtUs = 0;  // when the error happened: steady clock (CLOCK_MONOTONIC, shared by all ranks), us
  std::vector<std::string> pluginWarnings;  // WARN lines the plugin logged
};

std::string renderResult(const RankResult& result);
// Throws std::runtime_error naming the file when it is missing or malformed.
RankResult readResultFile(const std::string& path);
void writeResultFile(const std::string& path, const RankResult& result);

}  // namespace railtune::emu::netjob
