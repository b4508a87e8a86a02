// The computation and formats behind `railtune tuner decisions`, called directly: sizes, shapes, the
// reasons with railtune's plugin and the MISMATCH detector with a plugin that ignores the rules.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "cli/tuner/compute.h"
#include "emulator/tuner_decisions/render.h"

namespace railtune::cli {
namespace {

using emu::DecisionsFormat;
using emu::formatDecisions;
using emu::shortBytes;
using formats::Algorithm;
using formats::Collective;
using formats::Protocol;

// The rules of tests/cli/tuner_decisions_rules.csv, for two racks with MNNVL.
DecisionsRequest twoRacks(const char* plugin) {
  DecisionsRequest request;
  request.comm = CommunicatorRequest{"gb300-nvl72", 2, 144, ""};
  request.pluginPath = plugin;
  request.collectives = {Collective::AllReduce, Collective::ReduceScatter};
  request.minBytes = 4096;
  request.maxBytes = 64u << 20;
  return request;
}

class TunerDecisionsWithRules : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"NCCL_TUNER_CONFIG_FILE", "RAILTUNE_RAIL_MAP", "RAILTUNE_TUNER_MODEL", "RAILTUNE_STRICT",
                             "RAILTUNE_INJECT_FAULT", "NCCL_ALGO", "NCCL_PROTO"})
      unsetenv(name);
    setenv("RAILTUNE_TUNER_CONFIG", RAILTUNE_TEST_TUNER_RULES, 1);
  }
  void TearDown() override { unsetenv("RAILTUNE_TUNER_CONFIG"); }
};

const DecisionRow& rowAt(const DecisionsReport& report, Collective c, uint64_t nBytes) {
  for (const DecisionRow& row : report.rows)
    if (row.collective == c && row.nBytes == nBytes) return row;
  throw std::out_of_range("no row");
}

TEST(TunerDecisionsSizes, PowersOfTwoInclusive) {
  const std::vector<uint64_t> all = requestSizes(8, uint64_t{16} << 30);
  ASSERT_EQ(all.size(), 32u);
  EXPECT_EQ(all.front(), 8u);
  EXPECT_EQ(all.back(), uint64_t{16} << 30);
  EXPECT_EQ(requestSizes(5, 20), (std::vector<uint64_t>{8, 16}));
  EXPECT_EQ(requestSizes(0, 2), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(requestSizes(uint64_t{1} << 63, ~uint64_t{0}), (std::vector<uint64_t>{uint64_t{1} << 63}));
  EXPECT_THROW(requestSizes(5, 7), std::invalid_argument);
  EXPECT_THROW(requestSizes(64, 8), std::invalid_argument);
}

TEST(TunerDecisionsSizes, ShortBytes) {
  EXPECT_EQ(shortBytes(8), "8");
  EXPECT_EQ(shortBytes(4096), "4K");
  EXPECT_EQ(shortBytes(uint64_t{16} << 30), "16G");
  EXPECT_EQ(shortBytes(3000), "3000");
}

TEST(TunerDecisionsShape, MnnvlDefaultsAndLimits) {
  EXPECT_TRUE(resolveCommunicator({"gb300-nvl72", 1, 72, ""}).mnnvl);
  EXPECT_FALSE(resolveCommunicator({"dgx-h100", 2, 16, ""}).mnnvl);
  const Communicator trays = resolveCommunicator({"gb300-nvl72", 18, 72, "off"});
  EXPECT_EQ(trays.ranksPerNode, 4);
  EXPECT_EQ(describeCommunicator(trays), "72 ranks on 18 nodes (MNNVL off: 18 NVLink domains of 4 ranks)");
  EXPECT_THROW(resolveCommunicator({"gb300-nvl72", 1, 72, "off"}), std::invalid_argument);
  EXPECT_THROW(resolveCommunicator({"gb300-nvl72", 1, 144, "on"}), std::invalid_argument);
  EXPECT_THROW(resolveCommunicator({"gb300-nvl72", 2, 9, ""}), std::invalid_argument);
  EXPECT_THROW(resolveCommunicator({"gb300-nvl72", 0, 4, ""}), std::invalid_argument);
  EXPECT_THROW(resolveCommunicator({"no-such-profile", 1, 4, ""}), std::invalid_argument);
}

TEST_F(TunerDecisionsWithRules, RailtunePluginFollowsItsRules) {
  const DecisionsReport report = computeDecisions(twoRacks(RAILTUNE_TEST_TUNER_PLUGIN));
  EXPECT_EQ(report.mismatches(), 0u);
  EXPECT_EQ(report.rows.size(), 2u * 15u);
  EXPECT_TRUE(report.rulesUsable);
  EXPECT_EQ(report.ruleCount, 5u);
  const DecisionRow& small = rowAt(report, Collective::AllReduce, 4096);
  EXPECT_EQ(small.reason.kind, DecisionReason::Kind::Rule);
  EXPECT_EQ(small.reason.text, "rule 1 (tuner_decisions_rules.csv:3)");
  EXPECT_EQ(small.railtune->algorithm, Algorithm::Ring);
  EXPECT_EQ(small.railtune->protocol, Protocol::LL128);
  const DecisionRow& mid = rowAt(report, Collective::AllReduce, 1u << 20);
  EXPECT_EQ(mid.railtune, (CellChoice{Algorithm::Ring, Protocol::Simple, 16}));
  const DecisionRow& none = rowAt(report, Collective::AllReduce, 128u << 10);
  EXPECT_EQ(none.reason.kind, DecisionReason::Kind::Nccl);
  EXPECT_EQ(none.railtune, none.nccl);
  // CollNet is IGNORE here, so rule 3 is skipped and rule 4 applies.
  EXPECT_EQ(rowAt(report, Collective::ReduceScatter, 4u << 20).reason.rule, 4u);
}

TEST_F(TunerDecisionsWithRules, PluginThatIgnoresTheRulesIsAMismatch) {
  const DecisionsReport report = computeDecisions(twoRacks(RAILTUNE_TEST_ECHO_TUNER));
  EXPECT_EQ(report.mismatches(), report.rows.size());
  EXPECT_TRUE(report.constantsEdited);  // the echo tuner edits one constant at init
  const DecisionRow& row = rowAt(report, Collective::AllReduce, 4096);
  EXPECT_EQ(row.railtune, (CellChoice{Algorithm::Ring, Protocol::Simple, 0x21}));
  EXPECT_EQ(row.reason.rule, 1u);
  const std::string csv = formatDecisions(report, DecisionsFormat::Csv);
  EXPECT_NE(csv.find(",\"MISMATCH: rule 1 (tuner_decisions_rules.csv:3) says Ring/LL128 with NCCL's channels, "),
            std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(formatDecisions(report, DecisionsFormat::Json));
  EXPECT_EQ(doc["schema"], formats::kTunerDecisionsSchema);
  EXPECT_EQ(doc["mismatches"], report.rows.size());
  EXPECT_EQ(doc["decisions"][0]["reason"]["kind"], "mismatch");
}

// Without a rail map the model takes the profile's NICs: 4 ConnectX-8 of 800 Gb/s per GB300 tray, 4
// ConnectX-7 of 400 Gb/s per GB200 tray (not the model's built-in 400 Gb/s for every profile).
TEST_F(TunerDecisionsWithRules, ModelTakesTheProfilesNicsWithoutARailMap) {
  const DecisionsReport gb300 = computeDecisions(twoRacks(RAILTUNE_TEST_TUNER_PLUGIN));
  EXPECT_NE(gb300.modelDescription.find("network 100.0 GB/s per GPU (4 rails x 800 Gb/s / 4 GPUs per host"),
            std::string::npos)
      << gb300.modelDescription;
  DecisionsRequest request = twoRacks(RAILTUNE_TEST_TUNER_PLUGIN);
  request.comm.profile = "gb200-nvl72";
  const DecisionsReport gb200 = computeDecisions(request);
  EXPECT_NE(gb200.modelDescription.find("network 50.0 GB/s per GPU (4 rails x 400 Gb/s / 4 GPUs per host"),
            std::string::npos)
      << gb200.modelDescription;
}

TEST_F(TunerDecisionsWithRules, UnreadableRulesLeaveNcclsChoice) {
  setenv("RAILTUNE_TUNER_CONFIG", RAILTUNE_TEST_TUNER_BAD_RULES, 1);
  const DecisionsReport report = computeDecisions(twoRacks(RAILTUNE_TEST_TUNER_PLUGIN));
  EXPECT_EQ(report.mismatches(), 0u);
  EXPECT_FALSE(report.rulesUsable);
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_NE(report.warnings.front().find("plugin: WARN"), std::string::npos);
  for (const DecisionRow& row : report.rows) {
    EXPECT_EQ(row.reason.kind, DecisionReason::Kind::Nccl);
    EXPECT_EQ(row.railtune, row.nccl);
  }
}

}  // namespace
}  // namespace railtune::cli
