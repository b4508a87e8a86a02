// The hwloc XML reader on whole exports: the real DGX-2 hwloc 3.0 file (shared data) and the synthetic GB200/GB300
// trays, checked against what each file says and, for the trays, against the built-in profiles.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "fabric/profiles.h"
#include "tests/discover/hwloc_fixture.h"

namespace railtune::fabric::discover {
namespace {

using testing::deviceRef;
using testing::devicesWhere;
using testing::loadFixture;
using testing::loadShared;
using testing::osdevNames;
using testing::sharedHwlocPath;
using testing::shareSwitch;

// A real hwloc 3.0 export of a DGX-2, from the shared data folder beside the checkout.
constexpr const char* kDgx2 = "hwloc3-nvidia-dgx2-nvml-nvswitch.xml";
constexpr uint16_t kNvidia = 0x10de, kMellanox = 0x15b3;
constexpr uint16_t k3dController = 0x0302, kInfiniBand = 0x0207, kEthernet = 0x0200;

TEST(HwlocXml, Dgx2Hwloc3ExportImports) {
  if (!std::filesystem::exists(sharedHwlocPath(kDgx2))) GTEST_SKIP() << sharedHwlocPath(kDgx2) << " is absent";
  const auto [topo, errors] = loadShared(kDgx2);
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(topo.version, "3.0");
  EXPECT_EQ(topo.architecture, "x86_64");  // a top-level info in hwloc 3.0
  EXPECT_EQ(topo.product, "NVIDIA DGX-2H");
  ASSERT_EQ(topo.packages.size(), 2u);
  for (int p = 0; p < 2; ++p) {
    const HwlocPackage& package = topo.packages[static_cast<size_t>(p)];
    EXPECT_EQ(package.osIndex, p);
    EXPECT_EQ(package.vendor, "GenuineIntel");
    EXPECT_EQ(package.familyId, 6);
    EXPECT_EQ(package.modelId, 85);
    EXPECT_EQ(package.model, "Intel(R) Xeon(R) Platinum 8174 CPU @ 3.10GHz");
    EXPECT_EQ(package.numas, std::vector<int>{p});
  }
  ASSERT_EQ(topo.numas.size(), 2u);
  EXPECT_EQ(topo.numas[0].cpumap, "00000003");
  EXPECT_EQ(topo.numas[1].cpumap, "03000000");
  EXPECT_TRUE(devicesWhere(topo, kMellanox, kInfiniBand).empty());  // the file has no NIC
  EXPECT_EQ(topo.pciDevices.size(), 28u);
}

TEST(HwlocXml, Dgx2GpusAreNvmlOsDevicesOnTheirSocket) {
  if (!std::filesystem::exists(sharedHwlocPath(kDgx2))) GTEST_SKIP() << sharedHwlocPath(kDgx2) << " is absent";
  const auto [topo, errors] = loadShared(kDgx2);
  const auto gpus = devicesWhere(topo, kNvidia, k3dController);
  ASSERT_EQ(gpus.size(), 16u);
  std::set<std::string> names;
  std::map<int, int> perNuma;
  for (const HwlocPciDevice* gpu : gpus) {
    ASSERT_EQ(gpu->osdevs.size(), 1u) << gpu->busId;
    EXPECT_EQ(gpu->osdevs[0].kind, OsDevKind::Gpu);  // osdev_type 12 = GPU|COPROC
    EXPECT_EQ(gpu->osdevs[0].info.at("Backend"), "NVML");
    EXPECT_EQ(gpu->osdevs[0].info.at("GPUModel"), "Tesla V100-SXM3-32GB-H");
    EXPECT_EQ(gpu->deviceId, 0x1db8);
    EXPECT_NEAR(gpu->linkGBps, 15.753846, 1e-6);
    names.insert(gpu->osdevs[0].name);
    ++perNuma[gpu->numa];
  }
  for (int i = 0; i < 16; ++i) EXPECT_EQ(names.count("nvml" + std::to_string(i)), 1u) << i;
  EXPECT_EQ(perNuma, (std::map<int, int>{{0, 8}, {1, 8}}));
  EXPECT_EQ(deviceRef(topo, "0000:34:00.0").upstream,
            (std::vector<std::string>{"hostbridge#713", "0000:2b:00.0", "0000:2c:00.0", "0000:2d:04.0", "0000:32:00.0",
                                      "0000:33:00.0"}));
}

TEST(HwlocXml, Dgx2GpuPairsShareTheirPlxSwitch) {
  if (!std::filesystem::exists(sharedHwlocPath(kDgx2))) GTEST_SKIP() << sharedHwlocPath(kDgx2) << " is absent";
  const auto [topo, errors] = loadShared(kDgx2);
  const auto gpus = devicesWhere(topo, kNvidia, k3dController);
  // Each V100 shares its last PLX switch (the bridge above its downstream port) with exactly one other.
  std::map<std::string, std::vector<std::string>> bySwitch;
  for (const HwlocPciDevice* gpu : gpus) {
    ASSERT_GE(gpu->upstream.size(), 3u);
    bySwitch[gpu->upstream[gpu->upstream.size() - 2]].push_back(gpu->busId);
  }
  EXPECT_EQ(bySwitch.size(), 8u);
  for (const auto& [key, members] : bySwitch) EXPECT_EQ(members.size(), 2u) << key;
  EXPECT_EQ(bySwitch.at("0000:32:00.0"), (std::vector<std::string>{"0000:34:00.0", "0000:36:00.0"}));
  EXPECT_TRUE(shareSwitch(deviceRef(topo, "0000:34:00.0"), deviceRef(topo, "0000:36:00.0")));
  EXPECT_FALSE(shareSwitch(deviceRef(topo, "0000:34:00.0"), deviceRef(topo, "0000:b7:00.0")));
}

TEST(HwlocXml, Dgx2NvSwitchesKeepTheirSubtype) {
  if (!std::filesystem::exists(sharedHwlocPath(kDgx2))) GTEST_SKIP() << sharedHwlocPath(kDgx2) << " is absent";
  const auto [topo, errors] = loadShared(kDgx2);
  std::map<int, int> perNuma;
  int withClass = 0;
  for (const HwlocPciDevice& d : topo.pciDevices) {
    if (d.subtype != "NVSwitch") continue;
    ++perNuma[d.numa];
    EXPECT_TRUE(d.osdevs.empty());
    // One of them is exported with an all-zero pci_type (the device did not answer); the others 10de:1ac2.
    if (d.classId == 0x0680 && d.vendorId == kNvidia && d.deviceId == 0x1ac2) ++withClass;
  }
  EXPECT_EQ(perNuma, (std::map<int, int>{{0, 6}, {1, 6}}));
  EXPECT_EQ(withClass, 11);
  EXPECT_EQ(deviceRef(topo, "0000:66:00.0").classId, 0);
}

void expectGraceTray(const HwlocTopology& topo) {
  ASSERT_EQ(topo.packages.size(), 2u);
  for (int p = 0; p < 2; ++p) {
    const HwlocPackage& grace = topo.packages[static_cast<size_t>(p)];
    EXPECT_EQ(grace.vendor, "NVIDIA");
    EXPECT_EQ(grace.model, "Neoverse-V2");
    EXPECT_EQ(grace.familyId, -1);
    EXPECT_EQ(grace.numas, std::vector<int>{p});
  }
  ASSERT_EQ(topo.numas.size(), 2u);
  EXPECT_EQ(topo.numas[0].cpumap, "000000ff,ffffffff,ffffffff");                    // CPUs 0-71
  EXPECT_EQ(topo.numas[1].cpumap, "0000ffff,ffffffff,ffffff00,00000000,00000000");  // CPUs 72-143
  EXPECT_EQ(topo.architecture, "aarch64");
}

// The fixture's GPUs and NICs are the profile's, in the profile's order and NUMA placement.
void expectProfileBusIds(const HwlocTopology& topo, const std::string& profileName, uint16_t nicDevice,
                         bool planeDevices) {
  const Profile* profile = findProfile(profileName);
  ASSERT_NE(profile, nullptr);
  const auto gpus = devicesWhere(topo, kNvidia, k3dController);
  ASSERT_EQ(gpus.size(), profile->gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) {
    EXPECT_EQ(gpus[i]->busId, profile->gpus[i].busId);
    EXPECT_EQ(gpus[i]->numa, profile->gpus[i].numa);
    EXPECT_EQ(osdevNames(*gpus[i], OsDevKind::Gpu), std::vector<std::string>{"nvml" + std::to_string(i)});
    EXPECT_EQ(osdevNames(*gpus[i], OsDevKind::Coproc), std::vector<std::string>{"cuda" + std::to_string(i)});
  }
  std::vector<const HwlocPciDevice*> nics;
  for (const HwlocPciDevice* d : devicesWhere(topo, kMellanox, kInfiniBand))
    if (d->deviceId == nicDevice) nics.push_back(d);
  std::vector<ProfileNicDevice> expected;
  for (const ProfileNic& nic : profile->nics) {
    if (planeDevices) expected.insert(expected.end(), nic.planeDevices.begin(), nic.planeDevices.end());
    if (!planeDevices) expected.push_back(nic.single);
  }
  ASSERT_EQ(nics.size(), expected.size());
  for (size_t i = 0; i < nics.size(); ++i) {
    EXPECT_EQ(nics[i]->busId, expected[i].busId);
    EXPECT_EQ(osdevNames(*nics[i], OsDevKind::OpenFabrics), std::vector<std::string>{expected[i].hca});
    EXPECT_EQ(osdevNames(*nics[i], OsDevKind::Network), std::vector<std::string>{expected[i].netdev});
  }
}

TEST(HwlocXml, Gb300TrayMatchesItsProfile) {
  const auto [topo, errors] = loadFixture("gb300-tray-synthetic.xml");
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(topo.version, "2.0");
  EXPECT_EQ(topo.product, "GB300 NVL72 compute tray (synthetic)");
  expectGraceTray(topo);
  expectProfileBusIds(topo, "gb300-nvl72", 0x1023, false);
}

TEST(HwlocXml, Gb300GpuSharesTheSwitchOfItsConnectX8Only) {
  const auto [topo, errors] = loadFixture("gb300-tray-synthetic.xml");
  const auto gpus = devicesWhere(topo, kNvidia, k3dController);
  const auto nics = devicesWhere(topo, kMellanox, kInfiniBand);
  ASSERT_EQ(gpus.size(), 4u);
  ASSERT_EQ(nics.size(), 4u);
  for (size_t g = 0; g < gpus.size(); ++g) {
    EXPECT_EQ(gpus[g]->upstream.size(), 4u);  // host bridge, root port, switch upstream, downstream port
    for (size_t n = 0; n < nics.size(); ++n) EXPECT_EQ(shareSwitch(*gpus[g], *nics[n]), g == n) << g << " " << n;
    EXPECT_NEAR(gpus[g]->linkGBps, 63.015385, 1e-6);  // PCIe Gen6 x16
  }
  // BlueField-3: Ethernet class, on a root port of its own under the second Grace.
  const auto dpus = devicesWhere(topo, kMellanox, kEthernet);
  ASSERT_EQ(dpus.size(), 1u);
  EXPECT_EQ(dpus[0]->deviceId, 0xa2dc);
  EXPECT_EQ(dpus[0]->busId, "0006:01:00.0");
  EXPECT_EQ(dpus[0]->numa, 1);
  EXPECT_EQ(dpus[0]->upstream.size(), 2u);
  for (const HwlocPciDevice* gpu : gpus) EXPECT_FALSE(shareSwitch(*dpus[0], *gpu));
  EXPECT_EQ(osdevNames(*dpus[0], OsDevKind::OpenFabrics), std::vector<std::string>{"mlx5_4"});
  const HwlocOsDev& mlx = nics[0]->osdevs[0];
  EXPECT_EQ(mlx.info.at("NodeGUID"), "b83f:d203:0000:1000");
  EXPECT_EQ(mlx.info.at("Port1State"), "4");
}

TEST(HwlocXml, Gb300TwoPlaneTrayShowsTwoFunctionsPerConnectX8) {
  const auto [topo, errors] = loadFixture("gb300-tray-synthetic-2plane.xml");
  ASSERT_TRUE(errors.empty()) << errors.front();
  expectGraceTray(topo);
  expectProfileBusIds(topo, "gb300-nvl72", 0x1023, true);
  const auto gpus = devicesWhere(topo, kNvidia, k3dController);
  const auto nics = devicesWhere(topo, kMellanox, kInfiniBand);
  ASSERT_EQ(nics.size(), 8u);
  for (size_t n = 0; n < nics.size(); ++n) {
    for (size_t g = 0; g < gpus.size(); ++g) EXPECT_EQ(shareSwitch(*gpus[g], *nics[n]), g == n / 2) << g << " " << n;
  }
  // The two planes of one CX8 are one adapter: same system image GUID, different node GUIDs.
  EXPECT_EQ(nics[0]->osdevs[0].info.at("SysImageGUID"), nics[1]->osdevs[0].info.at("SysImageGUID"));
  EXPECT_NE(nics[0]->osdevs[0].info.at("NodeGUID"), nics[1]->osdevs[0].info.at("NodeGUID"));
  EXPECT_NE(nics[1]->osdevs[0].info.at("SysImageGUID"), nics[2]->osdevs[0].info.at("SysImageGUID"));
}

TEST(HwlocXml, Gb200Hwloc3TrayReadsTheBitmaskTypes) {
  const auto [topo, errors] = loadFixture("gb200-tray-synthetic.xml");
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(topo.version, "3.0");
  expectGraceTray(topo);  // Architecture comes from the top-level info here
  expectProfileBusIds(topo, "gb200-nvl72", 0x1021, false);
  const auto gpus = devicesWhere(topo, kNvidia, k3dController);
  const auto nics = devicesWhere(topo, kMellanox, kInfiniBand);
  ASSERT_EQ(nics.size(), 4u);
  for (const HwlocPciDevice* gpu : gpus) {
    EXPECT_EQ(gpu->upstream.size(), 2u);  // host bridge and root port: no switch
    for (const HwlocPciDevice* nic : nics) EXPECT_FALSE(shareSwitch(*gpu, *nic));
  }
}

}  // namespace
}  // namespace railtune::fabric::discover
