// What the logs say was lost, for both `railtune profile` reports: per process (the writer's queue:
// records_dropped) and per rank (a full pool: operations_dropped, events_dropped), with the realtime
// range of the lines that said so. A rank whose records are incomplete is not judged on them alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/profile/logs.h"

namespace railtune::analysis::profile {

struct LossReport {
  std::string host;
  int pid = 0;
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;  // -1: the writer's loss (every rank of the process)
  uint64_t recordsDropped = 0, operationsDropped = 0, eventsDropped = 0;
  int64_t firstNs = 0, lastNs = 0;
};

// The job's losses, by host, pid, comm and rank.
std::vector<LossReport> jobLosses(const ProfileLogs& logs, uint32_t job);

// Whether whole records of this rank (its process's writer, or its own communicator's pool) were
// reported lost at or after `afterNs` (realtime of its host).
bool recordsLostAfter(const ProfileLogs& logs, uint32_t job, bool hasComm, uint64_t comm, int rank, int64_t afterNs);

nlohmann::json lossesJson(const std::vector<LossReport>& losses);
// "  records lost: ..." lines, at most `maxItems` of them; nothing when none was lost.
std::string lossesText(const std::vector<LossReport>& losses, size_t maxItems);

}  // namespace railtune::analysis::profile
