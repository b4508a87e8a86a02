// The full-form writer (fabric/yaml_write.h): what it writes reads back as the same model, for every
// hardware profile, planes, RoCE and the discovery-only NIC fields.
#include <gtest/gtest.h>

#include <string>

#include "fabric/expand.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "fabric/yaml_write.h"

namespace railtune::fabric {
namespace {

Fabric expandProfile(const std::string& profile, int domains, int planes = -1) {
  ClusterSpec spec;
  spec.name = "rt-" + profile;
  spec.profile = profile;
  spec.domains = domains;
  spec.planes = planes;
  spec.racksPerRailGroup = 1;
  return expand(spec);
}

// Written, read back and written again: a fixpoint, and the read model is valid.
void expectRoundTrip(const Fabric& fabric) {
  const std::string first = writeFabricYaml(fabric);
  const Fabric back = readFabricYaml(first, "written.yaml");
  EXPECT_EQ(writeFabricYaml(back), first);
  ASSERT_EQ(back.hosts.size(), fabric.hosts.size());
  EXPECT_EQ(back.network.switches.size(), fabric.network.switches.size());
  Diagnostics d;
  validate(back, d);
  EXPECT_FALSE(d.hasErrors()) << first;
}

TEST(FabricYamlWriter, EveryProfileRoundTrips) {
  for (const char* profile : {"gb300-nvl72", "gb200-nvl72", "dgx-h100", "dgx-b200"}) {
    SCOPED_TRACE(profile);
    expectRoundTrip(expandProfile(profile, 2));
  }
}

TEST(FabricYamlWriter, PlanesAndSeveralSpinesRoundTrip) {
  expectRoundTrip(expandProfile("gb300-nvl72", 3, 2));
}

TEST(FabricYamlWriter, DiscoveryFieldsRoundTrip) {
  Fabric fabric = expandProfile("dgx-h100", 1);
  Nic& nic = fabric.hosts[0].nics[0];
  nic.linkLayer = "Ethernet";
  nic.guid = 0xb83fd20300a1b2c3ULL;
  nic.gidIndex = 3;
  nic.gid = "0000:0000:0000:0000:0000:ffff:0a01:0005";
  fabric.domains[0].cliqueId = "5d9c7e3a-0b1c-4d2e-8f90-a1b2c3d4e5f6.32766";
  fabric.hosts[0].cpus[0].affinity = "ffffffff,ffffffff";
  const Fabric back = readFabricYaml(writeFabricYaml(fabric, "discovered by a test\nsecond line"), "w.yaml");
  const Nic& read = back.hosts[0].nics[0];
  EXPECT_EQ(read.linkLayer, "Ethernet");
  EXPECT_EQ(read.guid, nic.guid);
  EXPECT_EQ(read.gidIndex, 3);
  EXPECT_EQ(read.gid, nic.gid);
  EXPECT_EQ(back.domains[0].cliqueId, fabric.domains[0].cliqueId);
  EXPECT_EQ(back.hosts[0].cpus[0].affinity, "ffffffff,ffffffff");
}

TEST(FabricYamlWriter, SwitchPolicyRoundTrips) {
  Fabric fabric = expandProfile("dgx-h100", 1);
  fabric.network.linkLayer = "Ethernet";
  for (Host& host : fabric.hosts)
    for (Nic& nic : host.nics) nic.linkLayer = "Ethernet";
  fabric.network.adaptiveRouting = false;
  fabric.network.trafficClass = 106;
  fabric.network.serviceLevel = 3;
  expectRoundTrip(fabric);
  const Fabric back = readFabricYaml(writeFabricYaml(fabric), "written.yaml");
  EXPECT_EQ(back.network.adaptiveRouting, std::optional<bool>(false));
  EXPECT_EQ(back.network.trafficClass, 106);
  EXPECT_EQ(back.network.serviceLevel, 3);
  // Unset, none of the three is written.
  const std::string plain = writeFabricYaml(expandProfile("dgx-h100", 1));
  EXPECT_EQ(plain.find("adaptiveRouting"), std::string::npos);
  EXPECT_EQ(plain.find("trafficClass"), std::string::npos);
}

TEST(FabricYamlWriter, HeaderIsComments) {
  const std::string text = writeFabricYaml(expandProfile("dgx-b200", 1), "line one\nline two");
  EXPECT_EQ(text.rfind("# line one\n# line two\ncluster: rt-dgx-b200\n", 0), 0u) << text.substr(0, 80);
}

TEST(FabricYamlWriter, ReaderRejectsMalformedGid) {
  Fabric fabric = expandProfile("dgx-h100", 1);
  fabric.hosts[0].nics[0].gid = "fe80::1";
  try {
    readFabricYaml(writeFabricYaml(fabric), "g.yaml");
    FAIL() << "accepted a malformed gid";
  } catch (const FabricError& e) {
    EXPECT_NE(e.diagnostic().message.find("expected a GID as sysfs prints it"), std::string::npos)
        << e.diagnostic().message;
  }
}

}  // namespace
}  // namespace railtune::fabric
