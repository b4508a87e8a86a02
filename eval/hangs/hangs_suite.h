// `railtune eval hangs` (docs/accuracy.md): `profile hangs` scored against injected truth. Synthetic jobs
// of 8 to 512 ranks (synth_job.h: ring, tree and NVLS-like patterns, several communicators) with a rank
// stopped, killed or never entering, a link stopped in one direction, a NIC down, and two non-hangs (a
// slow rank whose hang records resolve, a healthy job); emulated 8-rank jobs through the real plugin .so
// files (`railtune emu net-job --profile-dir`, a rank SIGSTOPped or SIGKILLed, or healthy). A hang is
// scored on the first root cause the analysis names; a non-hang on naming no hang. Every log folder is
// also read truncated and shuffled: the analysis must finish and report what it could not read.
#pragma once

#include <memory>

#include "eval/common/suite.h"

namespace railtune::eval {

std::unique_ptr<Suite> makeHangsSuite();

}  // namespace railtune::eval
