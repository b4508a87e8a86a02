// Writes a synthetic job's files into a folder: per rank its path log, its collective log and, when
// asked for, its network summary, named as the plugins name theirs (formats::path_log::pathLogFileName,
// formats::profile::profileFileName). Ranks are rendered on worker threads, each rank's file in one
// buffer handed to the kernel in large writes: 8,192 ranks x 1,000 collectives is about 4.5 GB.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/synth/synth_job.h"

namespace railtune::analysis::synth {

struct WriteSummary {
  uint64_t files = 0;
  uint64_t bytes = 0;
};

// About how many bytes writeJobFiles will write (from rendering a sample), to check free space first.
uint64_t estimateBytes(const SynthJob& job);

// `threads` <= 0: one per hardware thread. Throws SynthError naming the file on a write failure.
WriteSummary writeJobFiles(const SynthJob& job, const std::string& dir, int threads);

}  // namespace railtune::analysis::synth
