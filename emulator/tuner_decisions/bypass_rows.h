// Marks the rows of a decisions report that NCCL decides without a tuner (symmetric kernels, CE AllGather,
// the zero-SM CTA policy: emulator/nccl_model/bypass.h), for the call the report's BypassSettings describe.
#pragma once

#include "emulator/nccl_model/nccl_model.h"
#include "emulator/tuner_decisions/report.h"

namespace railtune::emu {

// Fills each row's `bypass` from the report's communicator, NCCL version and settings and from NCCL's
// topology facts (compute capability, NVLS). The tuned pick NCCL consults for NCCL_SYM_NOWIN_ENABLE is the
// row's railtune column. A version the bypass model does not know leaves every row tuned, with a warning.
void markBypassRows(DecisionsReport& report, const ncclmodel::TopologyFacts& topo);

}  // namespace railtune::emu
