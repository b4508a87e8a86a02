// NCCL topology XML and rail map for fabrics expanded from the built-in hardware profiles: goldens for a
// 2-rack GB300 NVL72 cluster (its first host and a host of the second rack) and a DGX H100, and the
// round trip model → XML → model for every host of each.
#include <gtest/gtest.h>

#include "fabric/expand.h"
#include "fabric/rail_map_write.h"
#include "formats/rail_map.h"
#include "tests/topo_gen/nccl_xml_golden.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::topo {
namespace {

using testing::expectGolden;

fabric::Fabric expandProfile(const std::string& profile, int domains, int rails, int planes) {
  fabric::ClusterSpec spec;
  spec.name = profile + "-cluster";
  spec.profile = profile;
  spec.domains = domains;
  spec.rails = rails;
  spec.planes = planes;
  return fabric::expand(spec);
}

const fabric::Fabric& gb300() {
  static const fabric::Fabric f = expandProfile("gb300-nvl72", 2, 4, -1);
  return f;
}

TEST(NcclXmlProfiles, Gb300TwoRacksFirstHostMatchesGolden) {
  expectGolden("tests/data/golden/nccl_xml/profile-gb300-nvl72-first-host.xml", writeNcclXml(gb300().hosts.front()));
}

TEST(NcclXmlProfiles, Gb300TwoRacksSecondRackHostMatchesGolden) {
  const fabric::Host& host = gb300().hosts.at(18 + 9);
  ASSERT_EQ(host.domain, gb300().domains.at(1).name);
  expectGolden("tests/data/golden/nccl_xml/profile-gb300-nvl72-second-rack.xml", writeNcclXml(host));
}

TEST(NcclXmlProfiles, DgxH100MatchesGolden) {
  expectGolden("tests/data/golden/nccl_xml/profile-dgx-h100.xml",
               writeNcclXml(expandProfile("dgx-h100", 1, -1, -1).hosts.front()));
}

TEST(NcclXmlProfiles, Gb300TwoPlaneHostMatchesGolden) {
  expectGolden("tests/data/golden/nccl_xml/profile-gb300-nvl72-two-planes.xml",
               writeNcclXml(expandProfile("gb300-nvl72", 1, 4, 2).hosts.front()));
}

// GB200/GB300: the GPU reaches Grace over C2C and the NIC hangs off Grace's PCIe. NCCL's own dump puts both
// PCI functions directly under the <cpu>, with no bridge between GPU and NIC (no PIX path that does not exist).
TEST(NcclXmlProfiles, C2cGpusAndTheirNicsHangOffGraceWithoutABridge) {
  for (const char* profile : {"gb200-nvl72", "gb300-nvl72"}) {
    SCOPED_TRACE(profile);
    const fabric::Host host = expandProfile(profile, 1, -1, -1).hosts.front();
    const XmlElement root = buildNcclXml(host);
    ASSERT_EQ(root.children.size(), 2u);
    for (const XmlElement& cpu : root.children) {
      ASSERT_EQ(cpu.children.size(), 4u);  // 2 GPUs, then their 2 NICs
      for (size_t i = 0; i < cpu.children.size(); ++i) {
        const XmlElement& pci = cpu.children[i];
        const std::string cls = pci.attrs.at(1).second;
        EXPECT_EQ(cls, i < 2 ? "0x030200" : "0x020700") << pci.attrs.at(0).second;
        EXPECT_EQ(pci.children.at(0).name, i < 2 ? "gpu" : "nic");
      }
    }
    EXPECT_EQ(writeNcclXml(host).find(R"(busid="ffff:ff:)"), std::string::npos);  // no synthetic switch
    const fabric::Host back = readNcclXml(writeNcclXml(host), "host.xml");
    ASSERT_EQ(back.nics.size(), 4u);
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(back.nics[i].nearestGpu, host.nics[i].nearestGpu) << i;
  }
}

TEST(NcclXmlProfiles, DgxGpusKeepTheirPcieSwitch) {
  const XmlElement root = buildNcclXml(expandProfile("dgx-h100", 1, -1, -1).hosts.front());
  const XmlElement& bridge = root.children.at(0).children.at(0);
  EXPECT_EQ(bridge.attrs.at(1).second, "0x060400");
  EXPECT_EQ(bridge.children.at(0).children.at(0).name, "gpu");
  EXPECT_EQ(bridge.children.at(1).children.at(0).name, "nic");
}

TEST(NcclXmlProfiles, TwoPlaneNicsNeedTheAsicGuid) {
  fabric::Fabric f = expandProfile("gb300-nvl72", 1, 4, 2);
  fabric::Diagnostics missing;
  checkPlaneGuids(f, missing);
  // One finding per place that declared the NICs (here each of the profile's 4 NICs), with its count.
  ASSERT_EQ(missing.all().size(), 4u);
  EXPECT_NE(missing.all().front().message.find(
                "36 plane devices on 18 hosts (the first: host rack00-tray00: NIC mlx5_0 (rail 0, plane 0)) have "
                "no guid"),
            std::string::npos)
      << missing.all().front().message;
  for (fabric::Host& host : f.hosts)
    for (fabric::Nic& nic : host.nics) nic.guid = 0xb83fd20300a10000ULL + static_cast<uint64_t>(nic.rail);
  fabric::Diagnostics shared;
  checkPlaneGuids(f, shared);
  EXPECT_TRUE(shared.all().empty());
  EXPECT_NE(writeNcclXml(f.hosts.front())
                .find(R"(<net name="mlx5_1" dev="1" speed="400000" port="1" guid="0xb83fd20300a10000")"),
            std::string::npos);
  f.hosts.front().nics.at(1).guid += 0x100;  // rail 0, plane 1
  fabric::Diagnostics differ;
  checkPlaneGuids(f, differ);
  ASSERT_EQ(differ.all().size(), 1u);
  EXPECT_NE(differ.all().front().message.find("has a guid other than its plane 0 (mlx5_0)"), std::string::npos)
      << differ.all().front().message;
  fabric::Diagnostics singlePlane;
  checkPlaneGuids(expandProfile("gb300-nvl72", 1, 4, -1), singlePlane);
  EXPECT_TRUE(singlePlane.all().empty());
}

TEST(NcclXmlProfiles, RailMapOfGb300TwoRacksMatchesGolden) {
  expectGolden("tests/data/golden/rail_map/profile-gb300-nvl72.json", fabric::writeRailMap(gb300()));
}

TEST(NcclXmlProfiles, EveryHostRoundTripsAndAgreesWithTheRailMap) {
  for (const fabric::Fabric& f :
       {gb300(), expandProfile("dgx-h100", 2, -1, -1), expandProfile("gb200-nvl72", 1, -1, -1),
        expandProfile("gb300-nvl72", 1, 4, 2), expandProfile("dgx-b200", 1, -1, -1)}) {
    fabric::Diagnostics diagnostics;
    checkNcclXmlLimits(f, diagnostics);
    EXPECT_TRUE(diagnostics.all().empty()) << f.hosts.front().profile << ": " << diagnostics.all().front().str();
    const formats::RailMap map = formats::parseRailMap(fabric::writeRailMap(f), "map.json");
    for (const fabric::Host& host : f.hosts) {
      SCOPED_TRACE(host.name);
      const fabric::Host back = readNcclXml(writeNcclXml(host), host.name + ".xml");
      ASSERT_EQ(back.gpus.size(), host.gpus.size());
      ASSERT_EQ(back.nics.size(), host.nics.size());
      for (size_t i = 0; i < host.gpus.size(); ++i) {
        EXPECT_EQ(back.gpus[i].busId, host.gpus[i].busId);
        EXPECT_EQ(back.gpus[i].nvlinks, host.gpus[i].nvlinks);
        EXPECT_EQ(back.gpus[i].c2cLinks, host.gpus[i].c2cLinks);
      }
      for (size_t i = 0; i < host.nics.size(); ++i) {
        const fabric::Nic &a = host.nics[i], &b = back.nics[i];
        EXPECT_EQ(std::tie(a.hca, a.busId, a.port, a.speedMbps, a.guid, a.rail, a.plane, a.numa, a.nearestGpu),
                  std::tie(b.hca, b.busId, b.port, b.speedMbps, b.guid, b.rail, b.plane, b.numa, b.nearestGpu));
      }
      fabric::Diagnostics agreement;
      checkTopoAgainstRailMap(back, map, "", fabric::SourceLoc{host.name + ".xml", 0, 0}, agreement);
      EXPECT_TRUE(agreement.all().empty());
    }
  }
}

}  // namespace
}  // namespace railtune::topo
