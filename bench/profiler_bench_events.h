// The event sequences bench_profiler_events times, one per event type, each through a profiler's
// ncclProfiler_v5, _v6 or _v7 table in NCCL's order and with NCCL's parents (a ProxyStep under a ProxyOp
// under a Coll; a KernelPhase under a KernelCh). Only the calls of the measured type are timed (for Collective and
// CollectiveDefault, every call of the collective); the parents and the children that complete each collective are
// driven between the timed stretches, so that every collective completes (the profiler builds its record) and no pool
// fills however long a round runs.
#pragma once

#include <cstdint>

#include "bench/profiler_bench_table.h"

namespace railtune::bench {

enum class EventKind {
  Group,
  Coll,
  P2p,
  ProxyOp,
  ProxyStep,
  KernelCh,
  NetPlugin,
  Collective,
  CollectiveDefault,
  KernelPhase,  // v7 only
};

const char* eventKindName(EventKind kind);  // "Group", ..., "Collective"

// How many start/stop pairs one unit of `kind` is through a table of `abiVersion`: 1 for every event type;
// for Collective (a whole collective, every event type in it, timed from its Group start to its last
// KernelCh stop) the number of pairs in it; CollectiveDefault is the same collective with only the events
// NCCL sends for RAILTUNE_PROFILE_MASK=default: through v5, NCCL 2.30's Group, Coll, KernelCh and ProxyOp
// pairs (8); through v6 and v7, NCCL 2.31's calls (the GroupApi, CollApi and Group starts, which get a NULL
// handle and so no stop, timed but not counted; Coll; each KernelCh with its stop state; 4 ProxyOps; under
// v7 the three KernelPhase events of each channel): 7 pairs through v6, 13 through v7.
uint32_t pairsPerUnit(EventKind kind, int abiVersion);

// What a round measured: the time spent in the timed stretches (clock overhead subtracted) and the
// pairs timed; the median over its stretches of a stretch's time per pair (a stretch is 32 units, or
// 4 whole collectives: a few microseconds, so that the few in which the thread lost its CPU to
// another process do not move it); the collectives and P2p operations completed (each one record in
// the profiler).
struct RoundResult {
  double timedNs = 0;
  double medianStretchNsPerPair = 0;
  uint64_t pairs = 0;
  uint64_t operationsCompleted = 0;
};

// Runs `units` units of `kind` on one communicator's context of `table` (ncclProfiler_v5_t, _v6_t or
// _v7_t; KernelPhase only through v7). Not thread-safe for one context; two threads may run rounds on two
// contexts at once.
template <typename Table>
RoundResult runRound(const Table& table, void* context, EventKind kind, uint64_t units);

// The cost of reading the clock around an empty timed stretch (median of many), in ns: subtracted
// from every stretch. Measured once, at the first call.
double clockOverheadNs();

}  // namespace railtune::bench
