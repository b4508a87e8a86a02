// `railtune paths synth`: the offenders and the timing model (analysis/synth/offenders.h, timeline.h). An
// injected rank really is the last to arrive, so it has the shortest duration of its late collectives;
// trays and racks are late together; host clocks differ by far more than a collective lasts.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analysis/synth/collective_records.h"
#include "analysis/synth/rail_map_source.h"
#include "analysis/synth/synth_job.h"

namespace railtune::analysis::synth {
namespace {

std::unique_ptr<SynthJob> timingJob(uint64_t seed = 11) {
  SynthOptions o;
  o.ranks = 64;
  o.collectives = 60;
  o.seed = seed;
  o.offenders = OffenderCounts{3, 1, 1};
  return makeSynthJob(o, loadRailMap(RAILTUNE_SYNTH_DATA "/four-small-racks.yaml", ""));
}

int64_t durationNs(const formats::profile::OperationRecord& r) {
  return r.end.monotonicNs - r.start.monotonicNs;
}

TEST(PathsSynthTiming, OffendersAreOneRackOneTrayAndThreeRanksThatNeverOverlap) {
  const auto job = timingJob();
  const Offenders& off = job->offenders;
  ASSERT_EQ(off.list.size(), 5u);
  EXPECT_EQ(off.list[0].level, OffenderLevel::Rack);
  EXPECT_EQ(off.list[0].ranks.size(), 16u);
  EXPECT_EQ(off.list[1].level, OffenderLevel::Tray);
  EXPECT_EQ(off.list[1].ranks.size(), 4u);
  std::set<int> seen;
  for (const Offender& o : off.list)
    for (int r : o.ranks) EXPECT_TRUE(seen.insert(r).second) << "rank " << r << " in two offenders";
  const int trayHost = off.list[1].index;
  EXPECT_NE(job->placement.hosts[static_cast<size_t>(trayHost)].domain, off.list[0].index);
}

TEST(PathsSynthTiming, AStragglerHasTheShortestDurationInItsLateCollectives) {
  const auto job = timingJob();
  const int o = 4;  // the last straggler
  const int straggler = job->offenders.list[o].index;
  int late = 0;
  for (size_t s = 0; s < job->timeline.collectives().size(); ++s) {
    const int64_t delay = job->offenders.delayNs(job->options.seed, o, s);
    const int64_t mine = durationNs(collectiveRecord(*job, straggler, s));
    int64_t typical = 0;  // the longest on-time duration: an on-time rank waited for everyone
    for (int r = 0; r < job->ranks(); ++r)
      if (job->offenders.ofRank[static_cast<size_t>(r)] < 0)
        typical = std::max(typical, durationNs(collectiveRecord(*job, r, s)));
    if (delay == 0) continue;
    ++late;
    EXPECT_GE(delay, kMinDelayNs);
    EXPECT_LE(delay, kMaxDelayNs);
    EXPECT_LT(mine, typical) << "seq " << s;
    // Its deficit is its delay, give or take the 20 us of arrival jitter (and 5 us at the end).
    EXPECT_NEAR(static_cast<double>(typical - mine), static_cast<double>(delay), 26'000.0) << "seq " << s;
  }
  EXPECT_GT(late, 8);  // about 30 % of 60
  EXPECT_LT(late, 32);
}

TEST(PathsSynthTiming, ASlowRackIsLateTogether) {
  const auto job = timingJob();
  const Offender& rack = job->offenders.list[0];
  for (size_t s = 0; s < job->timeline.collectives().size(); ++s) {
    const int64_t delay = job->offenders.delayNs(job->options.seed, 0, s);
    const RankTiming first = job->timeline.rankTiming(rack.ranks.front(), s);
    for (int r : rack.ranks) {
      const RankTiming t = job->timeline.rankTiming(r, s);
      EXPECT_NEAR(static_cast<double>(t.arrivalNs - first.arrivalNs), 0.0, 20'000.0);
      EXPECT_GE(t.arrivalNs - job->timeline.collectives()[s].t0Ns, delay);
    }
  }
}

TEST(PathsSynthTiming, HostClocksDisagreeByMoreThanACollectiveLastsButDurationsAgree) {
  const auto job = timingJob();
  int64_t low = 0, high = 0;
  for (size_t h = 0; h < job->placement.hosts.size(); ++h) {
    const int64_t offset = job->timeline.hostClock(static_cast<int>(h)).realtimeOffsetNs;
    EXPECT_LE(std::abs(offset), 50'000'000);
    low = std::min(low, offset);
    high = std::max(high, offset);
  }
  EXPECT_GT(high - low, 20'000'000);
  const formats::profile::OperationRecord r = collectiveRecord(*job, 9, 3);
  EXPECT_EQ(r.end.realtimeNs - r.start.realtimeNs, durationNs(r));
  EXPECT_GT(durationNs(r), 0);
}

TEST(PathsSynthTiming, TheSameSeedDecidesTheSameJobAndAnotherSeedAnother) {
  const auto a = timingJob(5), b = timingJob(5), c = timingJob(6);
  EXPECT_EQ(a->offenders.ofRank, b->offenders.ofRank);
  EXPECT_EQ(collectiveRecord(*a, 17, 9).start.realtimeNs, collectiveRecord(*b, 17, 9).start.realtimeNs);
  EXPECT_NE(a->offenders.ofRank, c->offenders.ofRank);
}

TEST(PathsSynthTiming, AJobTooSmallForItsOffendersIsAClearError) {
  SynthOptions o;
  o.ranks = 16;  // one rack of four small ones
  o.offenders = OffenderCounts{0, 0, 1};
  try {
    makeSynthJob(o, loadRailMap(RAILTUNE_SYNTH_DATA "/four-small-racks.yaml", ""));
    FAIL() << "no error";
  } catch (const SynthError& e) {
    EXPECT_STREQ(e.what(),
                 "--slow-racks 1: the job has 1 racks outside the other offenders, and at least one must stay on time");
  }
}

}  // namespace
}  // namespace railtune::analysis::synth
