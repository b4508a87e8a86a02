// One NCCL-like use of a loaded plugin per cycle (init, a call, finalize), so that load/unload cycles
// also run the code that allocates, logs and starts threads, not just the static initializers.
#pragma once

namespace railtune::hygiene {

// Each takes the dlopen handle of its plugin and a cycle number (which picks the ABI version used).
// They return a description of the first broken promise, or nullptr.
const char* exerciseTuner(void* handle, int cycle);
const char* exerciseNet(void* handle, int cycle);
const char* exerciseProfiler(void* handle, int cycle);
// The env plugin answers from RAILTUNE_RAIL_MAP (the docs' example map, which this sets) and retires its table at
// finalize: the cycle checks that unloading frees what init built.
const char* exerciseEnv(void* handle, int cycle);

}  // namespace railtune::hygiene
