// NCCL topology XML writer: golden files, NCCL's parser rules as invariants, limit checks.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "tests/topo_gen/nccl_xml_fixtures.h"
#include "tests/topo_gen/nccl_xml_golden.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::topo {
namespace {

using testing::dgxH100;
using testing::expectGolden;
using testing::gb300TwoRacks;

TEST(NcclXmlWriter, Gb300FirstHostMatchesGolden) {
  expectGolden("tests/data/golden/nccl_xml/gb300-rack00-tray00.xml", writeNcclXml(gb300TwoRacks().hosts.front()));
}

TEST(NcclXmlWriter, Gb300SecondRackHostMatchesGolden) {
  const fabric::Fabric f = gb300TwoRacks();
  expectGolden("tests/data/golden/nccl_xml/gb300-rack01-tray05.xml", writeNcclXml(f.hosts.at(18 + 5)));
}

TEST(NcclXmlWriter, DgxH100MatchesGolden) {
  expectGolden("tests/data/golden/nccl_xml/dgx-h100.xml", writeNcclXml(dgxH100().hosts.front()));
}

void expectEveryElement(const XmlElement& e, const std::function<void(const XmlElement&)>& check) {
  check(e);
  for (const XmlElement& c : e.children) expectEveryElement(c, check);
}

TEST(NcclXmlWriter, KeepsNcclParserRules) {
  for (const fabric::Fabric& f : {gb300TwoRacks(), dgxH100()}) {
    for (const fabric::Host& host : f.hosts) {
      const XmlElement root = buildNcclXml(host);
      EXPECT_TRUE(ncclLimitViolations(root).empty()) << host.name;
      EXPECT_LE(root.countElements(), kNcclMaxElements);
      const std::string text = dumpNcclXml(root);
      EXPECT_EQ(text.rfind("<system version=\"1\"", 0), 0u) << "no prolog, version first";
      EXPECT_EQ(text.find('\t'), std::string::npos);
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        const size_t indent = line.find('<');
        EXPECT_EQ(indent % 2, 0u) << line;
        EXPECT_EQ(line.find_first_not_of(' '), indent) << line;
      }
      expectEveryElement(root, [&](const XmlElement& e) {
        EXPECT_LE(e.attrs.size(), static_cast<size_t>(kNcclMaxAttrs)) << e.name;
        std::map<std::string, std::string> a(e.attrs.begin(), e.attrs.end());
        if (e.name == "pci") {
          EXPECT_TRUE(isNcclBusId(a["busid"])) << a["busid"];
          for (const char* k : {"class", "link_speed", "link_width"}) EXPECT_TRUE(a.count(k)) << k;
        }
        if (e.name == "net") {
          for (const char* k : {"name", "dev", "speed", "port", "rail", "plane"}) EXPECT_TRUE(a.count(k)) << k;
        }
        if (e.name == "gpu") {
          EXPECT_TRUE(a.count("dev") && a.count("sm"));
          EXPECT_FALSE(a.count("rank")) << "NCCL sets rank for its own GPU; a file must not fix it";
        }
        if (e.name == "cpu") {
          for (const char* k : {"numaid", "arch", "affinity"}) EXPECT_TRUE(a.count(k)) << k;
        }
      });
    }
  }
}

TEST(NcclXmlWriter, Nvl72GpusLinkToTheNvSwitchAndGraceByC2c) {
  const std::string text = writeNcclXml(gb300TwoRacks().hosts.front());
  const std::regex nvlink(R"(<nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/>)");
  const std::regex c2c(R"(<c2c bw="44712" count="5"/>)");
  EXPECT_EQ(std::distance(std::sregex_iterator(text.begin(), text.end(), nvlink), std::sregex_iterator()), 4);
  EXPECT_EQ(std::distance(std::sregex_iterator(text.begin(), text.end(), c2c), std::sregex_iterator()), 4);
  EXPECT_NE(text.find(R"(<net name="mlx5_3" dev="3" speed="800000" port="1")"), std::string::npos);
}

TEST(NcclXmlWriter, PortsOfOnePciFunctionShareOneNic) {
  fabric::Host host = dgxH100().hosts.front();
  host.nics[1].busId = host.nics[0].busId;  // mlx5_1 becomes port 2 of mlx5_0's device
  host.nics[1].nearestGpu = 0;
  host.nics[1].port = 2;
  const XmlElement root = buildNcclXml(host);
  const XmlElement& bridge = root.children.at(0).children.at(0);
  ASSERT_EQ(bridge.children.size(), 2u);  // GPU pci + one NIC pci
  EXPECT_EQ(bridge.children[1].children.at(0).children.size(), 2u);
}

TEST(NcclXmlWriter, RejectsUnplaceableModels) {
  fabric::Host host = dgxH100().hosts.front();
  host.gpus[3].numa = 7;
  EXPECT_THROW(
      {
        try {
          buildNcclXml(host);
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "host dgx-h100-01: GPU 3 is on NUMA node 7, which has no CPU");
          throw;
        }
      },
      std::invalid_argument);
  host = dgxH100().hosts.front();
  host.nics[2].busId = "0000:4F:00.0";
  EXPECT_THROW(buildNcclXml(host), std::invalid_argument);
}

TEST(NcclXmlLimits, ReportsTooManyElementsAndAttributes) {
  fabric::Fabric f = dgxH100();
  fabric::Host& host = f.hosts.front();
  for (int i = 0; i < 80; ++i) {  // 80 extra NICs: 3 elements each push the file past 256
    fabric::Nic n = host.nics.front();
    n.hca = "mlx5_" + std::to_string(100 + i);
    n.busId = testing::hexDomainBusId(0x100 + i, 1);
    n.nearestGpu = -1;
    host.nics.push_back(n);
  }
  host.nics.front().hca = std::string(300, 'x');
  fabric::Diagnostics diagnostics;
  checkNcclXmlLimits(f, diagnostics);
  const std::vector<fabric::Diagnostic>& found = diagnostics.all();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(found[0].message.find("host dgx-h100-01: NCCL topology XML: 299 elements, NCCL loads at most 256"),
            std::string::npos)
      << found[0].message;
  EXPECT_NE(found[1].message.find("net name: longer than the 253 characters"), std::string::npos) << found[1].message;

  XmlElement wide{"cpu", {}, {}};
  for (int i = 0; i < 17; ++i) wide.attr("a" + std::to_string(i), "1");
  EXPECT_EQ(ncclLimitViolations(wide).at(0), "cpu: 17 attributes, NCCL keeps only 16");
}

TEST(NcclXmlLimits, ReportsUnbuildableHosts) {
  fabric::Fabric f = dgxH100();
  f.hosts.front().nics[0].nearestGpu = -1;
  f.hosts.front().nics[0].numa = 5;
  f.hosts.front().loc = fabric::SourceLoc{"cluster.yaml", 7, 5};
  fabric::Diagnostics diagnostics;
  checkNcclXmlLimits(f, diagnostics);
  ASSERT_EQ(diagnostics.all().size(), 1u);
  EXPECT_EQ(
      diagnostics.all()[0].str(),
      "cluster.yaml:7:5: error: NCCL topology XML: host dgx-h100-01: NIC mlx5_0 is on NUMA node 5, which has no CPU");
}

}  // namespace
}  // namespace railtune::topo
