// NCCL INFO logs read into what each process said: its version, its networks' device lists, its
// communicators, and every Channel line. Files may be one per process (NCCL_DEBUG_FILE=%h.%p) or one
// interleaved job log with any line prefix; lines are routed to processes by the "HOST:PID:TID" of NCCL's
// header, so other programs' lines mixed in are passed over. A line that starts like one of NCCL's but
// cannot be read (cut short, garbled, two writers' output spliced into one line) is named "FILE:LINE" and
// skipped. A process exists only when it printed a line that only a process prints of itself (an Init or
// comm line, a device list, its version or its network); a header seen nowhere else is a splice, not a host.
// A connection is one connection however many files carry its line: the same process's log given twice
// (its NCCL_DEBUG_FILE and the job's stdout) adds nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/nccl_log/log_line.h"

namespace railtune::analysis::nccl_log {

struct Diagnostic {
  std::string where;  // "FILE:LINE", "FILE", or "" for a job-level remark
  std::string message;
};

// Where a line was: an index into LogSet::files and its 1-based number. Kept instead of "FILE:LINE" text, since
// a large job has millions of Channel lines.
struct LineRef {
  uint32_t file = 0;
  int line = 0;
};

// One ncclCommInitRank (or the "comm 0x... rank" lines that follow it) in one process.
struct Comm {
  std::string pointer;  // "0x55a223a946d0"
  std::optional<uint64_t> commId;
  int rank = -1, nRanks = 0, cudaDev = -1, nvmlDev = -1;
  std::optional<int64_t> busId;
  int tid = 0;           // the thread that announced it: Channel lines of the same thread belong to it
  bool started = false;  // announced by an "Init START" line, before its Channel lines (2.18.3+)
};

// A Channel line that goes over the network, as one process printed it.
struct NetConnection {
  int comm = -1;        // index into Process::comms; -1: the log does not tie it to a communicator
  int commsBefore = 0;  // how many communicators the process had announced in its file when it printed this
  int tid = 0;
  int headerDevice = -1;  // the [DEV] of the line's header (CUDA device)
  int channel = -1, connIndex = -1;
  int fromRank = -1, toRank = -1;
  std::string fromTag, toTag;  // between the brackets: a bus id (hex, NCCL <= 2.11) or a device index
  bool send = true;            // [send]: this process is fromRank; [receive]: toRank
  std::string net;
  int netDevice = -1, proxyRank = -1;
  bool gdr = false, shared = false;
  LineRef at;
  int localRank() const { return send ? fromRank : toRank; }
  int peerRank() const { return send ? toRank : fromRank; }
};

// Channel lines not carried by the network: counted, not paths (NVLink, shared memory, NVLS, CollNet).
struct LocalChannelCounts {
  uint64_t p2p = 0, shm = 0, nvls = 0, collnet = 0, other = 0;
};

struct Process {
  std::string host;
  int pid = 0;
  std::string version;                  // "2.27.5+cuda12.9"; "" unknown
  std::vector<std::string> networks;    // "Using network IB": in the order printed, each once
  std::vector<DeviceList> deviceLists;  // the latest list per network name
  std::vector<Comm> comms;
  std::vector<NetConnection> connections;
  LocalChannelCounts local;
  std::string firstSeen;  // "FILE:LINE" of its first line
  // Whether it printed a line only a process prints of itself (Init or comm line, device list, version,
  // network): a header that never does is two writers' output spliced, not a process (log_settle.cc).
  bool established = false;
  uint64_t ncclLines = 0;            // its lines, all files together
  std::vector<LineRef> unconfirmed;  // its first lines while not established (named if it never is)
};

struct ReadCounts {
  // files: the files read whole (an unreadable one is in LogSet::unreadable, never here).
  uint64_t files = 0, lines = 0, ncclLines = 0, otherLines = 0, badLines = 0, duplicateLines = 0;
};

struct LogSet {
  std::vector<std::string> files;  // in the order read; LineRef::file indexes it
  std::vector<Process> processes;  // sorted by host, then pid
  std::string version;             // a "NCCL version" line without a header (older NCCL's printf)
  std::vector<Diagnostic> diagnostics;
  // The logs given (or found below a folder given) that could not be read whole: where = the path, message =
  // why ("cannot open: Permission denied", "cannot read: too many levels of symbolic links"). Nothing of
  // them is imported (a file cut off by a read error could mislead) and they are not in `files`.
  std::vector<Diagnostic> unreadable;
  ReadCounts counts;
  std::string where(const LineRef& at) const { return files.at(at.file) + ":" + std::to_string(at.line); }
};

// Builds a LogSet from lines, file after file (what readLogs does, and the fuzz target).
class LogSetBuilder {
 public:
  LogSetBuilder();
  ~LogSetBuilder();
  LogSetBuilder(const LogSetBuilder&) = delete;
  LogSetBuilder& operator=(const LogSetBuilder&) = delete;

  void startFile(const std::string& name);
  void addLine(std::string_view line, int number);
  void addDiagnostic(Diagnostic diagnostic);
  // The file's last line, which has no newline: the file was cut inside it (a cut "NET/IB/1" may have been
  // "NET/IB/12", a cut commId another number). Counted as a bad line, never read.
  void addCutLine(std::string_view line, int number);
  // settle: repeated connections dropped and spliced headers' processes removed (readLogs settles once,
  // after every file is merged).
  LogSet finish(bool settle = true);

 private:
  struct State;
  State* state_;
};

// Reads every file given, and every regular file below each folder given (sorted) but railtune's own outputs
// (*.jsonl, *.json, *.prom). A file that cannot be read (missing, a symlink loop, no permission, an I/O error,
// a FIFO or device given by name) is in LogSet::unreadable; a file in which no NCCL line was found is named in
// the diagnostics.
LogSet readLogs(const std::vector<std::string>& paths);

// Whether a text (a file's first bytes) holds a line NCCL's logger wrote: what `paths check` asks of a file
// that is not a path log before importing it on the fly.
bool looksLikeNcclLog(std::string_view text);

}  // namespace railtune::analysis::nccl_log
