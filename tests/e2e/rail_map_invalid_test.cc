// A rail map that parses as JSON but that the plugins cannot use (here a rail beyond the map's rail
// count), through the real .so files and the emulator: it takes the bad-configuration path of each
// plugin (docs/formats.md, rail map): the tuner's init succeeds with one WARN naming the file, line and
// column, and goes on without the map; the net plugin steps aside with one WARN.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "emulator/net_driver.h"
#include "emulator/tuner_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

const char* kRailBeyondTheMap = R"({
  "schema": "railtune.rail_map.v1",
  "cluster": "c",
  "rails": 1,
  "planes": 1,
  "hosts": [
    {"name": "h1", "domain": "d1", "gpus": [{"index": 0, "bus_id": "0000:1b:00.0", "nics": [
      {"hca": "mlx5_0", "netdev": "", "bus_id": "0000:18:00.0", "port": 1, "rail": 99, "plane": -1}]}]}
  ]
}
)";

class InvalidRailMapTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    for (const char* v : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL",
                          "RAILTUNE_NET_ADDRESS_FILE", "RAILTUNE_NET_TRANSPORT", "RAILTUNE_STRICT"})
      env.unset(v);
    dir = std::filesystem::temp_directory_path() / ("railtune-e2e-invalid-map-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    mapPath = (dir / "rail-map.json").string();
    std::ofstream(mapPath, std::ios::binary) << kRailBeyondTheMap;
    env.set("RAILTUNE_RAIL_MAP", mapPath);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
  std::string mapPath;
};

TEST_F(InvalidRailMapTest, TheTunerWarnsOnceWithThePositionAndGoesOnWithoutIt) {
  const emu::Binding binding = emu::Loader::bindVersion(emu::PluginKind::Tuner, pluginPath("tuner"), 6);
  ASSERT_TRUE(binding);
  ncclTunerConstants_v5_t constants = emu::defaultTunerConstants(emu::NcclBehaviour::V2_30);
  emu::TunerDriver driver(binding);
  ASSERT_EQ(driver.init(0x4a11, 8, 2, ncclNvlDomainInfo_v5_t{2, 4, 4}, &constants), ncclSuccess) << pluginLogText();
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find(mapPath + ":8:84: host h1 gpus[0] nics[0]: field 'rail' is 99 but the map has 1 rails"),
            std::string::npos)
      << warnings[0];
}

TEST_F(InvalidRailMapTest, TheNetPluginStepsAsideWithOneWarning) {
  env.set("NCCL_SOCKET_IFNAME", "lo");
  const std::filesystem::path root = dir / "sysfs";
  std::filesystem::create_directories(root / "sys/class/net/lo");
  std::ofstream(root / "sys/class/net/lo/operstate") << "unknown\n";
  env.set("RAILTUNE_NET_SYSFS_ROOT", root.string());
  emu::Loader loader(emu::NcclBehaviour::V2_30, emu::EnvSource::fromMap({{"NCCL_NET_PLUGIN", pluginPath("net")}}));
  std::vector<emu::NetCandidate> candidates = loader.openNetList();
  const emu::NetSelection selection = emu::selectNet(loader, candidates, 0x4a12);
  EXPECT_NE(selection.chosenName, "railtune");
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find(mapPath + ":8:84: "), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace railtune::testing
