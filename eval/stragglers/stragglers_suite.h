// The stragglers suite (docs/accuracy.md, "stragglers"): synthetic jobs (analysis/synth) with late ranks,
// trays and racks, realistic jitter, host clocks skewed by up to +-50 ms that drift, several hosts on one
// machine (one boot id), and logs damaged on the way; `profile stragglers`' offenders and clock offsets
// scored against what was injected.
#pragma once

#include <memory>

#include "eval/common/suite.h"

namespace railtune::eval {

std::unique_ptr<Suite> makeStragglersSuite();

}  // namespace railtune::eval
