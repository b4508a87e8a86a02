// The compiled-in graph data files: every profile parses, the demo's communicators have a shape, shapes
// do not overlap, and bad files fail with the file and JSON path named.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "emulator/nccl_model/graph_data.h"

namespace railtune::ncclmodel {
namespace {

TEST(NcclGraphData, EveryProfileHasTheDemoCommunicators) {
  const std::vector<std::string> profiles = builtinGraphProfiles();
  ASSERT_EQ(profiles.size(), 4u);
  for (const char* nvl72 : {"gb300-nvl72", "gb200-nvl72"}) {
    const GraphData& d = builtinGraphData(nvl72);
    EXPECT_EQ(d.shapeFor(CommShape{4, 1}).name, "one-tray");
    EXPECT_EQ(d.shapeFor(CommShape{72, 1}).name, "one-rack-mnnvl");
    EXPECT_EQ(d.shapeFor(CommShape{144, 2}).name, "two-racks-mnnvl");
    EXPECT_EQ(d.shapeFor(CommShape{720, 10}).name, "racks-mnnvl");
    EXPECT_EQ(d.shapeFor(CommShape{8, 2}).name, "two-trays");
    EXPECT_EQ(d.shapeFor(CommShape{144, 36}).name, "trays");
  }
  for (const char* dgx : {"dgx-h100", "dgx-b200"}) {
    const GraphData& d = builtinGraphData(dgx);
    EXPECT_EQ(d.shapeFor(CommShape{8, 1}).name, "one-host");
    EXPECT_EQ(d.shapeFor(CommShape{16, 2}).name, "two-hosts");
    EXPECT_EQ(d.shapeFor(CommShape{256, 32}).name, "hosts");
  }
}

TEST(NcclGraphData, ShapesDoNotOverlapAndFactsAreSane) {
  for (const std::string& profile : builtinGraphProfiles()) {
    const GraphData& d = builtinGraphData(profile);
    EXPECT_EQ(d.profile, profile);
    for (int nodes = 1; nodes <= 40; nodes++) {
      for (int ppn : {1, 4, 8, 72}) {
        int covering = 0;
        for (const GraphShape& s : d.shapes) covering += s.covers(CommShape{ppn * nodes, nodes}) ? 1 : 0;
        EXPECT_LE(covering, 1) << profile << " " << ppn << "x" << nodes;
      }
    }
    for (const GraphShape& s : d.shapes) {
      for (NcclVersion v : {NcclVersion::V2_28, NcclVersion::V2_30}) {
        const TopologyFacts& t = s.factsFor(v);
        // comm->nChannels is twice the ring/tree search channels (ncclTopoPostset).
        EXPECT_EQ(t.nChannels, 2 * std::min(t.ring.nChannels, t.tree.nChannels)) << profile << " " << s.name;
        EXPECT_GE(t.nvls.nChannels, 2) << profile << " " << s.name;
        EXPECT_EQ(t.minCompCap, t.maxCompCap);
      }
    }
  }
}

// Partial racks under MNNVL (8 GPUs on 2 trays is a published GB300 measurement): every 4k GPUs of one
// NVL72 rack is one NCCL node with a shape, its NVLS graph derived from NCCL's search rules.
TEST(NcclGraphData, EveryFourGpusOfOneNvl72RackOnOneNode) {
  // GPUs -> NVLS channels, bwIntra, bwInter: (channels + 1) x bwIntra <= 721.8 GB/s, bwInter raised to 2 x bwIntra.
  const std::map<int, std::tuple<int, float, float>> nvls = {
      {8, {8, 80.0f, 90.0f}},   {12, {12, 50.0f, 90.0f}}, {16, {16, 40.0f, 80.0f}},
      {20, {20, 30.0f, 60.0f}}, {24, {24, 24.0f, 50.0f}}, {28, {28, 24.0f, 50.0f}},
      {32, {32, 20.0f, 40.0f}}, {36, {32, 20.0f, 40.0f}}, {68, {32, 20.0f, 40.0f}}};
  for (const char* profile : {"gb300-nvl72", "gb200-nvl72"}) {
    const GraphData& d = builtinGraphData(profile);
    const GraphShape& rack = d.shapeFor(CommShape{72, 1});
    for (int gpus = 4; gpus <= 72; gpus += 4) {
      SCOPED_TRACE(std::string(profile) + " " + std::to_string(gpus));
      const GraphShape& s = d.shapeFor(CommShape{gpus, 1});
      if (gpus > 4 && gpus < 72) {
        EXPECT_EQ(s.name, "partial-rack-mnnvl-" + std::to_string(gpus));
      }
      for (NcclVersion v : {NcclVersion::V2_28, NcclVersion::V2_30}) {
        const TopologyFacts& t = s.factsFor(v);
        EXPECT_FLOAT_EQ(t.ring.bwIntra, rack.factsFor(v).ring.bwIntra);
        EXPECT_FLOAT_EQ(t.tree.bwIntra, rack.factsFor(v).tree.bwIntra);
        EXPECT_EQ(t.nvlsChannels, 24);
        EXPECT_TRUE(t.nvlsSupport);
        EXPECT_EQ(t.nvls.nChannels, std::min(32, gpus));
        EXPECT_LE(static_cast<float>(t.nvls.nChannels + 1) * t.nvls.bwIntra, 721.8f);
        const auto it = nvls.find(gpus);
        if (it == nvls.end()) continue;
        EXPECT_EQ(t.nvls.nChannels, std::get<0>(it->second));
        EXPECT_FLOAT_EQ(t.nvls.bwIntra, std::get<1>(it->second));
        EXPECT_FLOAT_EQ(t.nvls.bwInter, std::get<2>(it->second));
      }
    }
    EXPECT_THROW(d.shapeFor(CommShape{6, 1}), GraphDataError);  // not a multiple of 4: no tray holds 1.5 x 4
  }
  EXPECT_THROW(builtinGraphData("dgx-h100").shapeFor(CommShape{4, 1}), GraphDataError);  // DGX: no derivation
}

TEST(NcclGraphData, VersionSpecificValues) {
  const GraphShape& tray = builtinGraphData("gb300-nvl72").shapeFor(CommShape{4, 1});
  EXPECT_FLOAT_EQ(tray.factsFor(NcclVersion::V2_28).tree.bwIntra, 40.0f);
  EXPECT_FLOAT_EQ(tray.factsFor(NcclVersion::V2_30).tree.bwIntra, 45.0f);
  EXPECT_EQ(tray.factsFor(NcclVersion::V2_30).minCompCap, 103);
  EXPECT_EQ(tray.factsFor(NcclVersion::V2_30).cpuArch, CpuArch::Arm);
}

TEST(NcclGraphData, UnknownProfileOrShapeNamesWhatExists) {
  try {
    builtinGraphData("dgx-a100");
    FAIL() << "no error";
  } catch (const GraphDataError& e) {
    EXPECT_NE(std::string(e.what()).find("dgx-a100"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("gb300-nvl72"), std::string::npos);
  }
  try {
    builtinGraphData("dgx-h100").shapeFor(CommShape{12, 2});
    FAIL() << "no error";
  } catch (const GraphDataError& e) {
    EXPECT_NE(std::string(e.what()).find("12 ranks on 2 nodes"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("two-hosts"), std::string::npos);
  }
}

std::string minimalFile(const std::string& nChannelsFact) {
  const std::string g =
      R"({"nChannels": {"value": 2, "source": "test value"}, "bwIntra": {"value": 20, "source": "test value"},
          "bwInter": {"value": 20, "source": "test value"}, "typeIntra": {"value": "NVL", "source": "test value"},
          "typeInter": {"value": "PIX", "source": "test value"}, "pattern": {"value": "RING", "source": "test value"},
          "sameChannels": {"value": true, "source": "test value"}, "latencyInter": {"value": 0, "source": "test value"}})";
  return R"({"schema": "railtune.nccl-graph-data/1", "profile": "p", "description": "d",
    "compCap": {"value": 90, "source": "test value"}, "cpuArch": {"value": "x86", "source": "test value"},
    "cpuVendor": {"value": "Intel", "source": "test value"},
    "shapes": [{"name": "s", "description": "d", "ranksPerNode": 8, "minNodes": 1,
      "nvlsSupport": {"value": true, "source": "test value"}, "nChannels": )" +
         nChannelsFact + R"(, "nvlsChannels": {"v2.28": 16, "v2.30": 16, "source": "test value"},
      "graphs": {"ring": )" +
         g + R"(, "tree": )" + g + R"(, "nvls": )" + g + "}}]}";
}

TEST(NcclGraphData, BadFilesNameTheJsonPath) {
  const GraphData ok = parseGraphData(minimalFile(R"({"value": 4, "source": "test value"})"), "ok.json");
  EXPECT_EQ(ok.shapes.at(0).factsFor(NcclVersion::V2_28).nChannels, 4);
  EXPECT_EQ(ok.shapes.at(0).maxNodes, 0);
  auto errorOf = [](const std::string& fact) {
    try {
      parseGraphData(minimalFile(fact), "bad.json");
    } catch (const GraphDataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(errorOf(R"({"value": 4})"), "bad.json: /shapes/0/nChannels: missing \"source\"");
  EXPECT_EQ(errorOf(R"({"value": 4, "source": ""})"),
            "bad.json: /shapes/0/nChannels: \"source\" must be a non-empty string");
  EXPECT_EQ(errorOf(R"({"value": 0, "source": "test value"})"),
            "bad.json: /shapes/0/nChannels: must be an integer in [1, 64]");
  EXPECT_EQ(errorOf(R"({"v2.28": 4, "source": "test value"})"), "bad.json: /shapes/0/nChannels: missing \"value\"");
  try {
    parseGraphData("{", "broken.json");
    FAIL() << "no error";
  } catch (const GraphDataError& e) {
    EXPECT_STREQ(e.what(), "broken.json: (root): not valid JSON");
  }
}

}  // namespace
}  // namespace railtune::ncclmodel
