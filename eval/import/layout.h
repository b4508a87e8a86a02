// How a job's NCCL logs reach `paths import`: one file per process, a launcher's interleaved stdout, and
// what launchers and shared files do to them (split, duplicated, spliced, cut, mixed with other output,
// shuffled). Each layout says which connection ends it damaged and which lines must be named as bad.
#pragma once

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "eval/import/nccl_job.h"

namespace railtune::eval::import_suite {

enum class Mangling { None, Interleaved, Split, Duplicated, Spliced, CutLastLines, OtherOutput, CutShuffled };

struct LogFile {
  std::string name;  // relative to the scenario's folder
  std::vector<std::string> lines;
  bool lastNewline = true;
};

// A damaged line the import must name as bad ("FILE:LINE"), unless it read the end it still holds rightly
// (a splice "host1:" + "host2:56:78 [1] NCCL INFO ..." leaves host2's line whole).
struct MustName {
  std::string file;
  int line = 0;
  int readableEnd = -1;
};

struct Layout {
  std::vector<LogFile> files;
  std::vector<std::string> given;  // what is passed to the import (a file may be given twice)
  std::set<int> lost;              // ends whose line was damaged or not written: not expected as records
  std::set<int> maybe;             // ends whose line may or may not survive (a splice that left it readable)
  std::vector<MustName> mustName;
  std::set<std::string> commUnstated;  // "host:pid" whose communicator's lines were cut away or spliced
  std::set<std::string> hcaUnstated;   // "host:pid" whose device list was spliced
};

Layout layOut(const NcclJob& job, Mangling mangling, std::mt19937_64& rng);

}  // namespace railtune::eval::import_suite
