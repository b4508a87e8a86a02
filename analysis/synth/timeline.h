// The collectives of a synthetic job and when each rank ran them. The model is what the straggler
// analysis has to see through:
//   - every host has its own realtime clock offset (uniform within +-50 ms by default, far more than a
//     collective lasts) and its own monotonic base (an uptime), so timestamps of different hosts do
//     not compare directly;
//   - collective `seq` is entered by every rank at true time t0(seq) plus 0..20 us of jitter, plus
//     the delay of its offender (offenders.h) when that offender is late in this collective;
//   - a collective cannot finish before its last rank arrived: every rank ends at the last arrival +
//     the collective's base duration (bytes over the ring's bandwidth) + 0..5 us of jitter.
//   - ordinary noise (TimingSpread::noiseShare): now and then any rank arrives up to noiseMaxNs late once,
//     which no analysis should call a straggler;
//   - a host's clocks may drift (TimingSpread::maxDriftPpm), and several hosts may be one machine
//     (hostsPerClock): one clock, one boot id (the emulator's processes, or containers on one node).
// The spreads are options (TimingSpread): a test that checks an estimate to the nanosecond turns the
// end jitter off.
// So the rank that arrived last has the shortest duration: lateness shows as a duration deficit.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/synth/offenders.h"
#include "analysis/synth/placement.h"
#include "analysis/synth/step_phases.h"

namespace railtune::analysis::synth {

struct CollectiveSpec {
  const char* op = "";  // "AllReduce", "AllGather", "ReduceScatter"
  const char* datatype = "";
  const char* algorithm = "";
  const char* protocol = "";
  uint64_t bytes = 0;            // count x datatype size, as nccl-tests reports it
  uint64_t bytesPerChannel = 0;  // what each rank sends to its ring neighbour on one channel
  int64_t t0Ns = 0;              // true time the collective is entered (job clock)
  int64_t baseNs = 0;            // duration once every rank is in
  int64_t lastArrivalNs = 0;     // true time the last rank arrived
  int64_t computeDelayNs = 0;    // the slowest slow-compute offender's extra compute time (step_phases.h)
  bool symmetric = false;        // ran a symmetric-memory kernel (V7Spec::symmetricShare)
};

struct RankTiming {
  int64_t arrivalNs = 0, endNs = 0;  // true time
};

// A host's clocks. Both run fast by driftPpm (NTP slews CLOCK_REALTIME and CLOCK_MONOTONIC alike), so
// at true time t (since the job's true time 0) realtime reads jobStart + t + realtimeOffsetNs + drift x t.
struct HostClock {
  int64_t realtimeOffsetNs = 0;  // the host's CLOCK_REALTIME minus true time, at the job's true time 0
  int64_t monotonicBaseNs = 0;   // the host's CLOCK_MONOTONIC at the job's true time 0
  double driftPpm = 0;           // how fast it runs, in parts per million (negative: slow)
  int64_t driftNs(int64_t trueNs) const { return static_cast<int64_t>(static_cast<double>(trueNs) * driftPpm * 1e-6); }
};

struct TimingSpread {
  int64_t arrivalJitterNs = 20'000;       // each rank's arrival: 0..this after the collective's t0
  int64_t endJitterNs = 5'000;            // each rank's end: 0..this after the common end
  int64_t maxClockOffsetNs = 50'000'000;  // each host's realtime clock: within +-this of true time
  double maxDriftPpm = 0;                 // ... running fast or slow by up to this many ppm
  double noiseShare = 0;                  // each rank, in each collective, with this chance ...
  int64_t noiseMaxNs = 0;                 // ... arrives up to this much later (OS noise, a page fault: not persistent)
  int hostsPerClock = 1;                  // consecutive hosts that are one machine: one clock, one boot id
};

class Timeline {
 public:
  Timeline(const JobPlacement& job, const Offenders& offenders, int collectives, int channels, uint64_t seed,
           TimingSpread spread = {}, double symmetricShare = 0);

  const std::vector<CollectiveSpec>& collectives() const { return collectives_; }
  int channels() const { return channels_; }
  int64_t jobStartRealtimeNs() const { return jobStartRealtimeNs_; }  // true time 0 on a correct clock
  int64_t jobEndNs() const { return jobEndNs_; }                      // true time the last collective ended
  HostClock hostClock(int host) const;                                // the clock of the machine the host is on
  int clockOf(int host) const { return host / spread_.hostsPerClock; }
  int64_t realtimeNs(int host, int64_t trueNs) const;   // what the host's CLOCK_REALTIME reads at trueNs
  int64_t monotonicNs(int host, int64_t trueNs) const;  // ... and its CLOCK_MONOTONIC
  RankTiming rankTiming(int rank, size_t seq) const;
  RankPhases rankPhases(int rank, size_t seq) const;  // its kernel phases (step_phases.h)

 private:
  int64_t arrivalNs(int rank, size_t seq, int64_t t0Ns) const;
  int64_t computeDelayNs(int rank, size_t seq) const;  // 0 unless a slow-compute offender is slow there

  const Offenders& offenders_;
  uint64_t seed_;
  TimingSpread spread_;
  int channels_;
  int64_t jobStartRealtimeNs_ = 0;
  int64_t jobEndNs_ = 0;
  std::vector<CollectiveSpec> collectives_;
};

}  // namespace railtune::analysis::synth
