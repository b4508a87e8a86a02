// One log file read by one thread into its own tables (logs.cc merges them): what readProfileLogs
// does per file, apart so that it can be tested and fuzzed on a single file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profile/logs.h"

namespace railtune::analysis::profile {

// A stream as one file knows it (strings not yet shared with the other files).
struct FileStream {
  std::string job, host;
  int pid = 0;
  bool hasComm = false;
  uint64_t comm = 0;
  int rank = -1;
  int nRanks = 0;
};

// A loss as one file knows it (logs.h, Loss).
struct FileLoss {
  std::string job, host;
  Loss loss;  // job and host not yet set
};

// A header line's boot id: the process (job, host, pid) ran on a host booted as bootId.
struct FileBoot {
  std::string job, host;
  int pid = 0;
  std::string bootId;
};

struct FileResult {
  LogKind kind = LogKind::Unknown;
  std::vector<FileStream> streams;
  std::vector<std::string> ops;
  std::vector<Sample> samples;              // stream and op index this file's tables
  std::vector<UnusualClose> unusualCloses;  // sample indexes this file's samples
  std::vector<uint32_t> enqueueTimed;       // this file's samples timed by their enqueue
  std::vector<SampleTraits> traits;         // sample indexes this file's samples
  std::vector<P2pSample> p2p;               // stream indexes this file's streams
  std::vector<FileLoss> losses;
  std::vector<FileBoot> boots;
  std::vector<HangRecord> hangs;
  std::vector<PathEnd> pathEnds;
  std::vector<WriterProcess> writers;  // from header lines
  std::string unreadable;              // "PATH: cannot open: Permission denied"; "" when read
  std::vector<std::string> problems;   // the first maxProblems
  uint64_t problemCount = 0;
  uint64_t p2pRecords = 0, droppedNotices = 0, recordsDropped = 0, strictLines = 0;
};

// pathLogs: read path logs too (else a path log is classified and passed over).
FileResult readLogFile(const std::string& path, bool pathLogs, size_t maxProblems);

}  // namespace railtune::analysis::profile
