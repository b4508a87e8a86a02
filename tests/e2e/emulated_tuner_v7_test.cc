// Tuner v7 through the real .so and the emulator, with the fitted model (RAILTUNE_TUNER_MODEL_FILE): NCCL's
// five-row constants table (nccl/tuner_v7.h). The fit is written at the Blackwell row exactly as through v6,
// row 4 (NCCL_RUBIN_COMPCAP_IDX) keeps NCCL's value, a v6 plugin under an NCCL that keeps a v7 table sees
// rows 0..3 only (NCCL's own v7->v5->v7 conversion), a fit not validated against 2.32 changes nothing, and
// a table handed to the wrong entry is never read or written past its end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "emulator/tuner_driver.h"
#include "formats/tuner_model/tuner_model.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

namespace tm = formats::tuner_model;
using emu::NcclBehaviour;

const std::string kExampleModel = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/tuner-model.example.json";
constexpr ncclNvlDomainInfo_v5_t kV7OneNode{1, 4, 4};

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every double of row NCCL_RUBIN_COMPCAP_IDX in the five per-GPU arrays, as one list.
std::vector<double> rubinRowOf(const ncclTunerConstants_v7_t& c) {
  std::vector<double> out;
  for (const auto* array :
       {c.llMaxBws, c.perChMaxRingLL128Bws, c.perChMaxTreeLL128Bws, c.perChMaxTreeBws, c.perChMaxNVLSTreeBws})
    out.insert(out.end(), array[NCCL_RUBIN_COMPCAP_IDX], array[NCCL_RUBIN_COMPCAP_IDX] + NCCL_NUM_TUNING_SCALES_V5);
  return out;
}

class EmulatedTunerV7Test : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    for (const char* v : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL"}) env.unset(v);
    dir = std::filesystem::temp_directory_path() / ("railtune-e2e-v7-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    env.set("RAILTUNE_RAIL_MAP", write("rail-map.json", railMap()));
    useModel(/*validatedOn232=*/true);
    // NCCL's table as a v7 release keeps it, with a row 4 no Blackwell value equals.
    defaults = emu::defaultTunerConstantsV7(NcclBehaviour::V2_30);
    for (double* array :
         {&defaults.llMaxBws[0][0], &defaults.perChMaxRingLL128Bws[0][0], &defaults.perChMaxTreeLL128Bws[0][0],
          &defaults.perChMaxTreeBws[0][0], &defaults.perChMaxNVLSTreeBws[0][0]})
      for (int s = 0; s < NCCL_NUM_TUNING_SCALES_V5; ++s)
        array[NCCL_RUBIN_COMPCAP_IDX * NCCL_NUM_TUNING_SCALES_V5 + s] = 1000.25 + s;
    constants = defaults;
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  static std::string railMap() {
    return R"({"schema": "railtune.rail_map.v1", "cluster": "c", "gpu": "NVIDIA GB300", "rails": 1, "planes": 1,
      "hosts": [{"name": "h0", "domain": "d0", "gpus": [{"index": 0, "bus_id": "0000:01:00.0", "nics": [{"hca":
      "mlx5_0", "netdev": "ib0", "bus_id": "0000:03:00.0", "port": 1, "rail": 0, "plane": -1,
      "speed_mbps": 800000}]}]}]})";
  }
  // The golden example lists 2.28 and 2.30; a copy that also lists 2.32 applies to tuner v7 (docs/tuning.md).
  void useModel(bool validatedOn232) {
    std::string text = readWholeFile(kExampleModel);
    const std::string listed = R"("nccl": ["2.28", "2.30"])";
    ASSERT_NE(text.find(listed), std::string::npos) << "the example's release list moved";
    if (validatedOn232) text.replace(text.find(listed), listed.size(), R"("nccl": ["2.28", "2.30", "2.32"])");
    modelPath = write(validatedOn232 ? "model-232.json" : "model.json", text);
    env.set("RAILTUNE_TUNER_MODEL_FILE", modelPath);
  }
  ncclResult_t initV7(int version) {
    binding = emu::Loader::bindVersion(emu::PluginKind::Tuner, pluginPath("tuner"), version);
    EXPECT_TRUE(binding);
    driver = std::make_unique<emu::TunerDriver>(binding);
    return driver->initV7(0xf17, 4, 1, kV7OneNode, &constants);
  }
  // What the fit makes of NCCL's four rows, widened back into `defaults`.
  ncclTunerConstants_v7_t expectedAfterFit() const {
    ncclTunerConstants_v5_t rows;
    tunerConstantsV7ToV5(&rows, &defaults);
    tm::applyFittedConstants(tm::readTunerModelFile(modelPath).fits[0],
                             reinterpret_cast<formats::CostModelConstants*>(&rows));
    ncclTunerConstants_v7_t out = defaults;
    tunerConstantsV5ToV7(&out, &rows);
    return out;
  }

  std::filesystem::path dir;
  std::string modelPath;
  emu::Binding binding;
  std::unique_ptr<emu::TunerDriver> driver;
  ncclTunerConstants_v7_t constants{}, defaults{};
};

TEST_F(EmulatedTunerV7Test, FitWrittenAtTheBlackwellRowRowFourKeepsNcclsValue) {
  ASSERT_EQ(initV7(7), ncclSuccess) << pluginLogText();
  EXPECT_EQ(driver->version(), 7);
  EXPECT_TRUE(driver->violations().empty()) << driver->violations().front();
  EXPECT_TRUE(pluginWarnings().empty()) << pluginLogText();
  EXPECT_NE(pluginLogText().find("8 constants written"), std::string::npos) << pluginLogText();
  const ncclTunerConstants_v7_t expected = expectedAfterFit();
  EXPECT_NE(std::memcmp(&expected, &defaults, sizeof(expected)), 0) << "the fit wrote nothing: the test proves nothing";
  EXPECT_EQ(std::memcmp(&expected, &constants, sizeof(constants)), 0) << "the identified fields, at NCCL's rows";
  EXPECT_EQ(rubinRowOf(constants), rubinRowOf(defaults));
}

TEST_F(EmulatedTunerV7Test, V6UnderAnNcclThatKeepsAV7TableSeesFourRows) {
  useModel(/*validatedOn232=*/false);  // v6 is 2.30 to the fit
  ASSERT_EQ(initV7(6), ncclSuccess) << pluginLogText();
  EXPECT_TRUE(driver->violations().empty()) << driver->violations().front();
  const ncclTunerConstants_v7_t expected = expectedAfterFit();
  EXPECT_EQ(std::memcmp(&constants, &expected, sizeof(constants)), 0);
  EXPECT_EQ(rubinRowOf(constants), rubinRowOf(defaults)) << "row 4 is not visible to v5/v6";
  // The same plugin through a pre-v7 NCCL (a four-row table) writes the same four rows.
  ncclTunerConstants_v5_t rows;
  tunerConstantsV7ToV5(&rows, &defaults);
  emu::TunerDriver old(binding);
  ASSERT_EQ(old.init(0xf17, 4, 1, kV7OneNode, &rows), ncclSuccess);
  ncclTunerConstants_v5_t narrowed;
  tunerConstantsV7ToV5(&narrowed, &constants);
  EXPECT_EQ(std::memcmp(&rows, &narrowed, sizeof(rows)), 0);
}

TEST_F(EmulatedTunerV7Test, AFitNotValidatedOn232ChangesNothingUnderV7) {
  useModel(/*validatedOn232=*/false);
  ASSERT_EQ(initV7(7), ncclSuccess) << pluginLogText();
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
  EXPECT_NE(pluginLogText().find("NCCL 2.32 (tuner v7)"), std::string::npos) << pluginLogText();
}

TEST_F(EmulatedTunerV7Test, FailedInitLeavesTheWholeTable) {
  injectFault("tuner.init");
  env.set("RAILTUNE_STRICT", "1");
  EXPECT_NE(initV7(7), ncclSuccess);
  EXPECT_EQ(std::memcmp(&constants, &defaults, sizeof(constants)), 0);
}

// A pre-v7 caller driving a v7 binding (the four-row init): the driver widens, so the plugin never gets a
// table shorter than its ABI's; the four rows come back as initV7's do.
TEST_F(EmulatedTunerV7Test, FourRowTableNeverReachesTheV7Entry) {
  ncclTunerConstants_v5_t rows;
  tunerConstantsV7ToV5(&rows, &defaults);
  binding = emu::Loader::bindVersion(emu::PluginKind::Tuner, pluginPath("tuner"), 7);
  emu::TunerDriver viaFourRows(binding);
  ASSERT_EQ(viaFourRows.init(0xf17, 4, 1, kV7OneNode, &rows), ncclSuccess) << pluginLogText();
  EXPECT_TRUE(viaFourRows.violations().empty()) << viaFourRows.violations().front();
  ncclTunerConstants_v5_t expected;
  const ncclTunerConstants_v7_t wide = expectedAfterFit();
  tunerConstantsV7ToV5(&expected, &wide);
  EXPECT_EQ(std::memcmp(&rows, &expected, sizeof(rows)), 0);
}

// NCCL never hands a v7 table to the v6 entry (its adapter narrows first); if something did, the v6 entry
// reads and writes the first 1152 bytes only: the last 120 bytes of the 1272 stay as they were.
TEST_F(EmulatedTunerV7Test, V7TableAtTheV6EntryIsNotTouchedPastTheV6Size) {
  useModel(/*validatedOn232=*/false);
  binding = emu::Loader::bindVersion(emu::PluginKind::Tuner, pluginPath("tuner"), 6);
  ASSERT_TRUE(binding);
  const auto* v6 = static_cast<const ncclTuner_v6_t*>(binding.table);
  ncclTunerConstants_v7_t wide = defaults;
  ncclNvlDomainInfo_v5_t domains = kV7OneNode;
  void* context = nullptr;
  ASSERT_EQ(
      v6->init(&context, 0xf17, 4, 1, emu::pluginLogger(), &domains, reinterpret_cast<ncclTunerConstants_v6_t*>(&wide)),
      ncclSuccess);
  static_assert(sizeof(ncclTunerConstants_v7_t) - sizeof(ncclTunerConstants_v6_t) == 120);
  EXPECT_EQ(std::memcmp(reinterpret_cast<const char*>(&wide) + sizeof(ncclTunerConstants_v6_t),
                        reinterpret_cast<const char*>(&defaults) + sizeof(ncclTunerConstants_v6_t), 120),
            0);
  EXPECT_EQ(v6->finalize(context), ncclSuccess);
}

}  // namespace
}  // namespace railtune::testing
