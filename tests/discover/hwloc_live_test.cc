// The live topology through libhwloc (dlopen): this machine's hwloc 2.x, a library that is absent,
// one that is not hwloc, and one that reports the wrong API version.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "fabric/discover/hwloc_source.h"

namespace railtune::fabric::discover {
namespace {

// EnvLookup is a plain function pointer, hence the global.
std::string gLibrary;
std::optional<std::string> libraryEnv(const char* name) {
  if (std::string(name) == "RAILTUNE_HWLOC_LIBRARY") return gLibrary;
  return std::nullopt;
}

std::vector<std::string> errorsWithLibrary(const std::string& library) {
  gLibrary = library;
  std::vector<std::string> errors;
  const HwlocTopology topo = readLiveHwloc(errors, libraryEnv);
  EXPECT_TRUE(topo.numas.empty() && topo.packages.empty());
  return errors;
}

TEST(HwlocLive, ThisMachineHasNumaNodesAndPackages) {
  std::vector<std::string> errors;
  const HwlocTopology topo = readLiveHwloc(errors, [](const char*) -> std::optional<std::string> { return {}; });
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(topo.version.rfind("2.", 0), 0u) << topo.version;
  EXPECT_GE(topo.numas.size(), 1u);
  EXPECT_GE(topo.packages.size(), 1u);
  EXPECT_FALSE(topo.architecture.empty());
  for (const HwlocNuma& numa : topo.numas) EXPECT_FALSE(numa.cpumap.empty());
  // GPUs and NICs may be absent here; whatever PCI devices there are have canonical bus ids.
  for (const HwlocPciDevice& d : topo.pciDevices) EXPECT_EQ(d.busId.size(), 12u) << d.busId;
}

TEST(HwlocLive, AbsentLibraryTellsWhatToDo) {
  const auto errors = errorsWithLibrary("/nonexistent/libhwloc.so.15");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("hwloc library not found (/nonexistent/libhwloc.so.15): install the libhwloc15 package "
                            "or pass --hwloc-xml FILE exported with `lstopo --of xml`",
                            0),
            0u)
      << errors[0];
}

TEST(HwlocLive, LibraryThatIsNotHwloc) {
  const auto errors = errorsWithLibrary("libm.so.6");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "libm.so.6 is not an hwloc 2.x library: it does not export hwloc_get_api_version");
}

TEST(HwlocLive, Hwloc1ApiIsRefusedBeforeAnyCall) {
  const auto errors = errorsWithLibrary(RAILTUNE_FAKE_HWLOC_V1);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            std::string(RAILTUNE_FAKE_HWLOC_V1) + " has hwloc API version 0x10b00, railtune needs 2.x (0x2xxxx)");
}

}  // namespace
}  // namespace railtune::fabric::discover
