// Why a rank was late, from the kernel phases profiler v7 records (formats/profile_record.h,
// KernelPhases): NCCL's kernels wait for their peers in an initial sync, move and reduce the data, then
// wait again in a final sync. Within one collective:
//   late arrival  the rank's kernel started after its peers': its initial sync is short, because the
//                 peers were already waiting, and theirs is long. Its duration deficit (lateness.h) is
//                 the wait it did not do; the phases confirm it when the peers' median initial sync
//                 exceeds the rank's by at least half that deficit.
//   slow compute  the rank arrived on time but its compute phase is longer than its peers' by more than
//                 the threshold; the peers, done first, wait in the final sync, so every duration is alike
//                 and no duration deficit shows it. It is found from the compute phases alone.
// Without phases (profiler v1..v6, or KernelPhase not in the mask) the cause is unknown: never guessed.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/profile/collectives.h"
#include "analysis/profile/logs.h"

namespace railtune::analysis::profile {

enum class Cause : uint8_t { Unknown, LateArrival, SlowCompute };
const char* causeName(Cause cause);  // "unknown", "late_arrival", "slow_compute"

// The v7 traits of each sample (logs.h, SampleTraits), looked up in constant time.
class SampleTraitIndex {
 public:
  explicit SampleTraitIndex(const ProfileLogs& logs);
  const SampleTraits* of(uint32_t sample) const {
    return dense_.empty() || dense_[sample] == kNone ? nullptr : &logs_.traits[dense_[sample]];
  }
  bool any() const { return !dense_.empty(); }

 private:
  const ProfileLogs& logs_;
  std::vector<uint32_t> dense_;  // per sample: index into logs.traits; empty when there are none
};

// One collective's phases over the ranks that recorded them.
struct PhaseCentre {
  int ranks = 0;                   // samples with both initial sync and compute known
  int64_t initialSyncNs = -1;      // median
  int64_t computeNs = -1;          // median
  int64_t computeThresholdNs = 0;  // a compute phase longer than computeNs by more than this is slow
};

PhaseCentre phaseCentre(const SampleTraitIndex& traits, const CollectiveIndex& index, const Collective& col,
                        double floorFraction, double madFactor);

// The cause of a duration deficit of latenessNs: LateArrival when the phases confirm it, else Unknown.
Cause arrivalCause(const SampleTraits* own, const PhaseCentre& centre, int64_t latenessNs);

// How much longer the sample's compute phase is than its peers' when past the threshold; 0 otherwise.
int64_t slowComputeExcess(const SampleTraits* own, const PhaseCentre& centre);

// What a set of late events says together: the cause that at least 80 % of them name, provided that
// at least half of them name one; Unknown otherwise (a mixed or unconfirmed answer is no answer).
struct CauseTally {
  uint64_t lateArrival = 0, slowCompute = 0, unknown = 0;
  void add(Cause cause);
  Cause verdict() const;
};

}  // namespace railtune::analysis::profile
