// The rail map's `gpu` for every built-in hardware profile and for the embedded default cluster is the device name
// NCCL and nccl-tests print, exactly as the emulator's GPU-to-profile table holds it: the tuner matches a fitted
// model's applies_to.gpu (a dataset's device line) against the map, and `sweep compare`/`sweep fit` find the
// profile of a dataset's GPU through that table, so "NVIDIA H100" for "NVIDIA H100 80GB HBM3" matches nothing.
#include <gtest/gtest.h>

#include "emulator/nccl_model/terms.h"
#include "fabric/default_cluster.h"
#include "fabric/expand.h"
#include "fabric/profiles.h"
#include "fabric/rail_map_write.h"
#include "formats/rail_map.h"

namespace railtune::fabric {
namespace {

std::string railMapGpu(const Fabric& fabric) {
  return formats::parseRailMap(writeRailMap(fabric), "rail map").gpu;
}

TEST(RailMapGpu, EveryProfileWritesTheNameTheEmulatorsTableHolds) {
  ASSERT_FALSE(profileNames().empty());
  for (const std::string& profile : profileNames()) {
    SCOPED_TRACE(profile);
    ClusterSpec spec;
    spec.name = profile + "-cluster";
    spec.profile = profile;
    spec.domains = 2;
    const std::string gpu = railMapGpu(expand(spec));
    const std::optional<std::string> expected = ncclmodel::gpuForProfile(profile);
    ASSERT_TRUE(expected) << "the emulator's table has no GPU for profile " << profile;
    EXPECT_EQ(gpu, *expected);
    EXPECT_EQ(ncclmodel::profileForGpu(gpu), profile) << gpu;
    EXPECT_EQ(gpu.rfind("NVIDIA ", 0), 0u) << gpu;
  }
}

TEST(RailMapGpu, TheDefaultClusterWritesItsProfilesName) {
  const Fabric fabric = loadDefaultCluster();
  ASSERT_FALSE(fabric.hosts.empty());
  const std::string profile = fabric.hosts.front().profile;
  EXPECT_EQ(railMapGpu(fabric), ncclmodel::gpuForProfile(profile)) << profile;
  EXPECT_EQ(railMapGpu(fabric), "NVIDIA GB300");
}

}  // namespace
}  // namespace railtune::fabric
