// Which GPU a connection serves and its expected rail (net_plugin/served_gpu.h): the CUDA bus id
// matched against the rail map in any domain width, LOCAL_RANK when there is no CUDA context, and
// the reasons when neither gives a GPU.
#include <gtest/gtest.h>

#include <map>

#include "formats/rail_map.h"
#include "net_plugin/served_gpu.h"

namespace railtune::net {
namespace {

std::map<std::string, std::string> gEnv;
std::optional<std::string> fakeEnv(const char* name) {
  const auto it = gEnv.find(name);
  return it == gEnv.end() ? std::nullopt : std::optional<std::string>(it->second);
}

formats::RailMapHost tray() {
  formats::RailMapHost host;
  host.name = "gb300-r00-t00";
  for (int g = 0; g < 4; ++g) {
    formats::RailMapGpu gpu;
    gpu.index = g;
    gpu.busId = "000" + std::to_string(g * 2) + ":01:00.0";
    formats::RailMapNic nic;
    nic.hca = "mlx5_" + std::to_string(g);
    nic.rail = g;
    gpu.nics.push_back(nic);
    host.gpus.push_back(gpu);
  }
  host.gpus[3].nics.clear();  // a GPU without a NIC in the map has no expected rail
  return host;
}

TEST(NetServedGpu, BusIdsCompareByValueNotByText) {
  EXPECT_TRUE(sameBusId("00000002:01:00.0", "0002:01:00.0"));
  EXPECT_TRUE(sameBusId("0000:1B:00.0", "0000:1b:00.0"));
  EXPECT_FALSE(sameBusId("0000:1b:00.0", "0000:1b:00.1"));
  EXPECT_FALSE(sameBusId("0000:1b:00.0", "0000:1b:00.0 "));
  EXPECT_FALSE(sameBusId("", ""));
  EXPECT_FALSE(sameBusId("garbage", "garbage"));
}

TEST(NetServedGpu, TheCurrentCudaDeviceWinsOverLocalRank) {
  const formats::RailMapHost host = tray();
  gEnv = {{"LOCAL_RANK", "0"}};
  const ServedGpu gpu = resolveServedGpu(std::string("00000004:01:00.0"), &host, fakeEnv);
  EXPECT_EQ(gpu.index, 2);
  EXPECT_EQ(gpu.source, "CUDA device 00000004:01:00.0");
  EXPECT_EQ(expectedRail(&host, gpu.index), 2);
}

TEST(NetServedGpu, ACudaDeviceOutsideTheMapIsUnknownAndSaysSo) {
  const formats::RailMapHost host = tray();
  const ServedGpu gpu = resolveServedGpu(std::string("0000:99:00.0"), &host, fakeEnv);
  EXPECT_EQ(gpu.index, -1);
  EXPECT_NE(gpu.source.find("not in this host's rail map entry"), std::string::npos) << gpu.source;
  EXPECT_EQ(resolveServedGpu(std::string("0000:99:00.0"), nullptr, fakeEnv).index, -1) << "no map";
}

TEST(NetServedGpu, LocalRankStandsInWithoutCuda) {
  const formats::RailMapHost host = tray();
  gEnv = {{"LOCAL_RANK", "1"}};
  const ServedGpu gpu = resolveServedGpu(std::nullopt, &host, fakeEnv);
  EXPECT_EQ(gpu.index, 1);
  EXPECT_EQ(gpu.source, "LOCAL_RANK=1");
  EXPECT_EQ(expectedRail(&host, 1), 1);
  EXPECT_EQ(expectedRail(&host, 3), -1) << "GPU 3 has no NIC in the map";
  EXPECT_EQ(expectedRail(&host, 9), -1) << "no such GPU";
  EXPECT_EQ(expectedRail(nullptr, 1), -1) << "no map";
}

TEST(NetServedGpu, ABadOrMissingLocalRankLeavesTheGpuUnknown) {
  for (const char* bad : {"", "x", "-1", "1.5", "99999"}) {
    gEnv = {{"LOCAL_RANK", bad}};
    const ServedGpu gpu = resolveServedGpu(std::nullopt, nullptr, fakeEnv);
    EXPECT_EQ(gpu.index, -1) << bad;
    EXPECT_NE(gpu.source.find("unknown"), std::string::npos) << gpu.source;
  }
  gEnv.clear();
  EXPECT_EQ(resolveServedGpu(std::nullopt, nullptr, fakeEnv).source,
            "unknown (no current CUDA device, LOCAL_RANK unset)");
}

TEST(NetServedGpu, WithoutLibcudaLoadedThereIsNoCurrentDevice) {
  EXPECT_EQ(currentCudaBusId(), std::nullopt) << "this test binary never loads CUDA";
}

}  // namespace
}  // namespace railtune::net
