// Rail map: writer golden files, the strict reader on the writer's output and on broken input, and the
// topology-file-versus-rail-map check.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fabric/rail_map.h"
#include "fabric/rail_map_write.h"
#include "tests/topo_gen/nccl_xml_fixtures.h"
#include "tests/topo_gen/nccl_xml_golden.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::fabric {
namespace {

using topo::testing::expectGolden;
using topo::testing::readText;
using topo::testing::sourcePath;

const char* kGb300Golden = "tests/data/golden/rail_map/gb300-2racks.json";
const char* kDgxGolden = "docs/formats/rail-map.example.json";  // the documented example is a golden file

TEST(RailMapWriter, Gb300TwoRacksMatchesGolden) {
  expectGolden(kGb300Golden, writeRailMap(topo::testing::gb300TwoRacks()));
}

TEST(RailMapWriter, DgxH100MatchesTheDocumentedExample) {
  expectGolden(kDgxGolden, writeRailMap(topo::testing::dgxH100()));
}

TEST(RailMapWriter, ListsAGpusNicsInRailThenPlaneOrder) {
  Fabric f = topo::testing::dgxH100();
  f.network.planes = 2;
  std::vector<Nic>& nics = f.hosts.front().nics;
  nics[1].nearestGpu = 0;
  nics[1].rail = 0;
  nics[1].plane = 1;
  nics[0].plane = 0;
  std::swap(nics[0], nics[1]);
  const RailMap map = parseRailMap(writeRailMap(f), "m.json");
  const RailMapGpu& gpu0 = map.hosts.at(0).gpus.at(0);
  ASSERT_EQ(gpu0.nics.size(), 2u);
  EXPECT_EQ(gpu0.nics[0].hca, "mlx5_0");
  EXPECT_EQ(gpu0.nics[1].hca, "mlx5_1");
  EXPECT_TRUE(map.hosts.at(0).gpus.at(1).nics.empty());
}

TEST(RailMapWriter, RefusesNicsItCannotPlace) {
  Fabric f = topo::testing::dgxH100();
  f.hosts.front().nics[2].rail = -1;
  EXPECT_THROW(writeRailMap(f), std::invalid_argument);
  f = topo::testing::dgxH100();
  f.hosts.front().nics[2].nearestGpu = -1;
  try {
    writeRailMap(f);
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "host dgx-h100-01: NIC mlx5_2 has no nearest GPU, so the rail map cannot give it to one");
  }
}

TEST(RailMapReader, ReadsTheWritersGoldenFile) {
  const RailMap map = readRailMapFile(sourcePath(kGb300Golden));
  EXPECT_EQ(map.cluster, "gb300-demo");
  EXPECT_EQ(map.rails, 4);
  ASSERT_EQ(map.hosts.size(), 36u);
  const RailMapHost* h = map.findHost("rack01-tray17");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->domain, "rack01");
  ASSERT_EQ(h->gpus.size(), 4u);
  EXPECT_EQ(h->gpus[2].busId, "0018:01:00.0");
  ASSERT_EQ(h->gpus[2].nics.size(), 1u);
  const RailMapNic& n = h->gpus[2].nics[0];
  EXPECT_EQ(n.hca, "mlx5_2");
  EXPECT_EQ(n.netdev, "ibp16s0");
  EXPECT_EQ(n.busId, "0010:03:00.0");
  EXPECT_EQ(n.port, 1);
  EXPECT_EQ(n.rail, 2);
  EXPECT_EQ(n.plane, -1);
  EXPECT_EQ(map.findHost("rack02-tray00"), nullptr);
}

std::string rejection(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(readText(sourcePath(kDgxGolden)));
  edit(doc);
  try {
    parseRailMap(doc.dump(), "m.json");
  } catch (const RailMapError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(RailMapReader, IsStrict) {
  using J = nlohmann::json;
  EXPECT_EQ(rejection([](J&) {}), "accepted");
  EXPECT_EQ(rejection([](J& d) { d["schema"] = "railtune.rail_map.v2"; }),
            "m.json: schema: 'railtune.rail_map.v2' is not railtune.rail_map.v1");
  EXPECT_EQ(rejection([](J& d) { d.erase("cluster"); }), "m.json: top level: missing field 'cluster'");
  EXPECT_EQ(rejection([](J& d) { d["extra"] = 1; }), "m.json: top level: unknown field 'extra'");
  EXPECT_EQ(rejection([](J& d) { d["hosts"][0]["gpus"][1]["nics"][0].erase("rail"); }),
            "m.json: host dgx-h100-01 gpus[1] nics[0]: missing field 'rail'");
  EXPECT_EQ(rejection([](J& d) { d["hosts"][0]["gpus"][1]["nics"][0]["port"] = "1"; }),
            "m.json: host dgx-h100-01 gpus[1] nics[0]: field 'port' must be an integer >= 1");
  EXPECT_EQ(rejection([](J& d) { d["hosts"][0]["gpus"][1]["index"] = 0; }),
            "m.json: host dgx-h100-01: duplicate GPU index 0");
  EXPECT_EQ(rejection([](J& d) { d["hosts"][0]["gpus"][1]["nics"][0]["hca"] = "mlx5_0"; }),
            "m.json: host dgx-h100-01: NIC mlx5_0 port 1 is listed twice");
  EXPECT_EQ(rejection([](J& d) { d["hosts"].push_back(d["hosts"][0]); }), "m.json: host dgx-h100-01: listed twice");
  EXPECT_EQ(rejection([](J& d) { d["hosts"][0].erase("name"); }), "m.json: hosts[0]: missing field 'name'");
  EXPECT_NE(rejection([](J& d) { d = J::array(); }).find("top level: expected an object"), std::string::npos);
  EXPECT_THROW(parseRailMap("{", "m.json"), RailMapError);
  // Found by fuzz_rail_map: a number nlohmann cannot hold is its out_of_range, not a parse_error.
  EXPECT_THROW(parseRailMap("{\"rails\": 1e11111111}", "m.json"), RailMapError);
  EXPECT_THROW(readRailMapFile(sourcePath("docs/formats/no-such.json")), RailMapError);
}

TEST(TopoAgainstRailMap, AgreesWithItsOwnOutputAndReportsEachDisagreement) {
  const Fabric f = topo::testing::gb300TwoRacks();
  const RailMap map = parseRailMap(writeRailMap(f), "m.json");
  const Host& host = f.hosts.at(20);
  Host topoHost = topo::readNcclXml(topo::writeNcclXml(host), "t.xml");
  const SourceLoc file{"t.xml", 0, 0};
  Diagnostics clean;
  topo::checkTopoAgainstRailMap(topoHost, map, "", file, clean);
  EXPECT_TRUE(clean.all().empty());
  topoHost.nics[1].rail = 3;
  topoHost.nics[2].plane = 1;
  topoHost.nics[3].hca = "mlx5_9";
  Diagnostics diagnostics;
  topo::checkTopoAgainstRailMap(topoHost, map, "", file, diagnostics);
  std::vector<std::string> found;
  for (const Diagnostic& d : diagnostics.all()) found.push_back(d.message);
  const std::vector<std::string> want = {
      "host rack01-tray02: NIC mlx5_1 port 1: topology file says rail 3, rail map says rail 1",
      "host rack01-tray02: NIC mlx5_2 port 1: topology file says plane 1, rail map says plane -1",
      "host rack01-tray02: NIC mlx5_9 port 1 is in the topology file but not in the rail map",
      "host rack01-tray02: NIC mlx5_3 port 1 is in the rail map but not in the topology file"};
  EXPECT_EQ(found, want);
  Diagnostics missing;
  topo::checkTopoAgainstRailMap(topoHost, map, "nowhere", file, missing);
  ASSERT_EQ(missing.all().size(), 1u);
  EXPECT_EQ(missing.all()[0].str(), "t.xml: error: host nowhere: not in the rail map");
}

std::string writeTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

TEST(TopoAgainstRailMap, ChecksFilesAndReportsTheirParseErrorsAtTheirPosition) {
  const Fabric f = topo::testing::gb300TwoRacks();
  const std::string mapPath = writeTemp("railtune-map.json", writeRailMap(f));
  std::string xml = topo::writeNcclXml(f.hosts.at(3));
  const std::string goodPath = writeTemp("railtune-good.xml", xml);
  Diagnostics clean;
  topo::checkTopoFileAgainstRailMap(goodPath, mapPath, "", clean);
  EXPECT_TRUE(clean.all().empty());

  const size_t rail = xml.find("rail=\"2\"");
  ASSERT_NE(rail, std::string::npos);
  xml.replace(rail, 8, "rail=\"0\"");
  const std::string edited = writeTemp("railtune-edited.xml", xml);
  Diagnostics found;
  topo::checkTopoFileAgainstRailMap(edited, mapPath, "", found);
  ASSERT_EQ(found.all().size(), 1u);
  EXPECT_EQ(found.all()[0].str(), edited +
                                      ": error: host rack00-tray03: NIC mlx5_2 port 1: topology file says rail 0, "
                                      "rail map says rail 2");

  const std::string tabbed = writeTemp("railtune-tab.xml", "<system version=\"1\">\n\t<cpu/>\n</system>\n");
  Diagnostics bad;
  topo::checkTopoFileAgainstRailMap(tabbed, mapPath, "", bad);
  ASSERT_EQ(bad.all().size(), 1u);
  EXPECT_EQ(bad.all()[0].str(), tabbed +
                                    ":2:1: error: tab character: NCCL's parser accepts only spaces and newlines "
                                    "between tokens");

  const std::string badMap = writeTemp("railtune-bad.json", "{\"schema\": 1}");
  Diagnostics badMapFound;
  topo::checkTopoFileAgainstRailMap(goodPath, badMap, "", badMapFound);
  ASSERT_EQ(badMapFound.all().size(), 1u);
  EXPECT_EQ(badMapFound.all()[0].str(), badMap + ": error: top level: field 'schema' must be a string");
}

}  // namespace
}  // namespace railtune::fabric
