// The cluster description reader (fabric/yaml_reader.h) and the embedded default cluster.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

#include "fabric/default_cluster.h"
#include "fabric/validate.h"
#include "fabric/yaml_reader.h"
#include "tests/fabric/fabric_test_data.h"

namespace railtune::fabric {
namespace {

const std::string kExample = RAILTUNE_FABRIC_EXAMPLE;  // docs/formats/fabric.example.yaml

// The error reading `text` raises, as "line:column: message".
std::string errorOf(const std::string& text) {
  try {
    readFabricYaml(text, "t.yaml");
  } catch (const FabricError& e) {
    const SourceLoc& loc = e.diagnostic().loc;
    EXPECT_EQ(loc.file, "t.yaml");
    return std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": " + e.diagnostic().message;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

TEST(DefaultCluster, TwoGb300RacksFourRailsInFewLines) {
  const std::string_view yaml = defaultClusterYaml();
  size_t lines = 0;
  for (char c : yaml) lines += c == '\n';
  EXPECT_LE(lines, 15u);
  const Fabric f = loadDefaultCluster();
  EXPECT_EQ(f.name, "railtune-demo");
  EXPECT_EQ(f.domains.size(), 2u);
  EXPECT_EQ(f.hosts.size(), 36u);
  EXPECT_EQ(f.network.rails, 4);
  EXPECT_EQ(f.hosts[0].gpus[0].sm, 103);
  Diagnostics d;
  validate(f, d);
  EXPECT_TRUE(d.all().empty());
  EXPECT_EQ(loadFabricOrDefault("").hosts.size(), 36u);
}

TEST(Compact, EveryKey) {
  const Fabric f = readFabricYaml(R"(cluster: c1
profile: gb300-nvl72
domains: 3
trays: 2
rails: 2
planes: 2
linkLayer: Ethernet
domainNames: "nvl{d}"
hostNames: "{domain}-n{t}"
railGroups:
  - {name: a, domains: [nvl0, nvl1], spine: s1}
  - {name: b, domains: [nvl2], spine: s2}
leafSpeedGbps: 400
overrides:
  domains:
    nvl1: {rack: B07, cliqueId: "abc.3"}
  hosts:
    nvl2-n1:
      gpus: [{index: 3, busId: "0019:02:00.0", nvlinks: 17}]
      nics: [{rail: 1, plane: 0, hca: mlx5_9, guid: "0xabc", netdev: enp1}]
)",
                                  "c1.yaml");
  EXPECT_EQ(f.hosts.size(), 6u);
  EXPECT_EQ(f.hosts[5].name, "nvl2-n1");
  EXPECT_EQ(f.hosts[5].nics.size(), 4u);
  EXPECT_EQ(f.hosts[5].nics[2].hca, "mlx5_9");
  EXPECT_EQ(f.hosts[5].nics[2].guid, 0xabcu);
  EXPECT_EQ(f.hosts[5].nics[2].linkLayer, "Ethernet");
  EXPECT_EQ(f.hosts[5].nics[2].loc.str(), "c1.yaml:20:14");
  EXPECT_EQ(f.hosts[5].gpus[3].busId, "0019:02:00.0");
  EXPECT_EQ(f.hosts[5].gpus[3].nvlinks, 17);
  EXPECT_EQ(f.findDomain("nvl1")->rack, "B07");
  EXPECT_EQ(f.findDomain("nvl1")->cliqueId, "abc.3");
  EXPECT_EQ(f.findDomain("nvl2")->railGroup, "b");
  EXPECT_EQ(f.leafFor("b", 1, 1)->speedGbps, 400);
  EXPECT_EQ(f.network.switches.back().name, "core0");
}

TEST(Compact, SwitchPolicyKeys) {
  const Fabric f = readFabricYaml(
      "profile: dgx-h100\nlinkLayer: Ethernet\nadaptiveRouting: true\n"
      "trafficClass: 106\nserviceLevel: 3\n",
      "c.yaml");
  EXPECT_EQ(f.network.adaptiveRouting, std::optional<bool>(true));
  EXPECT_EQ(f.network.trafficClass, 106);
  EXPECT_EQ(f.network.serviceLevel, 3);
  const Fabric unset = readFabricYaml("profile: dgx-h100\n", "c.yaml");
  EXPECT_FALSE(unset.network.adaptiveRouting.has_value());
  EXPECT_EQ(unset.network.trafficClass, -1);
  EXPECT_EQ(unset.network.serviceLevel, -1);
}

TEST(Full, SwitchPolicyKeysOfTheNetwork) {
  const Fabric f =
      readFabricYaml("domains: []\nnetwork: {rails: 0, adaptiveRouting: false, serviceLevel: 0}\n", "f.yaml");
  EXPECT_EQ(f.network.adaptiveRouting, std::optional<bool>(false));
  EXPECT_EQ(f.network.serviceLevel, 0);
  EXPECT_EQ(f.network.trafficClass, -1);
}

TEST(Full, SmallClusterFromTheTestData) {
  const Fabric f = loadFabricFile(kFabricData + "/full_small.yaml");
  ASSERT_EQ(f.hosts.size(), 2u);
  EXPECT_EQ(f.domains[0].cliqueId, "0x1a2b.7");
  EXPECT_EQ(f.domains[0].railGroup, "rg0");
  EXPECT_EQ(f.hosts[0].gpus[0].busId, "0000:1b:00.0");
  EXPECT_EQ(f.hosts[0].gpus[1].busId, "0000:43:00.0");
  EXPECT_EQ(f.hosts[0].nics[0].guid, 0x946dae0300a1b2c3u);
  EXPECT_EQ(f.hosts[0].cpus[0].arch, CpuArch::X86_64);
  EXPECT_EQ(f.hosts[1].tray, 1);
  EXPECT_EQ(f.network.switches.size(), 3u);
  EXPECT_EQ(f.network.switches[2].tier, SwitchTier::Spine);
  EXPECT_EQ(f.hosts[1].nics[1].loc.line, 24);
  Diagnostics d;
  validate(f, d);
  EXPECT_TRUE(d.all().empty());
}

TEST(Full, DocumentedExampleReadsAndValidates) {
  const Fabric f = loadFabricFile(kExample);
  EXPECT_FALSE(f.hosts.empty());
  Diagnostics d;
  validate(f, d);
  EXPECT_TRUE(d.all().empty()) << d.all()[0].str();
}

TEST(Errors, NameTheKeyAndItsPosition) {
  EXPECT_EQ(errorOf("profile: gb300-nvl72\nrials: 4\n").substr(0, 24), "2:1: cluster: unknown ke");
  EXPECT_EQ(errorOf("rails: [1]\n"), "1:8: cluster.rails: expected an integer from 1 to 1024, got a list");
  EXPECT_EQ(errorOf("domains: -2\n"), "1:10: cluster.domains: expected an integer from 1 to 1048576, got '-2'");
  EXPECT_EQ(errorOf("domains: 2\nrails: 9\n"),
            "2:8: rails: 9 is not between 1 and the 4 NICs per host of profile gb300-nvl72");
  EXPECT_EQ(errorOf("planes: 3\n"), "1:9: planes: profile gb300-nvl72 NICs cannot expose 3 planes");
  EXPECT_EQ(errorOf("hostNames: \"{x}\"\n"), "1:12: hostNames: unknown placeholder {x} (known: {d}, {t}, {domain})");
  EXPECT_EQ(errorOf("- a\n- b\n"), "1:1: a cluster description is a YAML map (see docs/fabric.md)");
  EXPECT_EQ(errorOf("cluster: [\n").substr(0, 19), "2:1: not valid YAML");
  EXPECT_EQ(errorOf("domains:\n  - {name: d, hosts: [{name: h, gpus: [{index: 0}]}]}\n"),
            "2:40: gpu: missing key 'busId'");
  EXPECT_EQ(errorOf("domains:\n  - {name: d, hosts: [{name: h, nics: [{hca: m, guid: xyz}]}]}\n"),
            "2:55: nic.guid: expected a hexadecimal GUID (0x + up to 16 digits), got 'xyz'");
  EXPECT_EQ(errorOf("domains:\n  - {name: d, railGroup: nope}\n"), "2:5: domain d: unknown rail group 'nope'");
  EXPECT_EQ(errorOf("domains: 1\noverrides: {hosts: {rack00-tray00: {nics: [{rail: 7}]}}}\n"),
            "2:51: nic.rail: host rack00-tray00 has no NIC on rail 7 (give its plane)");
  EXPECT_EQ(errorOf("adaptiveRouting: yes\n"), "1:18: cluster.adaptiveRouting: expected true or false, got 'yes'");
  EXPECT_EQ(errorOf("trafficClass: 256\n"), "1:15: cluster.trafficClass: expected an integer from 0 to 255, got '256'");
  EXPECT_EQ(errorOf("domains: []\nnetwork: {serviceLevel: 16}\n"),
            "2:25: network.serviceLevel: expected an integer from 0 to 15, got '16'");
  EXPECT_EQ(errorOf("domains: 1\noverrides: {domains: {rack09: {}}}\n"),
            "2:23: overrides.domains: no domain named 'rack09'");
}

TEST(Errors, UnreadableFile) {
  try {
    loadFabricFile(kFabricData + "/does-not-exist.yaml");
    FAIL();
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("does-not-exist.yaml: error: cannot read"), std::string::npos);
  }
}

// A FIFO where the description belongs is refused at once (it would otherwise block the reader forever),
// and so is a folder: only a regular file is read (common/regular_file.h).
TEST(Errors, AFifoOrAFolderIsNoDescription) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("railtune-fabric-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "fabric.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [path, what] :
       {std::pair{fifo, std::string("is a FIFO")}, std::pair{dir.string(), std::string("is a directory")}}) {
    try {
      loadFabricFile(path);
      ADD_FAILURE() << path;
    } catch (const FabricError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": error: cannot read the cluster description: " + what),
                std::string::npos)
          << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace railtune::fabric
