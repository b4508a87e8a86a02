// readNvml over the fake NVML library (fake_nvml/) and the JSON fixtures in tests/data/discover/nvml/,
// plus the clique label rule and the cluster UUID text form.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "fabric/discover/nvml_source.h"
#include "tests/discover/joined_lines.h"

namespace rd = railtune::fabric::discover;

namespace {

std::string nvmlFixture(const std::string& name) {
  return std::string(RAILTUNE_NVML_FIXTURES) + "/" + name;
}

// Points the fake at a config for one test and restores the environment afterwards.
class FakeNvml : public ::testing::Test {
 protected:
  void TearDown() override {
    ::unsetenv("FAKE_NVML_CONFIG");
    ::unsetenv("RAILTUNE_NVML_LIBRARY");
    if (!scratch_.empty()) std::remove(scratch_.c_str());
  }
  rd::NvmlInventory read(const std::string& config, const std::string& library = RAILTUNE_FAKE_NVML) {
    ::setenv("FAKE_NVML_CONFIG", config.c_str(), 1);
    return rd::readNvml(library);
  }
  // A config written for this test only.
  std::string scratch(const std::string& json) {
    char pattern[] = "/tmp/railtune-fake-nvml-XXXXXX";
    const int fd = ::mkstemp(pattern);
    EXPECT_GE(fd, 0);
    ::close(fd);
    scratch_ = pattern;
    std::ofstream(scratch_) << json;
    return scratch_;
  }
  std::string scratch_;
};

constexpr const char* kOneGb300 =
    R"({"gpus": [{"busId": "0008:01:00.0", "name": "NVIDIA GB300", "sm": 103, "nvlinksActive": 18,
       "clusterUuid": "3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40", "cliqueId": 7, "fabricState": "completed",
       "healthMask": 5}]})";

}  // namespace

TEST_F(FakeNvml, Gb300Tray) {
  const rd::NvmlInventory inv = read(nvmlFixture("gb300-tray.json"));
  ASSERT_TRUE(inv.loaded) << inv.error;
  EXPECT_EQ(inv.error, "");
  EXPECT_EQ(inv.library, RAILTUNE_FAKE_NVML);
  EXPECT_EQ(inv.driverVersion, "580.82.07");
  EXPECT_EQ(inv.notes, std::vector<std::string>{}) << joined(inv.notes);
  ASSERT_EQ(inv.gpus.size(), 4u);
  const char* busIds[] = {"0008:01:00.0", "0009:01:00.0", "0018:01:00.0", "0019:01:00.0"};
  for (size_t i = 0; i < 4; ++i) {
    const rd::NvmlGpu& gpu = inv.gpus[i];
    EXPECT_EQ(gpu.index, static_cast<int>(i));
    EXPECT_EQ(gpu.busId, busIds[i]);  // NVML spells it "0008:01:00.0" in uppercase
    EXPECT_EQ(gpu.name, "NVIDIA GB300");
    EXPECT_EQ(gpu.uuid.substr(0, 4), "GPU-");
    EXPECT_EQ(gpu.sm, 103);
    EXPECT_EQ(gpu.nvlinksActive, 18);
    EXPECT_EQ(gpu.nvlinksProbed, 18);
    EXPECT_EQ(gpu.c2cLinks, 5);
    EXPECT_EQ(gpu.c2cBwMBps, 44712);
    EXPECT_TRUE(gpu.fabricInfo);
    EXPECT_EQ(gpu.clusterUuid, "3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40");
    EXPECT_EQ(gpu.cliqueId, 32766u);
    EXPECT_EQ(gpu.fabricState, 3);
    EXPECT_EQ(gpu.fabricStatus, 0);
    EXPECT_EQ(gpu.healthMask, 0u);
    EXPECT_EQ(gpu.numa, -1);  // NVML is not asked; hwloc knows
    EXPECT_EQ(rd::cliqueLabel(gpu), "3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40.32766");
  }
}

TEST_F(FakeNvml, Gb300TrayDegraded) {
  const rd::NvmlInventory inv = read(nvmlFixture("gb300-tray-degraded.json"));
  ASSERT_TRUE(inv.loaded) << inv.error;
  ASSERT_EQ(inv.gpus.size(), 4u);
  EXPECT_EQ(inv.gpus[1].nvlinksActive, 16);
  EXPECT_EQ(inv.gpus[1].nvlinksProbed, 18);
  EXPECT_NE(inv.gpus[1].healthMask, 0u);
  EXPECT_EQ(inv.gpus[3].fabricState, 2);
  EXPECT_EQ(rd::cliqueLabel(inv.gpus[3]), "");  // GFD writes no label while registration is in progress
  EXPECT_NE(rd::cliqueLabel(inv.gpus[1]), "");  // a degraded GPU is still in its clique
}

TEST_F(FakeNvml, DgxH100HasNoFabric) {
  const rd::NvmlInventory inv = read(nvmlFixture("dgx-h100.json"));
  ASSERT_TRUE(inv.loaded) << inv.error;
  EXPECT_EQ(inv.notes, std::vector<std::string>{}) << joined(inv.notes);
  ASSERT_EQ(inv.gpus.size(), 8u);
  EXPECT_EQ(inv.gpus[7].busId, "0000:df:00.0");
  for (const rd::NvmlGpu& gpu : inv.gpus) {
    EXPECT_EQ(gpu.sm, 90);
    EXPECT_EQ(gpu.nvlinksActive, 18);
    EXPECT_EQ(gpu.c2cLinks, 0);
    EXPECT_EQ(gpu.c2cBwMBps, 0);
    EXPECT_FALSE(gpu.fabricInfo);
    EXPECT_EQ(gpu.fabricState, 0);
    EXPECT_EQ(rd::cliqueLabel(gpu), "");
  }
}

TEST_F(FakeNvml, LibraryFromTheEnvironment) {
  ::setenv("RAILTUNE_NVML_LIBRARY", RAILTUNE_FAKE_NVML, 1);
  const rd::NvmlInventory inv = read(nvmlFixture("dgx-h100.json"), "");
  EXPECT_TRUE(inv.loaded) << inv.error;
  EXPECT_EQ(inv.library, RAILTUNE_FAKE_NVML);
  EXPECT_EQ(inv.gpus.size(), 8u);
}

TEST_F(FakeNvml, NotFound) {
  const rd::NvmlInventory inv = read(nvmlFixture("gb300-tray.json"), "/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(inv.loaded);
  EXPECT_EQ(inv.error, "NVML not found (/nonexistent/libnvidia-ml.so.1): no NVIDIA driver on this host?");
  EXPECT_TRUE(inv.gpus.empty());
}

TEST_F(FakeNvml, DefaultLibraryName) {
  // On a host without the NVIDIA driver (this build machine) the default name fails with the message
  // users see; where a driver is installed the library loads.
  const rd::NvmlInventory inv = rd::readNvml("");
  EXPECT_EQ(inv.library, "libnvidia-ml.so.1");
  if (!inv.loaded && inv.error.rfind("NVML not found", 0) == 0) {
    EXPECT_EQ(inv.error, "NVML not found (libnvidia-ml.so.1): no NVIDIA driver on this host?");
  }
}

TEST_F(FakeNvml, InitFailure) {
  const rd::NvmlInventory inv = read(scratch(R"({"failInit": true, "gpus": []})"));
  EXPECT_FALSE(inv.loaded);
  EXPECT_EQ(inv.error,
            std::string("NVML (") + RAILTUNE_FAKE_NVML + "): nvmlInit_v2 failed: NVML_ERROR_DRIVER_NOT_LOADED");
}

TEST_F(FakeNvml, FabricInfoVFailsOverToV1) {
  const rd::NvmlInventory inv = read(scratch(std::string(kOneGb300).replace(1, 0, R"("dropFabricInfoV": true, )")));
  ASSERT_TRUE(inv.loaded) << inv.error;
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_TRUE(inv.gpus[0].fabricInfo);
  EXPECT_EQ(inv.gpus[0].cliqueId, 7u);
  EXPECT_EQ(inv.gpus[0].healthMask, 0u);  // v1 has no health mask
  EXPECT_NE(joined(inv.notes).find("GPU 0: nvmlDeviceGetGpuFabricInfoV: NVML_ERROR_FUNCTION_NOT_FOUND"),
            std::string::npos)
      << joined(inv.notes);
}

TEST_F(FakeNvml, SymbolMissingIsANoteNotAFailure) {
  const rd::NvmlInventory inv = read(scratch(kOneGb300), RAILTUNE_FAKE_NVML_V1);
  ASSERT_TRUE(inv.loaded) << inv.error;
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(rd::cliqueLabel(inv.gpus[0]), "3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40.7");
  EXPECT_NE(joined(inv.notes).find("nvmlDeviceGetGpuFabricInfoV: not exported by this NVML"), std::string::npos);
  EXPECT_EQ(inv.gpus[0].c2cLinks, 0);  // not in the config: the field answers NOT_SUPPORTED
}

TEST_F(FakeNvml, VersionedStructIsChecked) {
  // The fake answers ARGUMENT_VERSION_MISMATCH unless version == sizeof(v2 struct) | 2 << 24, so the
  // health mask only arrives when our version word is right.
  const rd::NvmlInventory inv = read(scratch(kOneGb300));
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].healthMask, 5u);
  EXPECT_EQ(inv.notes, std::vector<std::string>{}) << joined(inv.notes);
}

namespace {

// The dynamic symbols a shared object defines, as `nm -D --defined-only` lists them.
std::set<std::string> exportedSymbols(const std::string& library) {
  std::set<std::string> names;
  FILE* nm = ::popen(("nm -D --defined-only '" + library + "'").c_str(), "r");
  if (nm == nullptr) return names;
  char line[512];
  while (std::fgets(line, sizeof(line), nm) != nullptr) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    names.insert(text.substr(text.rfind(' ') + 1));
  }
  ::pclose(nm);
  return names;
}

}  // namespace

// The fake stands for NVML only as far as railtune reads it: exactly these entry points, nothing else.
TEST(FakeNvmlLibrary, ExportsExactlyTheEntryPointsRead) {
  std::set<std::string> expected = {"nvmlInit_v2",
                                    "nvmlShutdown",
                                    "nvmlSystemGetDriverVersion",
                                    "nvmlDeviceGetCount_v2",
                                    "nvmlDeviceGetHandleByIndex_v2",
                                    "nvmlDeviceGetPciInfo_v3",
                                    "nvmlDeviceGetName",
                                    "nvmlDeviceGetUUID",
                                    "nvmlDeviceGetCudaComputeCapability",
                                    "nvmlDeviceGetNvLinkState",
                                    "nvmlDeviceGetFieldValues",
                                    "nvmlDeviceGetGpuFabricInfo",
                                    "nvmlDeviceGetGpuFabricInfoV"};
  EXPECT_EQ(exportedSymbols(RAILTUNE_FAKE_NVML), expected);
  expected.erase("nvmlDeviceGetGpuFabricInfoV");
  EXPECT_EQ(exportedSymbols(RAILTUNE_FAKE_NVML_V1), expected);
}

TEST(NvmlFormat, ClusterUuidAndCliqueLabel) {
  const unsigned char uuid[16] = {0x3f, 0x9c, 0x2a, 0x71, 0x4b, 0x8e, 0x4d, 0x05,
                                  0xa6, 0xc3, 0x9e, 0x1d, 0x7b, 0x2f, 0x5c, 0x40};
  EXPECT_EQ(rd::formatClusterUuid(uuid), "3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40");
  const unsigned char zero[16] = {};
  EXPECT_TRUE(rd::isZeroClusterUuid(rd::formatClusterUuid(zero)));

  rd::NvmlGpu gpu;
  gpu.fabricInfo = true;
  gpu.clusterUuid = rd::formatClusterUuid(uuid);
  gpu.cliqueId = 1;
  gpu.fabricState = 3;
  EXPECT_EQ(rd::cliqueLabel(gpu), "3f9c2a71-4b8e-4d05-a6c3-9e1d7b2f5c40.1");
  gpu.fabricStatus = 10;  // registration finished with an error (NVML_ERROR_TIMEOUT)
  EXPECT_EQ(rd::cliqueLabel(gpu), "");
  gpu.fabricStatus = 0;
  gpu.clusterUuid = rd::formatClusterUuid(zero);
  EXPECT_EQ(rd::cliqueLabel(gpu), "");
  gpu.clusterUuid = rd::formatClusterUuid(uuid);
  gpu.fabricState = 1;
  EXPECT_EQ(rd::cliqueLabel(gpu), "");
}
