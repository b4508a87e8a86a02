// What the hwloc XML reader refuses, and that it says where: hwloc 1.x, files that are not hwloc
// topologies, malformed XML, bad attributes, and hostile sizes and nesting.
#include <gtest/gtest.h>

#include "tests/discover/hwloc_fixture.h"

namespace railtune::fabric::discover {
namespace {

using testing::fixturePath;
using testing::loadFixture;

// A one-Package, one-NUMA hwloc 2.x topology around `io` (objects placed under the Package).
std::string topologyWith(const std::string& io, const std::string& version = "2.0") {
  return "<topology version=\"" + version +
         "\">\n"
         "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" nodeset=\"0x1\" gp_index=\"1\">\n"
         "<object type=\"Package\" os_index=\"0\" cpuset=\"0x3\" nodeset=\"0x1\" gp_index=\"2\">\n"
         "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\" nodeset=\"0x1\" gp_index=\"3\"/>\n" +
         io + "</object>\n</object>\n</topology>\n";
}

std::string pciDev(const std::string& busId, const std::string& body = "") {
  return "<object type=\"PCIDev\" pci_busid=\"" + busId + "\" pci_type=\"0207 [15b3:1021] [15b3:0000] 00 00\">" + body +
         "</object>\n";
}

struct Read {
  HwlocTopology topo;
  std::vector<std::string> errors;
};

Read read(const std::string& text) {
  Read r;
  r.topo = readHwlocXml(text, "in.xml", r.errors);
  return r;
}

TEST(HwlocErrors, Hwloc1ExportIsRejectedWithAdvice) {
  const auto [topo, errors] = loadFixture("hwloc1-minimal.xml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind(fixturePath("hwloc1-minimal.xml") + ":3:1: hwloc 1.x XML is not supported", 0), 0u)
      << errors[0];
  EXPECT_NE(errors[0].find("hwloc >= 2 (`lstopo --of xml`)"), std::string::npos);
  EXPECT_TRUE(topo.packages.empty() && topo.numas.empty() && topo.pciDevices.empty());
  EXPECT_EQ(read("<topology version=\"1.0\"/>").errors.at(0).rfind("in.xml:1:1: hwloc 1.x XML", 0), 0u);
}

TEST(HwlocErrors, OtherVersionsAndRootsAreNotHwloc) {
  EXPECT_EQ(read("\n  <topology version=\"4.0\"/>").errors.at(0),
            "in.xml:2:3: unsupported hwloc XML version \"4.0\": railtune reads hwloc 2.x and 3.0 exports");
  const auto [topo, errors] = loadFixture("malformed-wrong-root.xml");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], fixturePath("malformed-wrong-root.xml") +
                           ":2:1: not an hwloc topology: the root element is <system>, expected <topology> "
                           "(export one with `lstopo --of xml`)");
  EXPECT_EQ(read("").errors.at(0).rfind("in.xml:1:1: malformed XML: ", 0), 0u);
  EXPECT_EQ(read("<!-- only a comment -->").errors.size(), 1u);
}

TEST(HwlocErrors, TruncatedFileNamesWhereTheXmlBreaks) {
  const auto [topo, errors] = loadFixture("malformed-truncated.xml");
  ASSERT_EQ(errors.size(), 1u);
  // pugixml stops inside the unterminated attribute value on line 9.
  EXPECT_EQ(errors[0].rfind(fixturePath("malformed-truncated.xml") + ":9:", 0), 0u) << errors[0];
  EXPECT_NE(errors[0].find("malformed XML: "), std::string::npos);
  EXPECT_TRUE(topo.pciDevices.empty());
}

TEST(HwlocErrors, BadPciDevicesAreSkippedWithTheirPlace) {
  const auto [topo, errors] = loadFixture("malformed-bad-pci-type.xml");
  ASSERT_EQ(errors.size(), 2u);
  const std::string file = fixturePath("malformed-bad-pci-type.xml");
  EXPECT_EQ(errors[0], file +
                           ":10:9: PCIDev 0000:05:00.0: pci_type \"3D controller, NVIDIA\" is not "
                           "\"CCCC [VVVV:DDDD] [SVVV:SDDD] rev progif\"");
  EXPECT_EQ(errors[1], file + ":11:9: PCIDev pci_busid \"0000:5:0.0\" is not a PCI bus id (dddd:bb:dd.f)");
  ASSERT_EQ(topo.pciDevices.size(), 1u);
  EXPECT_EQ(topo.pciDevices[0].busId, "0000:04:00.0");
  EXPECT_EQ(topo.pciDevices[0].numa, 0);
}

// A real hwloc 2 export can hold a SATA controller and a ConnectX-4 at one bus id under two host bridges: the
// device that is neither GPU nor NIC is left out with a warning, and the rest is read.
TEST(HwlocErrors, AnOddDeviceSharingABusIdIsAWarning) {
  const std::string path = fixturePath("shared-bus-id-two-host-bridges.xml");
  const auto [topo, errors] = loadFixture("shared-bus-id-two-host-bridges.xml");
  EXPECT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(topo.pciDevices.size(), 2u);
  EXPECT_EQ(topo.pciDevices[0].classId, 0x0302);
  EXPECT_EQ(topo.pciDevices[1].busId, "0000:04:00.0");
  EXPECT_EQ(topo.pciDevices[1].classId, 0x0207);
  EXPECT_EQ(topo.pciDevices[1].numa, 1);
  ASSERT_EQ(topo.warnings.size(), 1u);
  EXPECT_EQ(topo.warnings[0], path +
                                  ":12:9: PCIDev 0000:04:00.0 (class 0106, neither GPU nor NIC) has the bus id of the "
                                  "device at " +
                                  path + ":26:9; it is left out");
  // The odd device second: it is the one left out.
  const std::string nicFirst =
      pciDev("0000:04:00.0") + "<object type=\"PCIDev\" pci_busid=\"0000:04:00.0\" pci_type=\"0106 [8086:3a22]\"/>\n";
  const auto r = read(topologyWith(nicFirst));
  EXPECT_TRUE(r.errors.empty());
  ASSERT_EQ(r.topo.pciDevices.size(), 1u);
  EXPECT_EQ(r.topo.pciDevices[0].classId, 0x0207);
  ASSERT_EQ(r.topo.warnings.size(), 1u);
  EXPECT_EQ(r.topo.warnings[0],
            "in.xml:6:1: PCIDev 0000:04:00.0 (class 0106, neither GPU nor NIC) has the bus id of "
            "the device at in.xml:5:1; this one is left out");
  // Under one host bridge the same pair is a broken export, still an error.
  const auto oneBridge =
      read(topologyWith("<object type=\"Bridge\" gp_index=\"9\" bridge_type=\"0-1\">\n" + nicFirst + "</object>\n"));
  ASSERT_EQ(oneBridge.errors.size(), 1u);
  EXPECT_EQ(oneBridge.errors[0], "in.xml:7:1: PCIDev 0000:04:00.0 appears twice (first at in.xml:6:1)");
}

TEST(HwlocErrors, AttributeProblemsNameTheElement) {
  const std::string dup = pciDev("0000:04:00.0") + pciDev("0000:04:00.0");
  EXPECT_EQ(read(topologyWith(dup)).errors.at(0),
            "in.xml:6:1: PCIDev 0000:04:00.0 appears twice (first at in.xml:5:1)");
  const auto infinite = read(topologyWith("<object type=\"NUMANode\" os_index=\"1\" cpuset=\"0xf...f\"/>\n"));
  EXPECT_EQ(infinite.errors.at(0),
            "in.xml:5:1: NUMANode 1: cpuset \"0xf...f\" is not a finite hwloc bitmap (\"0xffffffff,0x00000003\")");
  EXPECT_EQ(infinite.topo.numas.size(), 1u);
  const auto osdev = read(topologyWith(pciDev("0000:04:00.0", "<object type=\"OSDev\" name=\"mlx5_0\"/>")));
  EXPECT_EQ(osdev.errors.at(0),
            "in.xml:5:94: OSDev \"mlx5_0\" under 0000:04:00.0: needs a name and a numeric osdev_type");
  const auto speed = read(topologyWith(
      "<object type=\"PCIDev\" pci_busid=\"0000:04:00.0\" pci_type=\"0200 [8086:1521]\" pci_link_speed=\"fast\"/>"));
  EXPECT_EQ(speed.errors.at(0), "in.xml:5:1: PCIDev 0000:04:00.0: pci_link_speed \"fast\" is not a number of GB/s");
  const auto nodeset = read(topologyWith("<object type=\"Group\" nodeset=\"all\"/>"));
  EXPECT_EQ(nodeset.errors.at(0), "in.xml:5:1: nodeset \"all\" is not an hwloc bitmap");
}

TEST(HwlocErrors, UpstreamKeysForBridgesWithoutAddress) {
  // Bridges without gp_index (hand-written files) fall back to their place in the document.
  const auto r = read(topologyWith("<object type=\"Bridge\" bridge_type=\"0-1\">" + pciDev("0000:04:00.0") +
                                   "</object><object type=\"Bridge\" bridge_type=\"0-1\">" + pciDev("0000:84:00.0") +
                                   "</object>"));
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.topo.pciDevices.size(), 2u);
  EXPECT_EQ(r.topo.pciDevices[0].upstream, std::vector<std::string>{"hostbridge@1"});
  EXPECT_EQ(r.topo.pciDevices[1].upstream, std::vector<std::string>{"hostbridge@2"});
  // A Package without os_index takes its place among packages.
  EXPECT_EQ(read("<topology version=\"2.0\"><object type=\"Package\"/><object type=\"Package\"/></topology>")
                .topo.packages.at(1)
                .osIndex,
            1);
}

TEST(HwlocErrors, DeepNestingIsCappedNotRecursedInto) {
  std::string deep = "<topology version=\"2.0\">";
  for (int i = 0; i < 100000; ++i) deep += "<object type=\"Group\">";
  for (int i = 0; i < 100000; ++i) deep += "</object>";
  deep += "</topology>";
  const auto r = read(deep);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("objects nested deeper than 64 levels"), std::string::npos) << r.errors[0];
  EXPECT_EQ(r.errors[0].rfind("in.xml:1:", 0), 0u);
}

TEST(HwlocErrors, AbsurdCountsAreRejected) {
  std::string many;
  for (size_t i = 0; i <= kHwlocMaxPciDevices; ++i) {
    char busId[16];
    std::snprintf(busId, sizeof busId, "%04zx:%02zx:00.0", i / 256, i % 256);
    many += pciDev(busId);
  }
  const auto r = read(topologyWith(many));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("more than 4096 PCI devices"), std::string::npos);
  EXPECT_EQ(r.topo.pciDevices.size(), kHwlocMaxPciDevices);
  std::string numas;
  for (size_t i = 0; i <= kHwlocMaxNumaNodes; ++i)
    numas += "<object type=\"NUMANode\" os_index=\"" + std::to_string(i + 1) + "\" cpuset=\"0x0\"/>";
  EXPECT_NE(read(topologyWith(numas)).errors.at(0).find("more than 1024 NUMA nodes"), std::string::npos);
  const auto big = read(std::string(kHwlocMaxXmlBytes + 1, ' '));
  EXPECT_EQ(big.errors.at(0).rfind("in.xml: 67108865 bytes is more than", 0), 0u);
}

TEST(HwlocErrors, ErrorListIsBounded) {
  std::string bad;
  for (int i = 0; i < 500; ++i) bad += "<object type=\"PCIDev\" pci_busid=\"nope\"/>\n";
  const auto r = read(topologyWith(bad));
  EXPECT_EQ(r.errors.size(), 101u);
  EXPECT_EQ(r.errors.back(), "in.xml: too many errors, stopped reading");
}

TEST(HwlocErrors, MissingFileIsNamed) {
  std::vector<std::string> errors;
  readHwlocXmlFile(fixturePath("no-such-file.xml"), errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], fixturePath("no-such-file.xml") + ": cannot open the hwloc XML file");
}

}  // namespace
}  // namespace railtune::fabric::discover
