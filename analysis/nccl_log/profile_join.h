// Bytes for imported connections: railtune's profiler, run in the same job, wrote per operation the network
// flows of each channel towards each peer (railtune.profile.net.v1, "<...>.net.jsonl"). Summed per
// (process, communicator, rank, channel, peer, direction) they become a close record of the imported
// connection NCCL printed for that channel and peer, so traffic per NIC and per rail is measured, not assumed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/nccl_log/import.h"

namespace railtune::analysis::nccl_log {

struct ProfileJoinCounts {
  uint64_t files = 0;           // network-summary files read
  uint64_t records = 0;         // their operation lines
  uint64_t badLines = 0;        // lines the strict reader refused (named in the diagnostics)
  uint64_t flows = 0;           // flows read
  uint64_t flowsJoined = 0;     // added to an imported connection
  uint64_t flowsUnmatched = 0;  // no imported connection of that process, rank, channel, peer and direction
  uint64_t flowsDropped = 0;    // flows the profiler itself could not record (flows_dropped)
  uint64_t connectionsWithBytes = 0;
};

// Reads every "*.net.jsonl" below the folders and adds one close record per connection that got bytes to
// the import. A collective's flows go to the connection of connIndex 0, a Send's or Recv's to connIndex 1
// (NCCL's p2p connections), and to the only connection where the log prints no connIndex (NCCL <= 2.11).
// Processes are matched by host (NCCL's short name, or the profiler's full one) and pid.
// Whether a file is a profiler network summary, by its name ("<...>.net.jsonl").
bool isNetSummary(const std::string& path);

ProfileJoinCounts joinProfileFlows(const std::vector<std::string>& folders, Import* import);

}  // namespace railtune::analysis::nccl_log
