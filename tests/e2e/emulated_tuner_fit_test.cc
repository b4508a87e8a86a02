// The fitted model (RAILTUNE_TUNER_MODEL_FILE) through the real .so and the emulator, in NCCL's init order (NCCL
// reads the constants back after tuner->init, init.cc:1638-1644@v2.30.7, :1351-1356@v2.28.9): with the golden
// model file exactly the identified constants change and NCCL's emulated pick follows the fit; another GPU, a
// bucket marked not usable or tuner v2 change nothing and say so once; corrections never touch IGNORE cells
// and rules still win; v3/v4 get the table transform; a bad file is one WARN and pass-through (an init error
// under RAILTUNE_STRICT=1).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "emulator/nccl_model/emulated_nccl.h"
#include "emulator/tuner_driver.h"
#include "formats/tuner_model/tuner_model.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

namespace tm = formats::tuner_model;
using emu::NcclBehaviour;

const std::string kExample = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/tuner-model.example.json";

std::string railMap(const std::string& gpu, int speedMbps) {
  return R"({"schema": "railtune.rail_map.v1", "cluster": "c", "gpu": ")" + gpu +
         R"(", "rails": 1, "planes": 1, "hosts": [{"name": "h0", "domain": "d0", "gpus": [{"index": 0,
         "bus_id": "0000:01:00.0", "nics": [{"hca": "mlx5_0", "netdev": "ib0", "bus_id": "0000:03:00.0",
         "port": 1, "rail": 0, "plane": -1, "speed_mbps": )" +
         std::to_string(speedMbps) + "}]}]}]}";
}

class EmulatedTunerFitTest : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    for (const char* v : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL"}) env.unset(v);
    dir = std::filesystem::temp_directory_path() / ("railtune-e2e-fit-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    env.set("RAILTUNE_TUNER_MODEL_FILE", kExample);
    env.set("RAILTUNE_RAIL_MAP", write("rail-map.json", railMap("NVIDIA GB300", 800000)));
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // One communicator of `nRanks` on `nNodes` NVLink domains, as NCCL `behaviour` binds tuner v`version`.
  ncclResult_t init(NcclBehaviour behaviour, int version, size_t nRanks, size_t nNodes) {
    binding = emu::Loader::bindVersion(emu::PluginKind::Tuner, pluginPath("tuner"), version);
    EXPECT_TRUE(binding);
    driver = std::make_unique<emu::TunerDriver>(binding);
    constants = defaults = emu::defaultTunerConstants(behaviour);
    const int perNode = static_cast<int>(nRanks / nNodes);
    return driver->init(0xf17, nRanks, nNodes, {static_cast<int>(nNodes), perNode, perNode}, &constants);
  }
  // NCCL's pick after the tuner, over `table`.
  std::pair<int, int> pick(ncclFunc_t coll, size_t bytes, emu::CostTable& table, int* nChannels = nullptr) {
    int channels = 0, a = -1, p = -1;
    EXPECT_EQ(driver->getCollInfo(coll, bytes, 1, table, 0, nChannels ? nChannels : &channels), ncclSuccess);
    emu::pickFromCostTable(table, &a, &p);
    return {a, p};
  }
  int changedConstants() const {
    const auto* now = reinterpret_cast<const double*>(&constants);
    const auto* was = reinterpret_cast<const double*>(&defaults);
    int n = 0;
    for (size_t i = 0; i < sizeof(constants) / sizeof(double); ++i) n += now[i] != was[i] ? 1 : 0;
    return n;
  }
  size_t countLogged(const std::string& text) {
    const std::string log = pluginLogText();
    size_t count = 0;
    for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++count;
    return count;
  }
  std::filesystem::path dir;
  emu::Binding binding;
  std::unique_ptr<emu::TunerDriver> driver;
  ncclTunerConstants_v5_t constants{}, defaults{};
};

class FitPerRelease : public EmulatedTunerFitTest, public ::testing::WithParamInterface<NcclBehaviour> {};

TEST_P(FitPerRelease, ExactlyTheIdentifiedConstantsChangeAndNcclsPickFollows) {
  const NcclBehaviour behaviour = GetParam();
  const bool v230 = behaviour == NcclBehaviour::V2_30;
  ASSERT_EQ(init(behaviour, v230 ? 6 : 5, 4, 1), ncclSuccess) << pluginLogText();
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  EXPECT_EQ(countLogged("8 constants written"), 1u) << pluginLogText();
  const tm::TunerModel model = tm::readTunerModelFile(kExample);
  ncclTunerConstants_v5_t expected = defaults;
  tm::applyFittedConstants(model.fits[0], reinterpret_cast<formats::CostModelConstants*>(&expected));
  EXPECT_EQ(std::memcmp(&expected, &constants, sizeof(constants)), 0) << "the identified fields, at NCCL's rows";
  EXPECT_EQ(changedConstants(), 8) << "8 identified constants in the example; nothing else moves";
  // What NCCL runs: its model at the constants the tuner left, then the table the tuner corrected. At the
  // example's corrections (1 node): Ring/Simple x0.93 for every collective, AllReduce NVLS/Simple x1.08 - 1.5 us.
  formats::CostModelConstants fitted;
  std::memcpy(&fitted, &constants, sizeof(fitted));
  const ncclmodel::NcclVersion release = v230 ? ncclmodel::NcclVersion::V2_30 : ncclmodel::NcclVersion::V2_28;
  const ncclmodel::EmulatedNccl ncclAsFitted(release, "gb300-nvl72", {4, 1}, {}, fitted);
  const ncclmodel::EmulatedNccl ncclDefault(release, "gb300-nvl72", {4, 1});
  int differs = 0;
  for (size_t bytes = 64; bytes <= (size_t{1} << 32); bytes *= 4) {
    emu::CostTable table, expectedTable;
    ncclmodel::copyTo(ncclAsFitted.costTable(formats::Collective::AllReduce, bytes), table);
    std::memcpy(expectedTable, table, sizeof(table));
    for (int a : {NCCL_ALGO_RING, NCCL_ALGO_NVLS}) {
      float& cost = expectedTable[a][NCCL_PROTO_SIMPLE];
      if (cost >= 0) cost = std::max(1e-3f, a == NCCL_ALGO_RING ? 0.93f * cost : 1.08f * cost - 1.5f);
    }
    int ea = -1, ep = -1;
    emu::pickFromCostTable(expectedTable, &ea, &ep);
    EXPECT_EQ(pick(ncclFuncAllReduce, bytes, table), std::make_pair(ea, ep)) << bytes << " B";
    const std::optional<ncclmodel::NcclDecision> before = ncclDefault.decide(formats::Collective::AllReduce, bytes);
    ASSERT_TRUE(before);
    differs += static_cast<int>(before->pick.algorithm) != ea || static_cast<int>(before->pick.protocol) != ep;
  }
  EXPECT_GT(differs, 0) << "the fit changed none of NCCL's picks: the test proves nothing";
}

INSTANTIATE_TEST_SUITE_P(Releases, FitPerRelease, ::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                         [](const ::testing::TestParamInfo<NcclBehaviour>& p) { return behaviourTag(p.param); });

TEST_F(EmulatedTunerFitTest, AnotherGpuChangesNothingAndSaysSoOnce) {
  env.set("RAILTUNE_RAIL_MAP", write("gb200.json", railMap("NVIDIA GB200", 400000)));
  for (int comm = 0; comm < 3; ++comm) {
    ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 4, 1), ncclSuccess) << pluginLogText();
    EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
    emu::CostTable table, before;
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 10.0f + static_cast<float>(a * 3 + p);
    std::memcpy(before, table, sizeof(table));
    pick(ncclFuncAllReduce, 1 << 20, table);
    EXPECT_EQ(std::memcmp(before, table, sizeof(table)), 0);
  }
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  for (const char* text : {"fits NVIDIA GB300/IB InfiniBand 800G", "NVIDIA GB200/IB InfiniBand 400G", "gb200.json",
                           "tuner-model.example.json"})
    EXPECT_NE(warnings[0].find(text), std::string::npos) << text << " in " << warnings[0];
  EXPECT_EQ(countLogged("(reported at WARN once per process)"), 2u) << pluginLogText();
}

TEST_F(EmulatedTunerFitTest, ABucketMarkedNotUsableChangesNothing) {
  ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 8, 2), ncclSuccess) << pluginLogText();
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("not usable at 2nodes (no data at 2 nodes)"), std::string::npos) << warnings[0];
}

// The example's 1-node verdict is usable from 4 to 16 ranks, the range it measured: 8 ranks get the fit, 72 ranks
// of one NVL72 domain NCCL's constants and one WARN naming the range.
TEST_F(EmulatedTunerFitTest, AUsableFitAppliesOnlyWithinTheRankRangeItMeasured) {
  ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 8, 1), ncclSuccess) << pluginLogText();
  EXPECT_NE(std::memcmp(&constants, &defaults, sizeof(constants)), 0) << "8 ranks: within 4 to 16";
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 72, 1), ncclSuccess) << pluginLogText();
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0) << "72 ranks: past the measured range";
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("is usable at 1node from 4 to 16 ranks, the range it measured, not at 72 ranks, 1 node"),
            std::string::npos)
      << warnings[0];
}

// A fit usable at its measured shapes only (8 and 16 ranks on one node), with a correction of 8 ranks' own
// (Tree/LL x0.5): it changes the table, and the pick, at 8 ranks only; 16 ranks get exactly what the same fit
// without it gives; 32 ranks, a shape nobody measured, get NCCL's constants and table and one WARN saying why.
TEST_F(EmulatedTunerFitTest, AShapesOwnCorrectionAppliesAtThatShapeOnly) {
  tm::TunerModel withOwn = tm::readTunerModelFile(kExample);
  tm::Fit& fit = withOwn.fits[0];
  fit.usable[0] = {false, "leave-one-shape-out worst 14.2 % > 10.0 %", true, {{8, 1}, {16, 1}}, 0, 0};
  std::erase_if(fit.corrections, [](const tm::Correction& c) { return c.shape.has_value(); });
  tm::TunerModel shared = withOwn;
  tm::Correction own;
  static_cast<tm::CellAffine&>(own) = {
      std::nullopt, formats::Algorithm::Tree, formats::Protocol::LL, tm::Scale::OneNode, 0.5, 0.0, tm::CommShape{8, 1}};
  own.why = "8 ranks' own";
  fit.corrections.push_back(own);
  const std::string withOwnPath = write("own.json", tm::writeTunerModel(withOwn));
  const std::string sharedPath = write("shared.json", tm::writeTunerModel(shared));
  // The table after getCollInfo of a communicator of nRanks on one node, under the model at `path`.
  const auto tableAt = [&](const std::string& path, size_t nRanks, emu::CostTable& table) {
    env.set("RAILTUNE_TUNER_MODEL_FILE", path);
    EXPECT_EQ(init(NcclBehaviour::V2_30, 6, nRanks, 1), ncclSuccess) << pluginLogText();
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 100.0f;
    return pick(ncclFuncAllReduce, 1 << 20, table);
  };
  emu::CostTable a, b;
  EXPECT_EQ(tableAt(withOwnPath, 8, a), std::make_pair(NCCL_ALGO_TREE, NCCL_PROTO_LL)) << "8 ranks' own correction";
  EXPECT_FLOAT_EQ(a[NCCL_ALGO_TREE][NCCL_PROTO_LL], 50.0f);
  EXPECT_EQ(tableAt(sharedPath, 8, b), std::make_pair(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE)) << "without it";
  EXPECT_EQ(tableAt(withOwnPath, 16, a), std::make_pair(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE));
  const ncclTunerConstants_v5_t at16 = constants;
  EXPECT_NE(std::memcmp(&at16, &defaults, sizeof(at16)), 0) << "16 ranks were measured: the fit applies";
  tableAt(sharedPath, 16, b);
  EXPECT_EQ(std::memcmp(a, b, sizeof(a)), 0) << "at 16 ranks the correction of 8 ranks changes nothing";
  EXPECT_EQ(std::memcmp(&at16, &constants, sizeof(at16)), 0);
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  tableAt(withOwnPath, 32, a);
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0) << "32 ranks: nobody measured them";
  for (int x = 0; x < NCCL_NUM_ALGORITHMS; ++x)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) EXPECT_EQ(a[x][p], 100.0f) << x << "/" << p;
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("only at the shapes it measured (8 ranks, 1 node; 16 ranks, 1 node), not this "
                             "communicator's 32 ranks, 1 node"),
            std::string::npos)
      << warnings[0];
}

// Tuner v3/v4: the example's table transform has a Ring/LL128 entry of 8 ranks' own (x0.85 + 2.6 us) beside the
// scale's (x0.71 + 2.1 us), and a correction of 8 ranks' own after it (x1.2 + 0.5 us): 8 ranks get theirs, 16 ranks
// the scale's transform alone.
TEST_F(EmulatedTunerFitTest, TunerV4GetsAShapesOwnTableTransformAtThatShapeOnly) {
  for (const auto& [ranks, expected] :
       {std::pair{size_t{8}, 1.2f * (0.85f * 100.0f + 2.6f) + 0.5f}, {size_t{16}, 0.71f * 100.0f + 2.1f}}) {
    ASSERT_EQ(init(NcclBehaviour::V2_30, 4, ranks, 1), ncclSuccess) << pluginLogText();
    emu::CostTable table;
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 100.0f;
    pick(ncclFuncAllGather, 1 << 20, table);
    EXPECT_FLOAT_EQ(table[NCCL_ALGO_RING][NCCL_PROTO_LL128], expected) << ranks << " ranks";
  }
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
}

TEST_F(EmulatedTunerFitTest, NoRailMapNoFit) {
  env.unset("RAILTUNE_RAIL_MAP");
  ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 4, 1), ncclSuccess) << pluginLogText();
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
  ASSERT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
  EXPECT_EQ(countLogged("no usable rail map"), 1u) << pluginLogText();
}

TEST_F(EmulatedTunerFitTest, CorrectionsNeverTouchIgnoreCellsAndRulesStillWin) {
  env.set("RAILTUNE_TUNER_CONFIG", write("rules.conf", "allreduce,0,65535,tree,ll,-1,-1,-1\n"));
  ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 4, 1), ncclSuccess) << pluginLogText();
  emu::CostTable table;
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 100.0f;
  table[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] = -1.0f;  // IGNORE: stays IGNORE
  EXPECT_EQ(pick(ncclFuncAllReduce, 1 << 20, table), std::make_pair(NCCL_ALGO_RING, NCCL_PROTO_SIMPLE));
  EXPECT_EQ(table[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE], -1.0f);
  EXPECT_FLOAT_EQ(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE], 93.0f);
  EXPECT_EQ(table[NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE], 100.0f) << "no correction for Tree/Simple";
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 100.0f;
  EXPECT_EQ(pick(ncclFuncAllReduce, 4096, table), std::make_pair(NCCL_ALGO_TREE, NCCL_PROTO_LL)) << "the rule";
}

TEST_F(EmulatedTunerFitTest, TunerV3AndV4GetTheTableTransformAndV2Nothing) {
  for (int version : {3, 4}) {
    ASSERT_EQ(init(NcclBehaviour::V2_30, version, 4, 1), ncclSuccess) << pluginLogText();
    emu::CostTable table;
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 100.0f;
    pick(ncclFuncAllReduce, 1 << 20, table);
    EXPECT_FLOAT_EQ(table[NCCL_ALGO_RING][NCCL_PROTO_LL128], 0.71f * 100.0f + 2.1f) << "v" << version;
    // The transform, then the correction: 0.93 * (0.93 t - 0.4).
    EXPECT_NEAR(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE], 0.93 * (0.93 * 100.0 - 0.4), 1e-3) << "v" << version;
  }
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  ASSERT_EQ(init(NcclBehaviour::V2_30, 2, 4, 1), ncclSuccess) << pluginLogText();
  ASSERT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
  EXPECT_EQ(countLogged("tuner v2 gets no cost table"), 1u) << pluginLogText();
}

struct BadFile {
  const char* name;
  const char* says;
};

class BadModelFile : public EmulatedTunerFitTest, public ::testing::WithParamInterface<BadFile> {
 protected:
  std::string make() {
    const std::string name = GetParam().name, path = (dir / name).string();
    if (name == "malformed.json") write(name, "{\"schema\": \"railtune.tuner-model/1\", \"fits\": [}\n");
    if (name == "a-directory") std::filesystem::create_directories(path);
    if (name == "a-fifo") {
      EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
    }
    return path;
  }
};

TEST_P(BadModelFile, IsOneWarningAndPassThrough) {
  const std::string path = make();
  env.set("RAILTUNE_TUNER_MODEL_FILE", path);
  ASSERT_EQ(init(NcclBehaviour::V2_30, 6, 4, 1), ncclSuccess) << pluginLogText();
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
  emu::CostTable table, before;
  for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
    for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 10.0f + static_cast<float>(a * 3 + p);
  std::memcpy(before, table, sizeof(table));
  pick(ncclFuncAllReduce, 1 << 20, table);
  EXPECT_EQ(std::memcmp(before, table, sizeof(table)), 0);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("RAILTUNE_TUNER_MODEL_FILE"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(GetParam().says), std::string::npos) << warnings[0];
}

TEST_P(BadModelFile, FailsInitUnderStrict) {
  env.set("RAILTUNE_TUNER_MODEL_FILE", make());
  env.set("RAILTUNE_STRICT", "1");
  EXPECT_NE(init(NcclBehaviour::V2_30, 6, 4, 1), ncclSuccess);
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
  EXPECT_EQ(pluginWarnings().size(), 1u) << pluginLogText();
}

INSTANTIATE_TEST_SUITE_P(Files, BadModelFile,
                         ::testing::Values(BadFile{"malformed.json", "malformed.json:1:"},
                                           BadFile{"a-directory", "is a directory, not a regular file"},
                                           BadFile{"a-fifo", "is a FIFO, not a regular file"},
                                           BadFile{"missing.json", "missing.json"}),
                         [](const ::testing::TestParamInfo<BadFile>& p) {
                           std::string name = p.param.name;
                           for (char& c : name)
                             if (c == '-' || c == '.') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace railtune::testing
