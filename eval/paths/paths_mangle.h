// What launchers and shared files do to path logs (eval/paths/paths_suite.cc): a process's log split over two
// files (rotation, NCCL_DEBUG_FILE beside stdout), a copy of a log in another folder (collected twice, or once
// mid-run and once at the end), two writers in one file (interleaved, and a line cut by another writer's line:
// spliced), a file cut short (a writer killed mid-write, a full disk), and every line of the job shuffled over a few
// files. Each output line remembers whether it is intact and which record it carried, so the truth can say what
// survived and which lines the analysis must name as unreadable.
#pragma once

#include <string>
#include <vector>

#include "eval/paths/paths_job.h"

namespace railtune::eval::paths {

struct OutLine {
  std::string text;
  bool intact = true;  // a whole record; else damaged, and the record it started is lost
  int writer = -1;
  long end = -1;  // as LogLine::end
};

struct OutFile {
  std::string path;  // relative to the log folder
  std::vector<OutLine> lines;
  bool finalNewline = true;  // false: the file ends in the middle of its last line
};

// "none" leaves one file per process; the others are the suite's mangle kinds.
const std::vector<std::string>& mangleKinds();

std::vector<OutFile> mangle(const GeneratedJob& job, const std::string& kind, Rng& rng);

// Writes the files under `dir`; throws std::runtime_error naming a file it cannot write.
void writeFiles(const std::vector<OutFile>& files, const std::string& dir);

}  // namespace railtune::eval::paths
