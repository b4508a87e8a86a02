// `tuner decisions` with a fitted model, called directly: on the golden model file for 4, 8 and 16 ranks on one
// GB300 NVL72 domain, the fitted column is NCCL's pick as predicted from the file alone (NCCL's emulated model at
// the fit's identified constants, then the fit's corrections on the cells NCCL enabled), and railtune's column
// follows it where no rule applies; on GB200 the fitted column is NCCL's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cli/tuner/compute.h"
#include "cli/tuner/fit_column.h"
#include "emulator/nccl_model/emulated_nccl.h"
#include "formats/tuner_model/tuner_model.h"

namespace railtune::cli {
namespace {

namespace tm = formats::tuner_model;
using formats::Collective;

const std::string kModel = std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/tuner-model.example.json";

// NCCL's pick predicted from the file: its constants in NCCL's model, its corrections on the table (a shape's own
// correction, where the file has one, over the scale's).
std::optional<CellChoice> predicted(const tm::Fit& fit, const ncclmodel::EmulatedNccl& nccl, Collective c,
                                    uint64_t bytes, const tm::CommShape& shape) {
  ncclmodel::CostTable table = nccl.costTable(c, bytes);
  for (int a = 0; a < formats::kNumAlgorithms; ++a)
    for (int p = 0; p < formats::kNumProtocols; ++p) {
      float& cost = table[static_cast<size_t>(a)][static_cast<size_t>(p)];
      const tm::Correction* k = tm::cellEntry(fit.corrections, c, static_cast<formats::Algorithm>(a),
                                              static_cast<formats::Protocol>(p), tm::Scale::OneNode, &shape);
      if (k != nullptr && cost >= 0.0f)
        cost = std::max(1e-3f, static_cast<float>(k->timeScale) * cost + static_cast<float>(k->timeAddUs));
    }
  const std::optional<ncclmodel::Pick> pick = ncclmodel::ncclPick(table);
  if (!pick) return std::nullopt;
  return CellChoice{pick->algorithm, pick->protocol, 0};
}

class TunerDecisionsFit : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL",
                             "RAILTUNE_STRICT", "RAILTUNE_INJECT_FAULT", "NCCL_ALGO", "NCCL_PROTO"})
      env.unset(name);
    env.set("RAILTUNE_TUNER_MODEL_FILE", kModel);
  }
  DecisionsReport decide(const std::string& profile, int ranks) {
    DecisionsRequest request;
    request.comm = CommunicatorRequest{profile, 1, ranks, ""};
    request.pluginPath = RAILTUNE_TEST_TUNER_PLUGIN;
    request.minBytes = 64;
    request.maxBytes = uint64_t{1} << 32;
    const std::string map = writeProfileRailMap(emu::resolveCommunicator(request.comm));
    env.set("RAILTUNE_RAIL_MAP", map);
    DecisionsReport report = computeDecisions(request);
    std::remove(map.c_str());
    return report;
  }
  ScopedEnv env;
};

TEST_F(TunerDecisionsFit, TheFittedColumnIsThePickTheFilePredicts) {
  const tm::Fit fit = tm::readTunerModelFile(kModel).fits[0];
  for (int ranks : {4, 8, 16}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const DecisionsReport report = decide("gb300-nvl72", ranks);
    ASSERT_TRUE(report.fit.applied) << report.fit.status;
    EXPECT_EQ(report.fit.constantsWritten.size(), 8u);
    formats::CostModelConstants constants = ncclmodel::defaultCostModelConstants(ncclmodel::NcclVersion::V2_30);
    tm::applyFittedConstants(fit, &constants);
    const ncclmodel::EmulatedNccl nccl(ncclmodel::NcclVersion::V2_30, "gb300-nvl72", {ranks, 1}, {}, constants);
    size_t byFit = 0;
    for (const DecisionRow& row : report.rows) {
      ASSERT_TRUE(row.fitted);
      const std::optional<CellChoice> expected = predicted(fit, nccl, row.collective, row.nBytes, {ranks, 1});
      ASSERT_TRUE(expected);
      EXPECT_EQ(row.fitted->algorithm, expected->algorithm) << formats::collectiveName(row.collective) << row.nBytes;
      EXPECT_EQ(row.fitted->protocol, expected->protocol) << formats::collectiveName(row.collective) << row.nBytes;
      EXPECT_EQ(row.railtune, row.fitted) << "no rules: railtune's column is the fit's";
      EXPECT_NE(row.reason.kind, DecisionReason::Kind::Mismatch) << row.reason.text;
      byFit += row.fittedReason == "fit";
    }
    EXPECT_GT(byFit, 0u) << "the fit changed none of NCCL's picks: the comparison proves little";
    EXPECT_EQ(report.changed().byFit, byFit);
  }
}

TEST_F(TunerDecisionsFit, AnotherGpuLeavesTheFittedColumnNcclsOwn) {
  const DecisionsReport report = decide("gb200-nvl72", 4);
  EXPECT_FALSE(report.fit.applied);
  EXPECT_TRUE(report.fit.constantsWritten.empty());
  EXPECT_NE(report.fit.status.find("NVIDIA GB200"), std::string::npos) << report.fit.status;
  for (const DecisionRow& row : report.rows) {
    EXPECT_EQ(row.fitted, row.nccl);
    EXPECT_EQ(row.fittedReason, "no fit (see the header)");
  }
}

}  // namespace
}  // namespace railtune::cli
