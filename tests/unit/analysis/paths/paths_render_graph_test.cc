// buildPathGraph and aggregateByRack on the hand-built job of paths_render_test_job.h.
#include <gtest/gtest.h>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_layout.h"
#include "tests/unit/analysis/paths/paths_render_test_job.h"

namespace railtune::analysis::paths {
namespace {

const RenderHost& hostAt(const PathGraph& g, const LinkEnd& e) {
  return g.racks[static_cast<size_t>(e.rack)].hosts[static_cast<size_t>(e.host)];
}

TEST(PathsRenderGraph, RacksFromTheRailMapAndUnknownHostsLast) {
  const formats::RailMap map = testjob::railMap();
  const PathGraph g = buildPathGraph(testjob::job(), testjob::report(), &map);
  ASSERT_EQ(g.racks.size(), 3u);
  EXPECT_EQ(g.racks[0].name, "rack-a");
  EXPECT_EQ(g.racks[1].name, "rack-b");
  EXPECT_EQ(g.racks[2].name, "unknown rack");
  EXPECT_TRUE(g.racks[2].unknown);
  ASSERT_EQ(g.racks[0].hosts.size(), 2u);
  EXPECT_EQ(g.racks[0].hosts[0].name, "a1");
  EXPECT_EQ(g.racks[0].hosts[1].name, "a2");
  ASSERT_EQ(g.racks[2].hosts.size(), 1u);
  EXPECT_EQ(g.racks[2].hosts[0].name, "x9");
  EXPECT_FALSE(g.racks[2].hosts[0].logged);
  EXPECT_TRUE(g.racks[0].hosts[1].logged);
  EXPECT_EQ(g.hostCount(), 4);
  EXPECT_EQ(g.violationFindings, 2);
}

TEST(PathsRenderGraph, GpusAndNicsWithTheIntendedBinding) {
  const formats::RailMap map = testjob::railMap();
  const PathGraph g = buildPathGraph(testjob::job(), testjob::report(), &map);
  const RenderHost& a2 = g.racks[0].hosts[1];
  ASSERT_EQ(a2.gpus.size(), 2u);
  ASSERT_EQ(a2.nics.size(), 2u);
  EXPECT_EQ(a2.nics[0].hca, "mlx5_0");
  EXPECT_EQ(a2.nics[1].rail, 1);
  EXPECT_EQ(a2.gpus[0].intendedNics, std::vector<int>{0});  // the map binds GPU 0 to mlx5_0 ...
  const RenderHost& x9 = g.racks[2].hosts[0];
  EXPECT_TRUE(x9.gpus.empty());  // a peer's end names no GPU
  ASSERT_EQ(x9.nics.size(), 1u);
  EXPECT_EQ(x9.nics[0].hca, "mlx5_1");
  EXPECT_EQ(x9.nics[0].rail, 1);
}

TEST(PathsRenderGraph, OneLinkPerConnectionFromTheSenderViolationsLast) {
  const formats::RailMap map = testjob::railMap();
  const PathGraph g = buildPathGraph(testjob::job(), testjob::report(), &map);
  ASSERT_EQ(g.switches.size(), 2u);
  EXPECT_EQ(g.switches[0].rail, 0);
  EXPECT_EQ(g.switches[1].plane, -1);
  ASSERT_EQ(g.links.size(), 4u);
  EXPECT_EQ(g.links[0].connection, 0);
  EXPECT_EQ(g.links[1].connection, 5);
  EXPECT_EQ(g.links[2].connection, 2);
  EXPECT_EQ(g.links[3].connection, 4);
  EXPECT_FALSE(g.links[0].violation());
  EXPECT_TRUE(g.links[2].crossRail);
  EXPECT_FALSE(g.links[2].digestMismatch);
  EXPECT_TRUE(g.links[3].digestMismatch);
  // ... and the misbound connection leaves a2's GPU 0 through mlx5_1 (rail 1) for b1's rail-0 NIC.
  const RenderLink& bad = g.links[2];
  EXPECT_EQ(hostAt(g, bad.from).name, "a2");
  EXPECT_EQ(bad.from.gpu, 0);
  EXPECT_EQ(hostAt(g, bad.from).nics[static_cast<size_t>(bad.from.nic)].hca, "mlx5_1");
  EXPECT_EQ(bad.from.switchIndex, 1);
  EXPECT_EQ(bad.to.switchIndex, 0);
  EXPECT_EQ(bad.to.gpu, 0);  // from the receiver's own record
  EXPECT_EQ(bad.bytes, 64u << 20);
  EXPECT_EQ(bad.rail, 1);
  EXPECT_EQ(g.links[0].to.rank, 4);
  EXPECT_EQ(g.links[3].to.gpu, -1);  // a1 did not log connection 4
}

TEST(PathsRenderGraph, AReceiveRecordAloneIsDrawnWithItsReceivedBytes) {
  JobPaths job = testjob::job();
  job.connections[0].peerIndex = -1;
  job.connections[1].peerIndex = -1;
  job.connections.erase(job.connections.begin());  // only b1's receive record of the first connection
  for (Connection& c : job.connections)
    if (c.peerIndex > 0) --c.peerIndex;
  const PathGraph g = buildPathGraph(job, CheckReport{}, nullptr);
  ASSERT_EQ(g.links.size(), 4u);
  EXPECT_EQ(g.links[0].connection, 0);
  EXPECT_EQ(g.links[0].bytes, 1u << 20);
  EXPECT_EQ(hostAt(g, g.links[0].from).name, "b1");
  EXPECT_EQ(g.links[0].to.rank, 0);
}

TEST(PathsRenderGraph, WithoutARailMapEveryHostIsInTheUnknownRack) {
  const PathGraph g = buildPathGraph(testjob::job(), testjob::report(), nullptr);
  ASSERT_EQ(g.racks.size(), 1u);
  EXPECT_EQ(g.racks[0].name, "unknown rack");
  EXPECT_EQ(g.racks[0].hosts.size(), 4u);
  EXPECT_TRUE(g.racks[0].hosts[0].gpus[0].intendedNics.empty());
}

TEST(PathsRenderGraph, OneSwitchPerRailAndPlaneWhenPlanesAreUsed) {
  JobPaths job = testjob::job();
  job.connections[0].local.plane = 1;
  job.connections[4].local.plane = 0;
  const PathGraph g = buildPathGraph(job, CheckReport{}, nullptr);
  ASSERT_EQ(g.switches.size(), 4u);  // (0,-1) (0,1) (1,-1) (1,0)
  EXPECT_EQ(g.switches[1].rail, 0);
  EXPECT_EQ(g.switches[1].plane, 1);
  formats::RailMap map = testjob::railMap();  // a single-plane map folds planes into one switch per rail
  EXPECT_EQ(buildPathGraph(job, CheckReport{}, &map).switches.size(), 2u);
}

TEST(PathsRenderAggregate, LinksPerRackAndSwitchWithViolations) {
  const formats::RailMap map = testjob::railMap();
  const RackGraph r = aggregateByRack(buildPathGraph(testjob::job(), testjob::report(), &map));
  EXPECT_EQ(r.hosts, 4);
  EXPECT_EQ(r.connections, 4);
  ASSERT_EQ(r.racks.size(), 3u);
  EXPECT_EQ(r.racks[0].connections, 4);
  EXPECT_EQ(r.racks[0].violations, 2);
  EXPECT_EQ(r.racks[0].gpus, 4);
  EXPECT_EQ(r.racks[1].violations, 2);
  EXPECT_EQ(r.racks[2].violations, 0);
  EXPECT_EQ(r.racks[0].bytes, (1u << 20) + (64u << 20) + (3072ULL << 20) + 512);
  ASSERT_EQ(r.links.size(), 5u);
  auto is = [](const RackLink& l, int rack, int sw, int connections, int violations) {
    return l.rack == rack && l.switchIndex == sw && l.connections == connections && l.violations == violations;
  };
  EXPECT_TRUE(is(r.links[0], 0, 0, 1, 0));
  EXPECT_TRUE(is(r.links[1], 2, 1, 1, 0));
  EXPECT_TRUE(is(r.links[2], 0, 1, 3, 2));
  EXPECT_TRUE(is(r.links[3], 1, 0, 2, 1));
  EXPECT_TRUE(is(r.links[4], 1, 1, 1, 1));
  EXPECT_EQ(r.links[3].bytes, (1u << 20) + (64u << 20));
  EXPECT_EQ(r.violationLinks, 3);
}

TEST(PathsRenderLayout, TraysDoNotOverlapAndSwitchesSitBelowThem) {
  const formats::RailMap map = testjob::railMap();
  const PathGraph g = buildPathGraph(testjob::job(), testjob::report(), &map);
  const DetailLayout l = layoutDetail(g);
  int previousRight = 0;
  for (size_t r = 0; r < g.racks.size(); ++r) {
    EXPECT_GT(l.racks[r].x, previousRight);
    for (const HostLayout& h : l.hosts[r]) {
      EXPECT_GE(h.tray.x, l.racks[r].x);
      EXPECT_LE(h.tray.right(), l.racks[r].right());
      for (const Box& nic : h.nics) EXPECT_LE(nic.right(), h.tray.right());
    }
    previousRight = l.racks[r].right();
  }
  for (const Box& sw : l.switches) EXPECT_GT(sw.y, l.racks[0].bottom());
  EXPECT_TRUE(l.spine);  // connection 2 joins rail 1's switch to rail 0's
  EXPECT_GT(l.spineBar.y, l.switches[0].bottom());
  EXPECT_LE(previousRight + kMargin, l.width);
}

TEST(PathsRenderFormat, FromTheExtensionOrTheName) {
  EXPECT_EQ(renderFormatFromPath("out/job.html"), RenderFormat::Html);
  EXPECT_EQ(renderFormatFromPath("JOB.SVG"), RenderFormat::Svg);
  EXPECT_EQ(renderFormatFromPath("a.gv"), RenderFormat::Dot);
  EXPECT_EQ(renderFormatFromPath("a.dot"), RenderFormat::Dot);
  EXPECT_FALSE(renderFormatFromPath("dir.html/out").has_value());
  EXPECT_FALSE(renderFormatFromPath("out.png").has_value());
  EXPECT_EQ(parseRenderFormat("svg"), RenderFormat::Svg);
  EXPECT_FALSE(parseRenderFormat("SVG").has_value());
}

}  // namespace
}  // namespace railtune::analysis::paths
