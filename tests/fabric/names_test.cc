// Names (formats/names.h) and what the cluster description's reader and validation do with them and
// with keys: duplicated keys refused at their position, unknown and duplicated keys all collected for
// `railtune topo check`, host and domain names that are no DNS-1123 names reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "formats/names.h"
#include "tests/fabric/fabric_test_data.h"

namespace railtune::fabric {
namespace {

using namespace formats;  // NOLINT: the names and rail map checks under test

TEST(Names, DnsSubdomainNames) {
  EXPECT_EQ(dnsSubdomainProblem("rack00-tray17"), "");
  EXPECT_EQ(dnsSubdomainProblem("node-1.cluster.example"), "");
  EXPECT_EQ(dnsSubdomainProblem(std::string(63, 'a') + "." + std::string(63, 'b')), "");
  EXPECT_EQ(dnsSubdomainProblem("../../../escaped"), "has an empty part between dots");
  EXPECT_NE(dnsSubdomainProblem("a/b"), "");
  EXPECT_NE(dnsSubdomainProblem("Node1"), "");
  EXPECT_NE(dnsSubdomainProblem("-a"), "");
  EXPECT_NE(dnsSubdomainProblem("a."), "");
  EXPECT_NE(dnsSubdomainProblem(""), "");
  EXPECT_NE(dnsSubdomainProblem(std::string(64, 'a')), "");
  EXPECT_NE(dnsSubdomainProblem(std::string(254, 'a')), "");
  EXPECT_EQ(dnsSubdomainProblem(std::string("a\0b", 3)), "contains a NUL character");
}

TEST(Names, LabelValuesAllowUppercaseForRacks) {
  EXPECT_EQ(labelValueProblem("A01"), "");
  EXPECT_EQ(labelValueProblem("row_3.A-01"), "");
  EXPECT_NE(labelValueProblem("../a"), "");
  EXPECT_NE(labelValueProblem("a/b"), "");
  EXPECT_NE(labelValueProblem(std::string(64, 'a')), "");
  EXPECT_NE(labelValueProblem("_a"), "");
}

TEST(Names, PrintableNameShowsNulAndCutsLongNames) {
  EXPECT_EQ(printableName(std::string("h1\0x", 4)), "h1\\x00x");
  EXPECT_EQ(printableName(std::string(600, 'm')), std::string(64, 'm') + "... (600 bytes)");
}

TEST(Names, JoinUnderKeepsEveryFileInsideItsFolder) {
  const std::filesystem::path dir = "out/topology";
  EXPECT_EQ(joinUnder(dir, "nccl-topo/rack00-tray00.xml"), dir / "nccl-topo" / "rack00-tray00.xml");
  const std::vector<std::string> bad = {
      "nccl-topo/../../../escaped.xml", "../x", "/etc/passwd", "", "a/./b", "a/", std::string("a\0b", 3)};
  for (const std::string& name : bad) EXPECT_THROW(joinUnder(dir, name), std::invalid_argument) << printableName(name);
  try {
    joinUnder(dir, "env/../../../escaped.sh");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "refusing to write 'env/../../../escaped.sh': it would not stay under out/topology");
  }
}

TEST(Names, ValidateReportsHostAndDomainNamesButTakesUppercaseRacks) {
  const Fabric f = loadFabricFile(kFabricData + "/bad_names.yaml");
  Diagnostics d;
  validate(f, d);
  std::vector<std::string> found;
  for (const Diagnostic& diagnostic : d.all()) found.push_back(diagnostic.str());
  const std::vector<std::string> want = {
      kFabricData +
          "/bad_names.yaml:5:5: error: domain name 'Nvl0' may hold only lowercase letters, digits, '-' and '.' "
          "(a DNS-1123 name, as Kubernetes nodes have)",
      kFabricData + "/bad_names.yaml:8:9: error: host name '../../../escaped' has an empty part between dots"};
  EXPECT_EQ(found, want);
}

const char* kTwoHosts = R"(cluster: lab
domains:
  - name: nvl0
    hosts:
      - name: node0
        name: node1
        cpus: [{numa: 0, arch: x86_64, vendor: GenuineIntel}]
network:
  rails: 1
)";

TEST(YamlKeys, ADuplicatedKeyIsRefusedAtItsPosition) {
  try {
    readFabricYaml(kTwoHosts, "t.yaml");
    FAIL() << "accepted";
  } catch (const FabricError& e) {
    EXPECT_EQ(e.diagnostic().str(), "t.yaml:6:9: error: host: duplicate key 'name' (first at 5:9)");
  }
}

TEST(YamlKeys, TopoCheckModeCollectsEveryUnknownAndDuplicatedKey) {
  Diagnostics keys;
  const Fabric f = loadFabricFile(kFabricData + "/unknown_keys.yaml", keys);
  std::vector<std::string> found;
  for (const Diagnostic& diagnostic : keys.all()) found.push_back(diagnostic.str());
  const std::string file = kFabricData + "/unknown_keys.yaml";
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].rfind(file + ":8:9: error: host: unknown key 'colour'", 0), 0u) << found[0];
  EXPECT_EQ(found[1], file + ":13:78: error: nic: duplicate key 'rail' (first at 13:69)");
  EXPECT_EQ(found[2].rfind(file + ":15:3: error: network: unknown key 'rials'", 0), 0u) << found[2];
  // The reading went on: the first of two keys counts, the model is there to validate.
  ASSERT_EQ(f.hosts.size(), 1u);
  EXPECT_EQ(f.hosts[0].nics.at(0).rail, 0);
  // Without a collector the first one throws, as before.
  EXPECT_THROW(loadFabricFile(kFabricData + "/unknown_keys.yaml"), FabricError);
}

}  // namespace
}  // namespace railtune::fabric
