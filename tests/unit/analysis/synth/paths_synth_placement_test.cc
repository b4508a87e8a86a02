// `railtune paths synth`: where ranks sit and whom they talk to (analysis/synth/placement.h), and which
// connections an injected misbinding moves to another rail (analysis/synth/connections.h).
#include <gtest/gtest.h>

#include "analysis/synth/connections.h"
#include "analysis/synth/placement.h"
#include "analysis/synth/rail_map_source.h"

namespace railtune::analysis::synth {
namespace {

formats::RailMap smallRacks() {
  return loadRailMap(RAILTUNE_SYNTH_DATA "/four-small-racks.yaml", "");  // 4 racks x 4 trays x 4 GPUs
}

TEST(PathsSynthPlacement, RanksFillHostsInMapOrderFourPerTray) {
  const formats::RailMap map = smallRacks();
  const JobPlacement job = placeJob(map, 22, true);
  ASSERT_EQ(job.ranks.size(), 22u);
  ASSERT_EQ(job.hosts.size(), 6u);  // 5 full trays and 2 ranks on the sixth
  EXPECT_EQ(job.hostOf(0).name, "rack00-tray00");
  EXPECT_EQ(job.hostOf(5).name, "rack00-tray01");
  EXPECT_EQ(job.ranks[5].gpuIndex, 1);
  EXPECT_EQ(job.hostOf(21).name, "rack01-tray01");
  EXPECT_EQ(job.domains, (std::vector<std::string>{"rack00", "rack01"}));
  EXPECT_EQ(job.expectedRailOf(6), 2);  // GPU 2's NIC is rail 2
}

TEST(PathsSynthPlacement, WithMnnvlTheRingGoesToTheSameLocalIndexOfTheNextRackAndWraps) {
  const formats::RailMap map = smallRacks();
  const JobPlacement job = placeJob(map, 64, true);
  // Rank 5 is local index 5 of rack00: next rack01's index 5 (rank 21), previous the last rack's (53).
  EXPECT_EQ(job.ranks[5].localIndex, 5);
  EXPECT_EQ(job.ringNext[5], 21);
  EXPECT_EQ(job.ringPrev[5], 53);
  EXPECT_EQ(job.ringNext[53], 5);  // the last rack wraps to the first
  for (size_t r = 0; r < job.ranks.size(); ++r) {
    const int next = job.ringNext[r];
    ASSERT_GE(next, 0);
    EXPECT_EQ(job.ringPrev[static_cast<size_t>(next)], static_cast<int>(r));
    EXPECT_EQ(job.expectedRailOf(next), job.expectedRailOf(static_cast<int>(r))) << "rank " << r;
  }
}

TEST(PathsSynthPlacement, APartialLastRackJoinsOnlyTheRingsOfItsLocalIndices) {
  const formats::RailMap map = smallRacks();
  const JobPlacement job = placeJob(map, 36, true);  // rack02 holds ranks 32..35 only
  EXPECT_EQ(job.ringNext[1], 17);
  EXPECT_EQ(job.ringNext[17], 33);
  EXPECT_EQ(job.ringNext[33], 1);
  EXPECT_EQ(job.ringNext[20], 4);  // local index 4: rack00 and rack01 only
  EXPECT_EQ(job.ringPrev[4], 20);
}

TEST(PathsSynthPlacement, WithoutMnnvlEachTrayIsANodeAndTheRingGoesTrayToTray) {
  const formats::RailMap map = smallRacks();
  const JobPlacement job = placeJob(map, 16, false);
  EXPECT_EQ(job.ringNext[1], 5);   // GPU 1 of tray00 -> GPU 1 of tray01
  EXPECT_EQ(job.ringNext[13], 1);  // tray03 wraps to tray00
  EXPECT_EQ(job.ringPrev[1], 13);
}

TEST(PathsSynthPlacement, ARingInsideOneNodeNeverUsesTheNetwork) {
  const formats::RailMap map = loadRailMap("", "");  // the default cluster: 72 GPUs per rack
  const JobPlacement job = placeJob(map, 64, true);
  for (size_t r = 0; r < job.ranks.size(); ++r) EXPECT_FALSE(job.hasNetPeers(static_cast<int>(r)));
}

TEST(PathsSynthPlacement, TooManyRanksIsAClearError) {
  const formats::RailMap map = smallRacks();
  try {
    placeJob(map, 65, true);
    FAIL() << "no error";
  } catch (const SynthError& e) {
    EXPECT_STREQ(e.what(), "65 ranks need more GPUs than the rail map's 64 (16 hosts)");
  }
}

TEST(PathsSynthConnections, CrossRailPicksLeaveThroughAnotherRailOnTheSamePlane) {
  const formats::RailMap map = loadRailMap(RAILTUNE_SYNTH_DATA "/two-planes.yaml", "");
  const JobPlacement job = placeJob(map, 16, true);
  const ConnectionPlan plan(job, 16, 5, 7);
  ASSERT_EQ(plan.crossRail().size(), 5u);
  for (const CrossRailConnection& c : plan.crossRail()) {
    const PlacedHost& host = job.hosts[static_cast<size_t>(job.ranks[static_cast<size_t>(c.rank)].host)];
    const HostNic& chosen = host.nics[static_cast<size_t>(c.device)];
    const HostNic& actual = host.nics[static_cast<size_t>(c.actual)];
    EXPECT_EQ(chosen.rail, job.expectedRailOf(c.rank));
    EXPECT_NE(actual.rail, chosen.rail);
    EXPECT_EQ(actual.plane, chosen.plane);
    EXPECT_EQ(plan.sendDevice(c.rank, c.channel), c.actual);
    EXPECT_EQ(c.device, plan.chosenDevice(c.rank, c.channel));
  }
  // Channels alternate over the GPU's two planes.
  EXPECT_NE(plan.chosenDevice(0, 0), plan.chosenDevice(0, 1));
  EXPECT_EQ(plan.chosenDevice(0, 0), plan.chosenDevice(0, 2));
}

TEST(PathsSynthConnections, MoreCrossRailThanSendConnectionsIsAClearError) {
  const formats::RailMap map = smallRacks();
  const JobPlacement job = placeJob(map, 32, true);
  EXPECT_THROW(ConnectionPlan(job, 16, 32 * 16 + 1, 1), SynthError);
  EXPECT_NO_THROW(ConnectionPlan(job, 16, 32 * 16, 1));
}

}  // namespace
}  // namespace railtune::analysis::synth
