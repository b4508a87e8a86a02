// A folder of profiler logs (and path logs) read into memory for `railtune profile`: what the analyses
// need and nothing more. Completed collectives are kept as 32-byte samples, because a job of 8,192
// ranks x 1,000 collectives is 8.2 M lines; hang records and path-log connect records are rare and kept
// whole. Reading is tolerant: a bad line is reported "FILE:LINE:COLUMN: reason" and skipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/profile_logs.h"

namespace railtune::analysis::profile {

// One process's view of one communicator: the writer's identity and its rank there.
struct Stream {
  uint32_t job = 0;   // index into ProfileLogs::jobs
  uint32_t host = 0;  // index into ProfileLogs::hosts
  int pid = 0;
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;   // -1: the records did not say
  int nRanks = 0;  // 0: the records did not say
  int boot = -1;   // index into ProfileLogs::bootIds: the process's header named its host's boot id; -1 unknown
};

// One completed collective on one rank. A collective is (job, comm, op, seq): NCCL numbers seq per
// collective type, so AllReduce #0 and AllGather #0 are different operations.
struct Sample {
  int64_t endRealtimeNs = 0;
  int64_t durationNs = 0;  // on the writer's monotonic clock
  uint64_t seq = 0;
  uint32_t stream = 0;  // index into ProfileLogs::streams
  uint32_t op = 0;      // index into ProfileLogs::ops
};
static_assert(sizeof(Sample) == 32, "a sample is what 8 M of them can afford");

// A collective sample not closed by its events (rare, so kept beside the samples, not in them).
struct UnusualClose {
  uint32_t sample = 0;  // index into ProfileLogs::samples
  formats::profile::CloseReason closedBy = formats::profile::CloseReason::Events;
};

// What profiler v7 says of a collective sample beyond its timing: the application's tag, the NCCL path
// that ran it, and the two kernel phases the straggler causes need (phase_causes.h). Kept beside the
// samples (by sample) and only for samples that have one of them, so that logs of earlier profilers cost
// nothing more; 32 bytes like a sample, because a v7 job has one per sample.
struct SampleTraits {
  uint32_t sample = 0;  // index into ProfileLogs::samples
  formats::profile::OperationPath path = formats::profile::OperationPath::Tuned;
  bool tagged = false;  // a user tag other than 0 (NCCL's "untagged")
  bool phases = false;  // the initial sync and compute phases below were both timed
  uint64_t userTag = 0;
  int64_t initialSyncNs = 0, computeNs = 0;  // the longest channel's, when `phases`
};
static_assert(sizeof(SampleTraits) == 32, "one per sample of a v7 job");

// One completed Send or Recv on one rank. seq counts this rank's earlier operations of the same kind
// with the same peer, so the k-th Send from r to p and p's k-th Recv from r are one transfer.
struct P2pSample {
  int64_t startRealtimeNs = 0, endRealtimeNs = 0;
  uint64_t seq = 0;
  uint32_t stream = 0;
  int peer = -1;
  bool send = false;
  formats::profile::CloseReason closedBy = formats::profile::CloseReason::Events;
  bool enqueueTimed = false;  // start and end are the enqueue's ("timing": "enqueue"): it bounds no clock
};

// What one process (and, for a communicator's own notices, one rank) reported lost, and when: records
// the writer's queue dropped, operations and events a full pool dropped. Old files attach
// records_dropped to completed records; it counts here all the same.
struct Loss {
  uint32_t job = 0, host = 0;
  int pid = 0;
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;  // -1: the writer's loss, for every rank of the process
  uint64_t recordsDropped = 0, operationsDropped = 0, eventsDropped = 0;
  int64_t firstNs = 0, lastNs = 0;  // realtime of the first and last line that reported it
};

// The local end of one connection from a path log: where a rank's traffic to a peer left its host.
struct PathEnd {
  std::string job, host;
  int pid = 0;
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;
  int gpu = -1, device = -1, rail = -1;
  std::string hca;
  std::string peerHost;
  int peerRank = -1;
  bool send = false;
};

struct HangRecord {
  std::string file;
  formats::profile::ParsedCollective parsed;
};

// A process that wrote a collective log's header line: it loaded the profiler, whatever it recorded after.
struct WriterProcess {
  std::string job, host;
  int pid = 0;
  auto operator<=>(const WriterProcess&) const = default;
};

struct ReadProblems {
  std::vector<std::string> first;  // the first messages, in file then line order
  uint64_t count = 0;
};

struct ProfileLogs {
  std::vector<std::string> jobs, hosts, ops;
  std::vector<std::string> bootIds;  // the boot ids header lines named: processes with one share a clock
  std::vector<Stream> streams;
  std::vector<Sample> samples;
  std::vector<UnusualClose> unusualCloses;  // by sample
  // Samples whose start and end are their enqueue's ("timing": "enqueue", the profiler saw no kernel or
  // proxy event): they bound no clock. Rare, so kept beside the samples, by sample.
  std::vector<uint32_t> enqueueTimed;
  std::vector<SampleTraits> traits;  // by sample: the v7 tag, path and phases of those that have them
  std::vector<P2pSample> p2p;
  std::vector<Loss> losses;  // by job, host, pid, comm, rank
  std::vector<HangRecord> hangs;
  std::vector<PathEnd> pathEnds;
  std::vector<WriterProcess> writers;  // by job, host, pid; once each
  ReadProblems problems;
  size_t collectiveFiles = 0, netFiles = 0, pathLogFiles = 0, skippedFiles = 0;
  // Files that could not be opened or read (counted here, not as bad lines or skipped files), and what
  // the folder walk passed over (FIFOs, devices, link loops, unreadable folders): "PATH: reason" each.
  size_t unreadableFiles = 0;
  std::vector<std::string> inputNotes;
  uint64_t p2pRecords = 0, droppedNotices = 0, recordsDropped = 0;
  // Lines the fast reader left to the strict one and the strict one accepted (hangs, escapes...).
  uint64_t strictLines = 0;
};

struct ReadOptions {
  std::vector<std::string> folders;  // searched recursively for *.jsonl
  bool pathLogs = false;             // also read path logs (railtune.path_log.v1)
  unsigned threads = 0;              // 0: std::thread::hardware_concurrency()
  size_t maxProblems = 20;
};

// Reads every *.jsonl file under the folders (symbolic links followed once; analysis/ingest/folder_walk.h),
// classified by the schema of its first parseable line. Throws std::runtime_error only when a folder
// given cannot be listed.
ProfileLogs readProfileLogs(const ReadOptions& options);

// Which kind of file the schema of its first parseable line says it is.
enum class LogKind { Collectives, Net, PathLog, Unknown };
LogKind classifySchema(const std::string& schema);

}  // namespace railtune::analysis::profile
