// Host clock offsets for `profile stragglers`, bounded by what the collectives make impossible
// (docs/profile-analysis.md, "Host clocks"). In a synchronising collective (AllReduce, AllGather,
// ReduceScatter, AllToAll: every rank's output needs every rank's input) no rank ends before the last rank
// started, in true time. With x_k the offset of clock k and L_c the true time the last rank entered
// collective c, every rank r on clock k gives
//     start_r - x_k <= L_c <= end_r - x_k,   i.e.   maxStart_k(c) <= x_k - y_c <= minEnd_k(c),  y_c = -L_c,
// a difference-constraint system over clocks and collectives (a Send and its Recv add one more: the
// receive ends after the send started). Its shortest paths from a reference clock
// bound every x_k - x_ref from above and below (Bellman-Ford, each round one pass over the (collective,
// clock) pairs: near-linear in the samples). The estimate is where in that interval the collectives'
// ends line up (ranks of a synchronising collective end together; their starts differ by the lateness
// looked for), and its error bar the distance to the interval's farther end: half its width at best.
// A clock that runs fast or slow (drift, in ppm) breaks the system over a long job, so the job is also
// solved in windows of collectives, each clock's rate fitted (the slope of its windows' aligned ends,
// kept within what the windows' intervals allow), the whole job solved again with every timestamp
// corrected by its clock's rate, and each interval widened by what the rates' uncertainty moves over
// half the job. Processes whose header names one boot id read one clock: offset 0 by construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profile/collectives.h"
#include "analysis/profile/logs.h"

namespace railtune::analysis::profile {

struct ClockOptions {
  int64_t windowNs = 100'000'000;  // drift: windows of collectives spanning about this much time
  size_t minWindows = 3;           // ... a rate is fitted only from at least this many bounded windows
  int maxRounds = 64;              // Bellman-Ford rounds; each relaxation is a real path, so stopping early stays sound
};

struct ClockEstimate {
  std::string key;                // the boot id, or the host name when the logs name no boot id
  bool fromBootId = false;        // key is a boot id
  std::vector<uint32_t> trays;    // the job's hosts (Placement tray indices) that read this clock
  uint64_t collectives = 0;       // synchronising collectives it took part in (with another clock)
  bool bounded = false;           // an interval relative to the reference clock exists
  int64_t lowNs = 0, highNs = 0;  // the interval the collectives leave for its offset (rate errors included)
  int64_t offsetNs = 0;           // its realtime minus the reference clock's at ClockModel::referenceNs: within the
                                  // interval, where its collectives' ends line up with the others'
  int64_t errorNs = 0;            // how far the offset can be off: to the farther end of the interval
  double rate = 0;                // drift relative to the reference clock: seconds gained per second
  double rateError = 0;           // half the range of rates the windows allow (0: no drift fitted)
};

struct ClockModel {
  std::vector<uint32_t> clockOfStream;  // per stream of the logs; kNone when not in the job
  std::vector<ClockEstimate> clocks;    // by key
  uint32_t reference = 0;               // the clock offsets are relative to (the one in most collectives)
  int64_t referenceNs = 0;              // realtime (reference clock) the offsets are given at
  size_t windows = 0;                   // windows the rates were fitted over (0: one solve, no drift)
  int64_t toleranceNs = 0;              // slack the final solve needed to be consistent (0 normally)
  bool consistent = true;               // false: even with slack the collectives contradicted each other
  uint64_t synchronising = 0;           // collectives used (synchronising, on at least two clocks)
  uint64_t transfers = 0;               // Send/Recv pairs between two clocks used

  // The offset of `clock` at realtime t (read on that clock): offset + rate x (t - referenceNs).
  int64_t offsetAt(uint32_t clock, int64_t realtimeNs) const;
};

// `trayOfStream` gives each stream's host (tray) in the job; clocks are numbered in key order.
ClockModel estimateClocks(const ProfileLogs& logs, const CollectiveIndex& index,
                          const std::vector<uint32_t>& trayOfStream, const ClockOptions& options = {});

// Whether an operation is one where no rank can finish before every rank started.
bool synchronisingOp(const std::string& op);

}  // namespace railtune::analysis::profile
