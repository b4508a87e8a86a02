// `railtune sweep parse`'s work: nccl-tests outputs of any version (text or -J JSON) into the sweep dataset
// (docs/formats.md#sweep-dataset). The inputs are planned into jobs (parse_jobs.h), read in parallel and
// streamed (read_output.h): each file is read line by line and its rows written as they come, in input order,
// so memory stays bounded whatever the size of the outputs (docs/performance.md). A row with impossible values
// is a counted bad row naming FILE:LINE and why. Nothing is left behind when no row was read.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/parse_jobs.h"

namespace railtune::sweep {

struct ParseRequest {
  std::vector<ParseInput> inputs;
  OutputContext base;           // --collective and what is known of the NVLink domains
  ClusterReader readCluster;    // reads the rail map or fabric a sweep's manifest names
  std::string output;           // the dataset to write
  size_t keepDiagnostics = 21;  // per file: kept (the rest counted)
};

struct ParseSummary {
  size_t jobs = 0, filesWithRows = 0;
  size_t rows = 0, runs = 0, flagged = 0, badRows = 0;
  size_t rejected = 0, failed = 0;             // runs of sweep folders that gave no output to read
  std::vector<DatasetDiagnostic> diagnostics;  // the plan's notes, then each file's, in input order
  size_t moreDiagnostics = 0;                  // the files' diagnostics past keepDiagnostics, counted
};

// Writes the dataset when any row was read (atomically: an earlier dataset stays until then). Throws
// std::runtime_error (or std::invalid_argument) for an input that cannot be used (parse_jobs.h) or an output that
// cannot be written.
ParseSummary parseOutputs(const ParseRequest& request);

// What the jobs behind the head may hold before they wait for it.
inline constexpr size_t kParseMaxBufferedBytes = size_t{64} << 20;

}  // namespace railtune::sweep
