// NCCL's own cost-model constants (ncclTunerConstantsDefaults, src/graph/tuning.cc) of the releases
// railtune models, in one copy: the tuner uses 2.30's for communicators whose NCCL passes none (tuner
// ABI v2..v4), and the emulator hands each release's to the plugin as that NCCL would.
#pragma once

#include "formats/nccl_enums.h"

namespace railtune::formats {

enum class NcclRelease { V2_28, V2_30 };  // 2.28.9 and 2.30.7

CostModelConstants ncclDefaultConstants(NcclRelease release);

}  // namespace railtune::formats
