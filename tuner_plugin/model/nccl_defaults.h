// NCCL's own cost-model constants (ncclTunerConstantsDefaults in src/graph/tuning.cc, NCCL 2.30.7), for
// communicators whose NCCL passes none (tuner ABI v2..v4). The emulator keeps its own copy for both
// releases; a test holds the two equal, since the plugin cannot link the emulator.
#pragma once

#include "tuner_plugin/engine.h"

namespace railtune::tuner::model {

CostModelConstants ncclDefaultConstants();

}  // namespace railtune::tuner::model
