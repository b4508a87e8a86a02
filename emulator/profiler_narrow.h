// NCCL's profiler adapters (profiler_v1..v6.cc), as pure functions: the newest descriptor and state
// arguments narrowed to an older version. Each returns false when that version does not receive the
// event or state at all (NCCL then returns success without calling the plugin).
#pragma once

#include "nccl/profiler_v1.h"
#include "nccl/profiler_v2.h"
#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v5.h"
#include "nccl/profiler_v6.h"
#include "nccl/profiler_v7.h"

namespace railtune::emu {

// NCCL 2.31.2's v6 adapter (profiler_v6.cc:17-140): KernelPhase events are not passed on, every other member
// is copied but the v7 ones (userTag, kernelVariant, isSymColl).
bool narrowDescriptor(const ncclProfilerEventDescr_v7_t& in, ncclProfilerEventDescr_v6_t* out);
// ... and its KernelPhaseStop state is not passed on.
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v7_t* in,
                     ncclProfilerEventStateArgs_v6_t* out);
// The other way: an event built by a caller as v6, as v7 (the v7 members zero).
ncclProfilerEventDescr_v7_t widenDescriptor(const ncclProfilerEventDescr_v6_t& in);

bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v5_t* out);
bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v4_t* out);
bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v3_t* out);
bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v2_t* out);
bool narrowDescriptor(const ncclProfilerEventDescr_v6_t& in, ncclProfilerEventDescr_v1_t* out);

bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v5_t* out);  // v5: copy-engine states dropped
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v4_t* out);
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v3_t* out);
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v2_t* out);
bool narrowStateArgs(ncclProfilerEventState_t state, const ncclProfilerEventStateArgs_v6_t* in,
                     ncclProfilerEventStateArgs_v1_t* out);

// NCCL's v1 adapter turns names back into codes, comparing with its own spellings (upper-case
// algorithm names, "ncclFloat32"-style types): what it does not recognise becomes its last choice.
uint8_t v1FuncCode(const char* func);
uint8_t v1AlgoCode(const char* algo);
uint8_t v1ProtoCode(const char* proto);
uint8_t v1DatatypeCode(const char* datatype);

}  // namespace railtune::emu
