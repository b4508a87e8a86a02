// Rail map: writer golden files, the strict reader on the writer's output and on broken input, and the
// topology-file-versus-rail-map check.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fabric/expand.h"
#include "fabric/rail_map_write.h"
#include "formats/rail_map.h"
#include "tests/topo_gen/nccl_xml_fixtures.h"
#include "tests/topo_gen/nccl_xml_golden.h"
#include "topo_gen/nccl_xml.h"
#include "topo_gen/nccl_xml_check.h"

namespace railtune::fabric {
namespace {

using namespace formats;  // NOLINT: the names and rail map checks under test

using topo::testing::expectGolden;
using topo::testing::readText;
using topo::testing::sourcePath;

const char* kGb300Golden = "tests/data/golden/rail_map/gb300-2racks.json";
const char* kDgxGolden = "docs/formats/rail-map.example.json";  // the documented example is a golden file
const char* kDgxRoceGolden = "tests/data/golden/rail_map/dgx-h100-roce.json";

TEST(RailMapWriter, Gb300TwoRacksMatchesGolden) {
  expectGolden(kGb300Golden, writeRailMap(topo::testing::gb300TwoRacks()));
}

TEST(RailMapWriter, DgxH100MatchesTheDocumentedExample) {
  expectGolden(kDgxGolden, writeRailMap(topo::testing::dgxH100()));
}

// A RoCE copy of the DGX example whose description states the QP policy's facts: the map gains `network`.
Fabric dgxH100Roce() {
  Fabric f = topo::testing::dgxH100();
  f.network.linkLayer = "Ethernet";
  f.network.adaptiveRouting = true;
  f.network.trafficClass = 106;
  f.network.serviceLevel = 3;
  for (Nic& nic : f.hosts.front().nics) {
    nic.linkLayer = "Ethernet";
    nic.netdev = netdevForLinkLayer(nic.netdev, "Ethernet");  // an Ethernet port's name, as expand gives it
    nic.gidIndex = 3;
  }
  return f;
}

TEST(RailMapWriter, DgxH100RoceWithNetworkFactsMatchesGolden) {
  expectGolden(kDgxRoceGolden, writeRailMap(dgxH100Roce()));
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

// "m.json:1:23: reason" -> "m.json: reason": the one-line documents below have positions of no interest.
std::string withoutPosition(const std::string& message) {
  const size_t colon = message.find(':', std::string("m.json").size());
  const size_t end = message.find(": ", std::string("m.json").size());
  if (message.rfind("m.json:", 0) != 0 || colon == std::string::npos || end == std::string::npos) return message;
  return "m.json" + message.substr(end);
}

std::string rejection(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(readText(sourcePath(kDgxGolden)));
  edit(doc);
  try {
    parseRailMap(doc.dump(), "m.json");
  } catch (const RailMapError& e) {
    return withoutPosition(e.problems().front());
  }
  return "accepted";
}

std::vector<std::string> problemsOf(const std::string& text) {
  try {
    parseRailMap(text, "m.json");
  } catch (const RailMapError& e) {
    return e.problems();
  }
  return {};
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

// A small map, one value per line, so that each problem's line is easy to read off.
const char* kSmallMap = R"({
  "schema": "railtune.rail_map.v1",
  "cluster": "c",
  "rails": 4,
  "planes": 1,
  "hosts": [
    {
      "name": "h1",
      "domain": "d1",
      "gpus": [
        {
          "index": 0,
          "bus_id": "0000:1b:00.0",
          "nics": [
            {"hca": "mlx5_0", "netdev": "ib0", "bus_id": "0000:18:00.0", "port": 1, "rail": 0, "plane": -1}
          ]
        }
      ]
    }
  ]
}
)";

std::string edited(const std::string& from, const std::string& to) {
  std::string text = kSmallMap;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(RailMapValidation, AcceptsTheSmallMap) {
  EXPECT_EQ(problemsOf(kSmallMap), std::vector<std::string>{});
  EXPECT_EQ(parseRailMap(kSmallMap, "m.json").hosts.at(0).gpus.at(0).nics.at(0).hca, "mlx5_0");
}

TEST(RailMapValidation, RejectsZeroRailsAtItsPosition) {
  EXPECT_EQ(problemsOf(edited("\"rails\": 4", "\"rails\": 0")),
            std::vector<std::string>{"m.json:4:12: top level: field 'rails' must be an integer >= 1"});
}

TEST(RailMapValidation, RejectsARailOrPlaneOutOfRange) {
  EXPECT_EQ(
      problemsOf(edited("\"rail\": 0", "\"rail\": 99")),
      std::vector<std::string>{"m.json:15:93: host h1 gpus[0] nics[0]: field 'rail' is 99 but the map has 4 rails "
                               "(0 to 3)"});
  EXPECT_EQ(problemsOf(edited("\"plane\": -1", "\"plane\": 1")),
            std::vector<std::string>{"m.json:15:105: host h1 gpus[0] nics[0]: field 'plane' is 1 but the map has 1 "
                                     "plane(s) (-1, or 0 to 0)"});
}

TEST(RailMapValidation, RejectsMalformedBusIds) {
  EXPECT_EQ(problemsOf(edited("0000:1b:00.0", "zzzz:zz:zz.z")),
            std::vector<std::string>{"m.json:13:21: host h1 gpus[0]: field 'bus_id' 'zzzz:zz:zz.z' is not a PCI bus id "
                                     "(dddd:bb:dd.f, lowercase hex)"});
  EXPECT_EQ(problemsOf(edited("0000:18:00.0", "0000:18:00.8")).size(), 1u);  // function 0-7
  EXPECT_EQ(problemsOf(edited("0000:18:00.0", "0000:18:20.0")).size(), 1u);  // device 00-1f
  EXPECT_EQ(problemsOf(edited("0000:18:00.0", "0000:18:00.0 ")).size(), 1u);
  EXPECT_EQ(problemsOf(edited("0000:18:00.0", "")), std::vector<std::string>{});  // a NIC's may be unknown
}

TEST(RailMapValidation, RejectsHcaNamesLongerThanNcclTakes) {
  const std::vector<std::string> found = problemsOf(edited("mlx5_0", std::string(600, 'm')));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rfind("m.json:15:21: host h1 gpus[0] nics[0]: field 'hca' 'mmmm", 0), 0u) << found[0];
  EXPECT_NE(found[0].find("... (600 bytes)' is longer than NCCL's 63 characters"), std::string::npos) << found[0];
  EXPECT_EQ(problemsOf(edited("mlx5_0", std::string(63, 'm'))), std::vector<std::string>{});
  EXPECT_EQ(problemsOf(edited("mlx5_0", std::string(64, 'm'))).size(), 1u);
  EXPECT_EQ(problemsOf(edited("mlx5_0", "mlx5_0:1")).size(), 1u);
}

TEST(RailMapValidation, RejectsHostAndDomainNamesThatAreNotDnsNames) {
  EXPECT_EQ(problemsOf(edited("\"h1\"", "\"../../x\"")),
            std::vector<std::string>{"m.json:8:15: hosts[0]: field 'name' '../../x' has an empty part between dots"});
  EXPECT_EQ(problemsOf(edited("\"d1\"", "\"Rack/1\"")).size(), 1u);
  EXPECT_EQ(problemsOf(edited("\"h1\"", "\"H1\"")).size(), 1u);
}

TEST(RailMapValidation, RejectsNulInsideAnyString) {
  EXPECT_EQ(problemsOf(edited("\"h1\"", "\"h1\\u0000x\"")),
            std::vector<std::string>{"m.json:8:15: hosts[0]: field 'name' contains a NUL character: 'h1\\x00x'"});
  EXPECT_EQ(problemsOf(edited("\"cluster\": \"c\"", "\"cluster\": \"c\\u0000\"")),
            std::vector<std::string>{"m.json:3:14: top level: field 'cluster' contains a NUL character: 'c\\x00'"});
  EXPECT_EQ(problemsOf(edited("\"ib0\"", "\"ib\\u00000\"")).size(), 2u);  // NUL, and not an interface name
}

TEST(RailMapValidation, RejectsADuplicatedKeyAtItsPosition) {
  EXPECT_EQ(problemsOf(edited("\"rails\": 4,", "\"rails\": 4, \"rails\": 2,")),
            std::vector<std::string>{"m.json:4:15: duplicate key \"rails\""});
  EXPECT_EQ(problemsOf(edited("\"port\": 1,", "\"port\": 1, \"port\": 2,")),
            std::vector<std::string>{"m.json:15:85: duplicate key \"port\""});
}

TEST(RailMapValidation, ReportsEveryProblemInOneRun) {
  std::string text = edited("\"rail\": 0", "\"rail\": 9");
  text.replace(text.find("0000:1b:00.0"), 12, "zzzz:zz:zz.z");
  text.replace(text.find("\"domain\""), 8, "\"extra\": 1, \"domain\"");
  const std::vector<std::string> found = problemsOf(text);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], "m.json:9:7: hosts[0]: unknown field 'extra'");
  EXPECT_NE(found[1].find("field 'bus_id' 'zzzz:zz:zz.z'"), std::string::npos) << found[1];
  EXPECT_NE(found[2].find("field 'rail' is 9"), std::string::npos) << found[2];
  try {
    parseRailMap(text, "m.json");
  } catch (const RailMapError& e) {
    EXPECT_EQ(std::string(e.what()), found[0] + " (and 2 more problems)");
  }
}

// The optional `network` object: the QP policy's facts (docs/qp-policy.md).
TEST(RailMapNetworkFacts, AbsentWhenTheFabricStatesNoneAndUnknownWhenRead) {
  const std::string text = writeRailMap(topo::testing::dgxH100());
  EXPECT_EQ(text.find("\"network\""), std::string::npos);
  const RailMap map = parseRailMap(text, "m.json");
  EXPECT_FALSE(map.network.linkLayer.has_value());
  EXPECT_FALSE(map.network.adaptiveRouting.has_value());
  EXPECT_EQ(map.network.trafficClass, -1);
  EXPECT_EQ(map.network.serviceLevel, -1);
  EXPECT_EQ(map.network.gidIndex, -1);
}

TEST(RailMapNetworkFacts, RoundTripThroughTheWriter) {
  Fabric f = dgxH100Roce();
  const std::string text = writeRailMap(f);
  EXPECT_NE(text.find("  \"planes\": 1,\n  \"network\": {\n    \"link_layer\": \"Ethernet\",\n"
                      "    \"adaptive_routing\": true,\n    \"traffic_class\": 106,\n    \"service_level\": 3,\n"
                      "    \"gid_index\": 3\n  },\n  \"hosts\": ["),
            std::string::npos)
      << text.substr(0, 400);
  const RailMapNetwork net = parseRailMap(text, "m.json").network;
  EXPECT_EQ(net.linkLayer, qp::LinkLayer::Ethernet);
  EXPECT_EQ(net.adaptiveRouting, true);
  EXPECT_EQ(net.trafficClass, 106);
  EXPECT_EQ(net.serviceLevel, 3);
  EXPECT_EQ(net.gidIndex, 3);

  // Rail NICs that disagree state no GID index; a stated `false` is written as such.
  f.hosts.front().nics[1].gidIndex = 4;
  f.network.adaptiveRouting = false;
  const RailMapNetwork mixed = parseRailMap(writeRailMap(f), "m.json").network;
  EXPECT_EQ(mixed.gidIndex, -1);
  EXPECT_EQ(mixed.adaptiveRouting, false);
  EXPECT_EQ(mixed.linkLayer, qp::LinkLayer::Ethernet);

  // InfiniBand stating only adaptive routing: the link layer comes along.
  Fabric ib = topo::testing::dgxH100();
  ib.network.adaptiveRouting = false;
  const RailMapNetwork ibNet = parseRailMap(writeRailMap(ib), "m.json").network;
  EXPECT_EQ(ibNet.linkLayer, qp::LinkLayer::InfiniBand);
  EXPECT_EQ(ibNet.adaptiveRouting, false);
  EXPECT_EQ(ibNet.gidIndex, -1);
}

TEST(RailMapNetworkFacts, ReaderIsStrictOnEachField) {
  using J = nlohmann::json;
  EXPECT_EQ(rejection([](J& d) { d["network"] = J::object(); }), "accepted");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"link_layer", "Ethernet"},
                              {"adaptive_routing", false},
                              {"traffic_class", 255},
                              {"service_level", 15},
                              {"gid_index", 0}};
            }),
            "accepted");
  EXPECT_EQ(rejection([](J& d) { d["network"] = J::array(); }), "m.json: network: expected an object");
  EXPECT_EQ(rejection([](J& d) { d["network"] = {{"mtu", 4096}}; }), "m.json: network: unknown field 'mtu'");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"link_layer", "RoCE"}};
            }),
            "m.json: network: field 'link_layer' must be \"InfiniBand\" or \"Ethernet\"");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"link_layer", 1}};
            }),
            "m.json: network: field 'link_layer' must be \"InfiniBand\" or \"Ethernet\"");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"adaptive_routing", "true"}};
            }),
            "m.json: network: field 'adaptive_routing' must be true or false");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"adaptive_routing", 1}};
            }),
            "m.json: network: field 'adaptive_routing' must be true or false");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"traffic_class", 256}};
            }),
            "m.json: network: field 'traffic_class' must be an integer from 0 to 255");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"traffic_class", -1}};
            }),
            "m.json: network: field 'traffic_class' must be an integer from 0 to 255");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"service_level", 16}};
            }),
            "m.json: network: field 'service_level' must be an integer from 0 to 15");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"service_level", 1.5}};
            }),
            "m.json: network: field 'service_level' must be an integer from 0 to 15");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"gid_index", 65536}};
            }),
            "m.json: network: field 'gid_index' must be an integer from 0 to 65535");
  EXPECT_EQ(rejection([](J& d) {
              d["network"] = {{"gid_index", "3"}};
            }),
            "m.json: network: field 'gid_index' must be an integer from 0 to 65535");
}

TEST(RailMapNetworkFacts, ProblemsNameTheirPositionAndAreReportedTogether) {
  const std::string text =
      edited("\"planes\": 1,", "\"planes\": 1,\n  \"network\": {\"service_level\": 16, \"link_layer\": \"ib\"},");
  EXPECT_EQ(problemsOf(text),
            (std::vector<std::string>{"m.json:6:50: network: field 'link_layer' must be \"InfiniBand\" or \"Ethernet\"",
                                      "m.json:6:32: network: field 'service_level' must be an integer from 0 to 15"}));
  EXPECT_EQ(problemsOf(edited("\"planes\": 1,", "\"planes\": 1, \"network\": {\"gid_index\": 3, \"gid_index\": 4},")),
            std::vector<std::string>{"m.json:5:44: duplicate key \"gid_index\""});
}

TEST(RailMapNetworkFacts, FabricShapeOfAHostAndOfTheMap) {
  Fabric f = topo::testing::dgxH100();
  f.network.adaptiveRouting = true;
  f.network.trafficClass = 106;
  for (Nic& nic : f.hosts.front().nics) {
    nic.linkLayer = "Ethernet";
    nic.gidIndex = 3;
  }
  f.hosts.front().nics[7].speedMbps = 200000;
  const RailMap map = parseRailMap(writeRailMap(f), "m.json");
  const qp::FabricShape shape = fabricShapeOf(map, &map.hosts.front());
  EXPECT_EQ(shape.linkLayer, qp::LinkLayer::Ethernet);
  EXPECT_EQ(shape.rails, 8);
  EXPECT_EQ(shape.planes, 1);
  EXPECT_EQ(shape.speedMbps, 200000);
  EXPECT_EQ(shape.adaptiveRouting, true);
  EXPECT_EQ(shape.trafficClass, 106);
  EXPECT_EQ(shape.serviceLevel, -1);
  EXPECT_EQ(shape.gidIndex, 3);

  // No host: the map's rails and planes; what the map does not state keeps the caller's value.
  qp::FabricShape seen;
  seen.linkLayer = qp::LinkLayer::Ethernet;
  seen.speedMbps = 400000;
  const RailMap plain = parseRailMap(writeRailMap(topo::testing::dgxH100()), "m.json");
  const qp::FabricShape unknown = fabricShapeOf(plain, nullptr, seen);
  EXPECT_EQ(unknown.linkLayer, qp::LinkLayer::Ethernet);
  EXPECT_EQ(unknown.rails, 8);
  EXPECT_EQ(unknown.planes, 1);
  EXPECT_EQ(unknown.speedMbps, 400000);
  EXPECT_FALSE(unknown.adaptiveRouting.has_value());
  EXPECT_EQ(unknown.gidIndex, -1);
  EXPECT_EQ(fabricShapeOf(map, nullptr, seen).adaptiveRouting, true);
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
  EXPECT_EQ(badMapFound.all()[0].str(), badMap + ":1:12: error: top level: field 'schema' must be a string");
}

}  // namespace
}  // namespace railtune::fabric
