// `railtune profile hangs`: operations that never completed, from the watchdog's hang records and from
// missing completions, with the ranks stuck in them, their outstanding flows, and the root causes of the
// hang (the sinks of its waits-for graph: a process that stopped making progress, a link or a NIC both of
// whose sides wait on it); told apart from gaps in a rank's records (lost, not hung) and from hangs that
// resolved. Operations are keyed as NCCL numbers them (progress.h). docs/profile-analysis.md describes the
// rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/profile/logs.h"
#include "analysis/profile/losses.h"
#include "analysis/profile/user_tags.h"
#include "formats/rail_map.h"

namespace railtune::analysis::profile {

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
  int64_t lastCompletedSeq = -1;  // its highest completed seq of the same op (transfer: kind and peer); -1 none
  double stuckForUs = 0;
  bool closedAtFinalize = false;  // a completion closed at finalize followed the hang record: the hang wins
  std::vector<StuckFlow> flows;   // flows with outstanding steps
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

// A rank with no record of an operation it is not stuck in: it went past it (completed a later one),
// or its records were reported lost after its last completion.
struct LostRank {
  int rank = -1;
  std::string host;
  bool wentPast = false;
};

// A collective (op, seq), or a transfer (op "p2p", from -> to, seq).
struct HungCollective {
  bool hasComm = false;
  uint64_t comm = 0, seq = 0;
  std::string op;
  int from = -1, to = -1;  // a transfer's sender and receiver
  int nRanks = 0;
  std::string algorithm;  // NCCL's, from the hang records ("RING", "TREE", ...); "" unknown
  CollectiveTrait trait;  // its user tag and path, from the hang records or the ranks that completed it
  std::vector<StuckRank> stuck;
  std::vector<int> completed;  // ranks that completed it
  std::vector<LostRank> lost;  // ranks whose record of it was lost
  std::vector<int> silent;     // ranks of the comm that wrote no record at all
  std::optional<SuspectLink> suspect;
};

// Records of one rank missing, but not a hang. afterLast false: seqs first..last of a series it went
// past. afterLast true: its records stop after lastCompletedSeq and a loss was reported after its last
// completion, so whether it hung is unknown.
struct RecordGap {
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;
  std::string host, op;
  int from = -1, to = -1;
  uint64_t firstSeq = 0, lastSeq = 0, count = 0;
  bool afterLast = false;
  int64_t lastCompletedSeq = -1;
};

// A hang record whose operation completed later (by its events, not at finalize): slow, not hung.
struct ResolvedHang {
  bool hasComm = false;
  uint64_t comm = 0, seq = 0;
  std::string op;
  int from = -1, to = -1;
  int rank = -1;
  std::string host, closedBy;
  double afterS = 0;  // from the operation's start to its completion
};

// A sink of the job's waits-for graph (hangs_graph.h), what an operator acts on first.
enum class CauseKind { Rank, Nic, Link };

struct RootCause {
  CauseKind kind = CauseKind::Rank;
  // Rank: a process that others wait on and that wrote no hang record of its own (frozen, stopped,
  // killed, or alive elsewhere and never entered the operation). Named by its rank in the communicator
  // where it stopped first; pid 0 and host "" when it wrote no record at all.
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;
  std::string host;
  int pid = 0;
  std::string op;  // where it stopped: the first hung operation it is stuck in
  uint64_t seq = 0;
  int from = -1, to = -1;         // ... when that is a transfer
  int64_t lastCompletedSeq = -1;  // its last completed seq of that series; -1 none
  bool wroteRecords = false;      // it wrote records of that communicator before it stopped
  int waiters = 0;                // processes waiting on it, directly or through others
  int comms = 0;                  // communicators whose hung operations wait on it
  // Link (data flows from -> to) and NIC: ends as far as the records tell; the links through a NIC.
  std::optional<LinkEnd> linkFrom, linkTo;
  int fromPid = 0, toPid = 0;
  uint32_t sendOutstanding = 0, recvOutstanding = 0;
  std::string nicHost, hca;
  int nicRank = -1, nicPid = 0, rail = -1, links = 0;
  // NIC: the NIC at the other end of the same links, when they all end at it too (nothing tells which
  // of the two went down).
  std::string orNicHost, orHca;
  int orNicRank = -1, orNicPid = 0;
  std::string text;  // the sentence the table prints
};

struct JobHangs {
  std::string job;
  std::vector<RootCause> causes;     // first the one to act on; empty when nothing is hung
  std::vector<HungCollective> hung;  // by comm, then op, then seq
  std::vector<RecordGap> gaps;       // by comm, rank, op, seq
  std::vector<ResolvedHang> resolved;
  std::vector<LossReport> losses;
};

struct HangReport {
  std::vector<JobHangs> jobs;  // by job id, every job read (an empty `hung` when it is healthy)
};

HangReport analyseHangs(const ProfileLogs& logs, const formats::RailMap* railMap,
                        const std::optional<std::string>& job);

}  // namespace railtune::analysis::profile
