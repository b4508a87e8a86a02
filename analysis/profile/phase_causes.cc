// Late arrival or slow compute, from the kernel phases (phase_causes.h).
#include "analysis/profile/phase_causes.h"

#include <algorithm>
#include <cmath>

namespace railtune::analysis::profile {
namespace {

bool usable(const SampleTraits* t) {
  return t != nullptr && t->phases;
}

// Ranks whose phases are needed to say anything: fewer peers than this make no median to judge by.
constexpr int kMinRanks = 3;

}  // namespace

const char* causeName(Cause cause) {
  switch (cause) {
    case Cause::LateArrival:
      return "late_arrival";
    case Cause::SlowCompute:
      return "slow_compute";
    case Cause::Unknown:
      break;
  }
  return "unknown";
}

SampleTraitIndex::SampleTraitIndex(const ProfileLogs& logs) : logs_(logs) {
  if (logs.traits.empty()) return;
  dense_.assign(logs.samples.size(), kNone);
  for (size_t i = 0; i < logs.traits.size(); ++i)
    if (logs.traits[i].sample < dense_.size()) dense_[logs.traits[i].sample] = static_cast<uint32_t>(i);
}

PhaseCentre phaseCentre(const SampleTraitIndex& traits, const CollectiveIndex& index, const Collective& col,
                        double floorFraction, double madFactor) {
  PhaseCentre centre;
  if (!traits.any()) return centre;
  std::vector<int64_t> initial, compute;
  for (uint32_t i = col.begin; i < col.end; ++i) {
    const SampleTraits* t = traits.of(index.order[i]);
    if (!usable(t)) continue;
    initial.push_back(t->initialSyncNs);
    compute.push_back(t->computeNs);
  }
  centre.ranks = static_cast<int>(compute.size());
  if (centre.ranks < kMinRanks) return centre;
  // As lateness.cc's on-time duration, the references are the halves that a group of up to half the ranks
  // late together leaves alone: the longer initial syncs (the ranks that waited), the shorter compute phases.
  std::sort(initial.begin(), initial.end());
  std::sort(compute.begin(), compute.end());
  std::vector<int64_t> waited(initial.begin() + static_cast<std::ptrdiff_t>(initial.size() / 2), initial.end());
  std::vector<int64_t> quick(compute.begin(), compute.begin() + static_cast<std::ptrdiff_t>((compute.size() + 1) / 2));
  centre.initialSyncNs = medianOf(waited);
  centre.computeNs = medianOf(quick);
  // The spread of the quick half around its median, as lateness.cc's: noise, not a slow GPU.
  double deviation = 0;
  for (int64_t c : quick) deviation += static_cast<double>(std::abs(c - centre.computeNs));
  const double spread = 2 * deviation / static_cast<double>(quick.size());
  centre.computeThresholdNs = static_cast<int64_t>(
      std::max({floorFraction * static_cast<double>(centre.computeNs), madFactor * 1.4826 * spread, 1000.0}));
  return centre;
}

Cause arrivalCause(const SampleTraits* own, const PhaseCentre& centre, int64_t latenessNs) {
  if (!usable(own) || centre.ranks < kMinRanks) return Cause::Unknown;
  const int64_t waitedLess = centre.initialSyncNs - own->initialSyncNs;
  return 2 * waitedLess >= latenessNs ? Cause::LateArrival : Cause::Unknown;
}

int64_t slowComputeExcess(const SampleTraits* own, const PhaseCentre& centre) {
  if (!usable(own) || centre.ranks < kMinRanks) return 0;
  const int64_t excess = own->computeNs - centre.computeNs;
  return excess > centre.computeThresholdNs ? excess : 0;
}

void CauseTally::add(Cause cause) {
  switch (cause) {
    case Cause::LateArrival:
      ++lateArrival;
      break;
    case Cause::SlowCompute:
      ++slowCompute;
      break;
    case Cause::Unknown:
      ++unknown;
      break;
  }
}

Cause CauseTally::verdict() const {
  const uint64_t named = lateArrival + slowCompute, all = named + unknown;
  if (named == 0 || 2 * named < all) return Cause::Unknown;
  if (5 * lateArrival >= 4 * named) return Cause::LateArrival;
  if (5 * slowCompute >= 4 * named) return Cause::SlowCompute;
  return Cause::Unknown;
}

}  // namespace railtune::analysis::profile
