// `railtune profile hangs`: collectives that never completed, from the watchdog's hang records and from
// missing completions, with the ranks stuck in them, their outstanding flows, and the suspect link.
// docs/profile-analysis.md describes the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/profile/logs.h"
#include "fabric/rail_map.h"

namespace railtune::cli::profile {

struct StuckFlow {
  int channel = -1, peer = -1;
  bool send = false;
  uint32_t outstanding = 0;
  std::string hca;  // "" unknown
  int device = -1, rail = -1;
};

struct StuckRank {
  int rank = -1;
  std::string host;
  bool watchdog = false;          // a hang record says so (else: only its completions are missing)
  int64_t lastCompletedSeq = -1;  // its highest completed seq in the comm; -1 none
  double stuckForUs = 0;
  std::vector<StuckFlow> flows;  // flows with outstanding steps
};

// One end of the suspect link, as far as the records and path logs tell.
struct LinkEnd {
  int rank = -1;
  std::string host;
  int gpu = -1, rail = -1;
  std::string hca;
};

struct SuspectLink {
  LinkEnd from, to;                  // data flows from -> to
  int sendFlows = 0, recvFlows = 0;  // outstanding flows pointing at it from each side
  int flowsConsidered = 0;
};

struct HungCollective {
  bool hasComm = false;
  uint64_t comm = 0, seq = 0;
  std::string op;
  int nRanks = 0;
  std::vector<StuckRank> stuck;
  std::vector<int> completed;  // ranks that completed this seq
  std::vector<int> silent;     // ranks of the comm with neither a completion nor a hang record
  std::optional<SuspectLink> suspect;
};

struct JobHangs {
  std::string job;
  std::vector<HungCollective> hung;  // by comm, then seq
};

struct HangReport {
  std::vector<JobHangs> jobs;  // by job id, every job read (an empty `hung` when it is healthy)
};

HangReport analyseHangs(const ProfileLogs& logs, const fabric::RailMap* railMap, const std::optional<std::string>& job);

}  // namespace railtune::cli::profile
