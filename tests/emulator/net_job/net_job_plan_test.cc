// Where the emulated job's ranks run (emulator/net_job/job_plan.h): hosts chosen by count, racks or
// name; one unique loopback address per NIC; clear errors for what does not fit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "emulator/net_job/job_plan.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/launcher_internal.h"

namespace railtune::emu::netjob {
namespace {

formats::RailMap defaultMap() {
  return formats::parseRailMap(railMapText(""), "default");
}

std::string planError(const formats::RailMap& map, const PlacementOptions& options) {
  try {
    makePlan(map, options);
  } catch (const PlanError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(NetJobPlan, SixteenRanksOverTwoRacksOfTheDefaultCluster) {
  const JobPlan plan = makePlan(defaultMap(), PlacementOptions{16, 2, {}});
  EXPECT_EQ(plan.gpusPerHost, 4);
  ASSERT_EQ(plan.hosts.size(), 4u);
  EXPECT_EQ(plan.hosts[0].domain, plan.hosts[1].domain);
  EXPECT_NE(plan.hosts[1].domain, plan.hosts[2].domain);
  ASSERT_EQ(plan.ranks.size(), 16u);
  EXPECT_EQ(plan.ranks[5].hostIndex, 1);
  EXPECT_EQ(plan.ranks[5].gpu, 1);
  EXPECT_EQ(plan.ranks[5].hca, "mlx5_1");
  EXPECT_EQ(plan.ranks[5].rail, 1);
}

TEST(NetJobPlan, EveryNicGetsItsOwnLoopbackAddress) {
  const JobPlan plan = makePlan(defaultMap(), PlacementOptions{16, 2, {}});
  std::set<std::string> seen;
  for (const PlannedHost& host : plan.hosts) {
    EXPECT_EQ(host.addresses.size(), 4u) << host.name;
    for (const auto& [netdev, address] : host.addresses) {
      EXPECT_EQ(address.rfind("127.", 0), 0u) << address;
      EXPECT_TRUE(seen.insert(address).second) << address << " given twice";
    }
  }
  const std::string file = addressFileText(plan.hosts[1]);
  EXPECT_NE(file.find("ibp3s0 127.1.2.1\n"), std::string::npos) << file;
}

TEST(NetJobPlan, HostsByName) {
  const formats::RailMap map = defaultMap();
  const JobPlan plan = makePlan(map, PlacementOptions{8, 0, {"rack01-tray03", "rack00-tray07"}});
  EXPECT_EQ(plan.hosts[0].name, "rack01-tray03");
  EXPECT_EQ(plan.ranks[7].hostIndex, 1);
  EXPECT_NE(planError(map, PlacementOptions{8, 0, {"rack09-tray00", "rack00-tray00"}}).find("no host 'rack09-tray00'"),
            std::string::npos);
  EXPECT_NE(planError(map, PlacementOptions{8, 0, {"rack00-tray00"}}).find("8 ranks need 2"), std::string::npos);
}

TEST(NetJobPlan, ClearErrorsForWhatDoesNotFit) {
  const formats::RailMap map = defaultMap();
  EXPECT_NE(planError(map, PlacementOptions{16, 3, {}}).find("spread evenly over 3 rack(s)"), std::string::npos);
  EXPECT_NE(planError(map, PlacementOptions{12, 3, {}}).find("has 2 NVLink domain(s)"), std::string::npos);
  EXPECT_NE(planError(map, PlacementOptions{1000, 0, {}}).find("the rail map has 36"), std::string::npos);
  EXPECT_NE(planError(map, PlacementOptions{1, 0, {}}).find("at least 2"), std::string::npos);
}

TEST(NetJobPlan, NicWithoutNetdevIsReported) {
  const std::string json = R"({"schema": "railtune.rail_map.v1", "cluster": "c", "rails": 1, "planes": 1, "hosts": [
    {"name": "h0", "domain": "d0", "gpus": [{"index": 0, "bus_id": "0000:01:00.0", "nics": [
      {"hca": "mlx5_0", "netdev": "", "bus_id": "0000:03:00.0", "port": 1, "rail": 0, "plane": -1}]}]},
    {"name": "h1", "domain": "d0", "gpus": [{"index": 0, "bus_id": "0000:01:00.0", "nics": [
      {"hca": "mlx5_0", "netdev": "eth0", "bus_id": "0000:03:00.0", "port": 1, "rail": 0, "plane": -1}]}]}]})";
  const std::string error = planError(formats::parseRailMap(json, "map.json"), PlacementOptions{2, 0, {}});
  EXPECT_NE(error.find("rank 0: NIC mlx5_0 of host h0 has no netdev"), std::string::npos) << error;
}

// A rank's stderr with a sanitizer report fails the job even when the rank exited 0 (TSan).
TEST(NetJobLauncher, FindsSanitizerReportsInARanksStderr) {
  const std::string path = ::testing::TempDir() + "/net-job-stderr-" + std::to_string(::getpid());
  std::ofstream(path) << "INFO plugin line\n==123==WARNING: ThreadSanitizer: data race (pid=123)\n  Write of size 8\n";
  EXPECT_EQ(sanitizerReport(path), "==123==WARNING: ThreadSanitizer: data race (pid=123)\n  Write of size 8\n");
  std::ofstream(path) << "x.cc:3:5: runtime error: signed integer overflow\n";
  EXPECT_NE(sanitizerReport(path).find("runtime error"), std::string::npos);
  std::ofstream(path) << "nothing to see\n";
  EXPECT_EQ(sanitizerReport(path), "");
  std::filesystem::remove(path);
  EXPECT_EQ(sanitizerReport(path), "") << "a missing file is no report";
}

}  // namespace
}  // namespace railtune::emu::netjob
