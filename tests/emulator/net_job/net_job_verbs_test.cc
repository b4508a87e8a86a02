// The verbs job's builder (emulator/net_job/verbs_job.h): the simulator's description names the job's hosts
// with the rail map's HCAs, each host gets its sysfs tree, the rendezvous folder stays short enough for the
// agents' sockets, a map the simulator cannot stand in for is refused by name, and the ranks' variables.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "emulator/net_job/job_plan.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/verbs_job.h"

namespace railtune::emu::netjob {
namespace {

namespace fs = std::filesystem;

class NetJobVerbs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("railtune-verbs-job-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    library_ = (dir_ / "libibverbs.so.1").string();
    std::ofstream(library_) << "stand-in: the builder only checks that the file exists\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string library_;
};

TEST_F(NetJobVerbs, DescribesTheJobsHostsWithTheRailMapsHcasAndWritesTheirSysfs) {
  const formats::RailMap map = formats::parseRailMap(railMapText(""), "default");
  const JobPlan plan = makePlan(map, PlacementOptions{8, 2, {}});
  const VerbsJob job = prepareVerbsJob(dir_.string(), map, plan, library_);
  EXPECT_EQ(job.preset, "gb300");  // the default cluster: GB300 NVL72, 4 InfiniBand rails
  std::ifstream in(job.fabricPath);
  const nlohmann::json fabric = nlohmann::json::parse(in);
  EXPECT_EQ(fabric.at("preset"), "gb300");
  ASSERT_EQ(fabric.at("hosts").size(), plan.hosts.size());
  for (size_t i = 0; i < plan.hosts.size(); ++i) {
    EXPECT_EQ(fabric.at("hosts")[i], plan.hosts[i].name);
    const fs::path tree = fs::path(job.sysfsRoot) / plan.hosts[i].name / "sys" / "class" / "infiniband";
    for (const RankPlace& r : plan.ranks) {
      if (r.hostIndex != static_cast<int>(i)) continue;
      EXPECT_TRUE(fs::exists(tree / r.hca / "ports" / "1" / "gids" / "0")) << tree;
    }
  }
  EXPECT_EQ(job.rendezvousDir, (dir_ / "verbs-sim").string());
  EXPECT_FALSE(job.rendezvousOutsideJob);
  EXPECT_TRUE(fs::is_directory(job.rendezvousDir));
}

TEST_F(NetJobVerbs, ALongJobFolderGetsAShortRendezvousFolderForTheSockets) {
  const fs::path deep = dir_ / std::string(80, 'd');
  fs::create_directories(deep);
  const formats::RailMap map = formats::parseRailMap(railMapText(""), "default");
  const VerbsJob job = prepareVerbsJob(deep.string(), map, makePlan(map, PlacementOptions{4, 0, {}}), library_);
  EXPECT_TRUE(job.rendezvousOutsideJob);
  EXPECT_LE(job.rendezvousDir.size(), 70u);
  EXPECT_TRUE(fs::is_directory(job.rendezvousDir));
  fs::remove_all(job.rendezvousDir);
}

TEST_F(NetJobVerbs, AnHcaThePresetLacksIsRefusedNamingHostAndHca) {
  std::string text = railMapText("");
  const size_t at = text.find("\"mlx5_3\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 8, "\"mlx5_9\"");
  const formats::RailMap map = formats::parseRailMap(text, "edited");
  const JobPlan plan = makePlan(map, PlacementOptions{8, 0, {}});
  try {
    prepareVerbsJob(dir_.string(), map, plan, library_);
    FAIL() << "an HCA the simulator does not have was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("the HCA mlx5_9, which the verbs simulator's gb300 hosts do not have"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("host " + plan.hosts[0].name), std::string::npos) << e.what();
  }
}

TEST_F(NetJobVerbs, AMissingLibraryIsRefused) {
  const formats::RailMap map = formats::parseRailMap(railMapText(""), "default");
  EXPECT_THROW(prepareVerbsJob(dir_.string(), map, makePlan(map, PlacementOptions{4, 0, {}}), "/nonexistent/lib.so"),
               std::runtime_error);
}

TEST_F(NetJobVerbs, EachRankIsItsHostAndAUsersTimeScaleIsKept) {
  VerbsJob job;
  job.library = "/x/libibverbs.so.1";
  job.rendezvousDir = "/tmp/rtvs-1";
  job.fabricPath = "/job/verbs-fabric.json";
  job.sysfsRoot = "/job/verbs-sysfs";
  const auto env = verbsRankEnvironment(job, "r000-t01", false);
  const std::map<std::string, std::string> vars(env.begin(), env.end());
  EXPECT_EQ(vars.at("RAILTUNE_NET_TRANSPORT"), "ib");
  EXPECT_EQ(vars.at("NCCL_IBVERBS_LIB"), "/x/libibverbs.so.1");
  EXPECT_EQ(vars.at("RAILTUNE_VERBS_SIM_HOST"), "r000-t01");
  EXPECT_EQ(vars.at("RAILTUNE_NET_SYSFS_ROOT"), "/job/verbs-sysfs/r000-t01");
  EXPECT_EQ(vars.at("RAILTUNE_VERBS_SIM_TIME_SCALE"), kVerbsJobTimeScale);
  for (const auto& [name, value] : verbsRankEnvironment(job, "r000-t01", true))
    EXPECT_NE(name, "RAILTUNE_VERBS_SIM_TIME_SCALE");
  EXPECT_EQ(parseNetTransport("ib"), NetTransport::Ib);
  EXPECT_THROW(parseNetTransport("rdma"), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::emu::netjob
