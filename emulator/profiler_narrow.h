// NCCL's profiler adapters (profiler_v1..v5.cc), as pure functions: the newest descriptor and state
// arguments narrowed to an older version. Each returns false when that version does not receive the
// event or state at all (NCCL then returns success without calling the plugin).
#pragma once

#include "nccl/profiler_v1.h"
#include "nccl/profiler_v2.h"
#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v5.h"
#include "nccl/profiler_v6.h"

namespace railtune::emu {

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
