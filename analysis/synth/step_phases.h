// What profiler v7 adds to the synthetic job (formats/profile_record.h): a user tag per collective (the
// phase of the training step the application tagged it with), the NCCL path that ran it (tuned, or a
// symmetric kernel), the kernel phases of each rank, and the truth the straggler analysis is scored on:
// which offenders are slow to compute rather than late to arrive, and which are late only in one tag's
// collectives. The model of the phases (timeline.h):
//   initial sync  from the rank's arrival until the last rank arrived, plus kSyncNs;
//   compute       the collective's compute time (its base duration less two syncs) less 0..computeJitter,
//                 plus the rank's own slowness when it is a slow-compute offender;
//   final sync    the rest of its duration: waiting for the slowest rank's compute, plus kSyncNs and jitter.
// So a late arrival shows as a short initial sync among long ones and a duration deficit; a slow GPU as a
// long compute phase among short ones while every duration stays alike.
#pragma once

#include <cstddef>
#include <cstdint>

namespace railtune::analysis::synth {

struct V7Spec {
  bool enabled = false;         // records carry user_tag, sym_coll, path and phases (a profiler v7 binding)
  double slowComputeShare = 0;  // each offender is slow to compute instead of late, with this chance
  double tagOnlyShare = 0;      // each rank offender is late only in one tag's collectives, with this chance
  double symmetricShare = 0;    // each collective ran a symmetric-memory kernel, with this chance
};

// A training step of kStepCollectives collectives: forward (tag 1), backward (2), optimizer (3).
inline constexpr uint64_t kStepCollectives = 10;
inline constexpr uint64_t kForwardTag = 1, kBackwardTag = 2, kOptimizerTag = 3;
inline constexpr uint64_t stepTag(uint64_t seq) {
  const uint64_t at = seq % kStepCollectives;
  return at < 4 ? kForwardTag : at < 8 ? kBackwardTag : kOptimizerTag;
}

inline constexpr int64_t kSyncNs = 2'000;  // a kernel's initial or final sync when nobody waits

struct RankPhases {
  int64_t initialSyncNs = 0, computeNs = 0, finalSyncNs = 0;
};

}  // namespace railtune::analysis::synth
