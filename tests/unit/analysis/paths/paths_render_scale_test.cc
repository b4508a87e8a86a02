// A large job: 2,048 trays in 114 NVL72 racks, 8,192 ranks with 32 connections each (262,144), one of
// them cross-rail. The renderer aggregates by rack and must stay small (< 5 MB). Its time is printed, not
// asserted: a shared machine's timings are noise.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "analysis/paths/path_render.h"

namespace railtune::analysis::paths {
namespace {

constexpr int kHosts = 2048, kTraysPerRack = 18, kGpus = 4, kPeersPerRank = 32;

std::string hostName(int h) {
  char name[32];
  std::snprintf(name, sizeof name, "r%03d-t%02d", h / kTraysPerRack, h % kTraysPerRack);
  return name;
}

formats::RailMap bigMap() {
  formats::RailMap map;
  map.rails = kGpus;
  for (int h = 0; h < kHosts; ++h) {
    formats::RailMapHost host{hostName(h), "r" + std::to_string(h / kTraysPerRack), {}};
    for (int g = 0; g < kGpus; ++g)
      host.gpus.push_back({g, "", {formats::RailMapNic{"mlx5_" + std::to_string(g), "", "", 1, g, -1, 0}}});
    map.hosts.push_back(std::move(host));
  }
  return map;
}

// Each rank sends to 32 ranks of the same GPU index (same rail) on other trays; rank 0's first
// connection leaves through mlx5_1.
JobPaths bigJob(CheckReport& report) {
  JobPaths job;
  job.job = "scale";
  for (int h = 0; h < kHosts; ++h) job.hosts.push_back(hostName(h));
  job.connections.reserve(static_cast<size_t>(kHosts) * kGpus * kPeersPerRank);
  for (int rank = 0; rank < kHosts * kGpus; ++rank)
    for (int k = 0; k < kPeersPerRank; ++k) {
      const int host = rank / kGpus, gpu = rank % kGpus, peer = (host + 1 + k * 61) % kHosts;
      Connection c;
      c.local = ConnectionEnd{job.hosts[static_cast<size_t>(host)],
                              1000 + host,
                              rank,
                              gpu,
                              "mlx5_" + std::to_string(gpu),
                              "",
                              gpu,
                              -1,
                              gpu};
      c.remote = ConnectionEnd{job.hosts[static_cast<size_t>(peer)],
                               1000 + peer,
                               peer * kGpus + gpu,
                               gpu,
                               "mlx5_" + std::to_string(gpu),
                               "",
                               gpu,
                               -1,
                               -1};
      c.traffic.bytesSent = (uint64_t{1} << 20) * static_cast<uint64_t>(1 + k);
      c.traffic.messagesSent = 16;
      job.connections.push_back(std::move(c));
    }
  job.connections[0].local.hca = "mlx5_1";
  job.connections[0].local.rail = 1;
  report.findings.push_back(Finding{Severity::Violation, FindingKind::CrossRail, "rank 0 misbound", {0}, "", "", 1});
  return job;
}

TEST(PathsRenderScale, TwoThousandTraysRenderSmallAndFast) {
  const formats::RailMap map = bigMap();
  CheckReport report;
  const JobPaths job = bigJob(report);
  const auto start = std::chrono::steady_clock::now();
  const PathGraph graph = buildPathGraph(job, report, &map);
  const std::string html = renderPaths(graph, report, RenderOptions{RenderFormat::Html, 32});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("2048 hosts, %zu connections: %.3f s, %zu bytes of HTML\n", job.connections.size(), seconds, html.size());
  EXPECT_EQ(graph.links.size(), 262144u);
  EXPECT_LT(html.size(), 5u * 1000 * 1000);
  EXPECT_NE(html.find("(aggregated by rack)"), std::string::npos);
  EXPECT_NE(html.find("data-rack=\"r0\" data-violations=\"1\""), std::string::npos);  // rank 0's rack is marked
}

}  // namespace
}  // namespace railtune::analysis::paths
