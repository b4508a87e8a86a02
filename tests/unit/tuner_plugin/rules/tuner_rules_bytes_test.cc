// Bytes per rank, the nccl-tests `size` mapping, the communicator scope, the file entry points,
// and the golden listings of the documented examples (regenerate with
//   RAILTUNE_UPDATE_GOLDEN=1 ctest --test-dir <build> -R '^unit\.TunerRulesGolden').
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/tuner_rules/rules_file.h"
#include "tests/support/file_text.h"
#include "tests/support/shared_data.h"
#include "tuner_plugin/rules/rule_index.h"

namespace railtune::tuner::rules {
using namespace formats::tuner_rules;  // the readers: the rules file format
namespace {

using railtune::testing::readFile;

TEST(TunerRulesBytes, BytesPerRankPerCollective) {
  // NCCL passes elementSize * count for these: every rank holds the whole buffer.
  EXPECT_EQ(bytesPerRank(Collective::AllReduce, 4096, 8), 4096u);
  EXPECT_EQ(bytesPerRank(Collective::Broadcast, 4096, 8), 4096u);
  EXPECT_EQ(bytesPerRank(Collective::Reduce, 4096, 8), 4096u);
  // ... and elementSize * count * nRanks for these: the whole gathered or scattered buffer.
  EXPECT_EQ(bytesPerRank(Collective::AllGather, 4096, 8), 512u);
  EXPECT_EQ(bytesPerRank(Collective::ReduceScatter, 4096, 8), 512u);
  EXPECT_EQ(bytesPerRank(Collective::AllGather, 4097, 8), 512u);   // rounded down
  EXPECT_EQ(bytesPerRank(Collective::AllGather, 4096, 0), 4096u);  // no division by zero
}

// nccl-tests prints `size` = the bytes NCCL is given as nBytes, and `count` = the per-rank count.
// For all_reduce_perf (float) on a GB200 rack: bytes per rank = count * 4 = size.
TEST(TunerRulesBytes, NcclTestsSizeColumnMapsToNBytes) {
  const std::string path =
      railtune::testing::sharedDataPath("nccl-tests/gb200-nvl72-1rack-72gpu-allreduce-coreweave.txt");
  if (!railtune::testing::sharedDataPresent(path)) GTEST_SKIP() << path << " is absent";
  std::istringstream table(readFile(path));
  std::string line;
  int rows = 0;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    uint64_t size = 0, count = 0;
    std::string type;
    if (line.empty() || line[0] == '#' || !(fields >> size >> count >> type)) continue;
    ASSERT_EQ(type, "float");
    EXPECT_EQ(bytesPerRank(Collective::AllReduce, size, 72), count * 4) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 5);
  // all_gather_perf on n ranks prints size = count * sizeof * n with count per rank (the
  // mapping documented in docs/tuning.md), which is NCCL's nBytes; per rank that is count * sizeof.
  const uint64_t count = 1 << 20, n = 72;
  EXPECT_EQ(bytesPerRank(Collective::AllGather, count * 4 * n, n), count * 4);
}

TEST(TunerRulesBytes, NBytesRangeOfABytesPerRankRule) {
  Rule rule;
  rule.sizeKey = SizeKey::BytesPerRank;
  rule.minBytes = 10;
  rule.maxBytes = 20;
  uint64_t lo = 0, hi = 0;
  ASSERT_TRUE(nBytesRange(rule, Collective::AllGather, 4, &lo, &hi));
  EXPECT_EQ(lo, 40u);
  EXPECT_EQ(hi, 83u);
  ASSERT_TRUE(nBytesRange(rule, Collective::AllReduce, 4, &lo, &hi));
  EXPECT_EQ(lo, 10u);
  EXPECT_EQ(hi, 20u);
  rule.maxBytes = kNoUpperBound / 2;
  ASSERT_TRUE(nBytesRange(rule, Collective::ReduceScatter, 4, &lo, &hi));
  EXPECT_EQ(hi, kNoUpperBound);
  rule.minBytes = kNoUpperBound / 2;  // no nBytes has that many bytes per rank
  EXPECT_FALSE(nBytesRange(rule, Collective::ReduceScatter, 4, &lo, &hi));
}

TEST(TunerRulesBytes, ScopeFromNvlDomainInfoOrNodes) {
  CommInfo comm;
  comm.nRanks = 144;
  comm.nNodes = 2;
  RuleScope s = scopeOf(comm);
  EXPECT_EQ(s.nvlDomains, 2);
  EXPECT_EQ(s.minRanksPerDomain, 72);
  EXPECT_EQ(s.maxRanksPerDomain, 72);
  comm.nRanks = 9;
  s = scopeOf(comm);
  EXPECT_EQ(s.minRanksPerDomain, 4);
  EXPECT_EQ(s.maxRanksPerDomain, 5);
  comm.nRanks = 144;
  comm.nNodes = 36;  // trays without MNNVL, but NCCL says two NVLink domains
  comm.nvl = NvlDomainInfo{2, 72, 72};
  s = scopeOf(comm);
  EXPECT_EQ(s.nNodes, 36u);
  EXPECT_EQ(s.nvlDomains, 2);
  EXPECT_EQ(s.minRanksPerDomain, 72);
  comm.nvl = NvlDomainInfo{0, 0, 0};  // nothing known: as without the info
  EXPECT_EQ(scopeOf(comm).nvlDomains, 36);
}

TEST(TunerRulesFile, DetectsTheFormatFromContent) {
  EXPECT_EQ(detectRulesFormat(" \r\n\t{"), RulesFormat::RailtuneJson);
  EXPECT_EQ(detectRulesFormat("\xEF\xBB\xBF{"), RulesFormat::RailtuneJson);
  EXPECT_EQ(detectRulesFormat("# {\n"), RulesFormat::NcclCsv);
  EXPECT_EQ(detectRulesFormat(""), RulesFormat::NcclCsv);
  EXPECT_TRUE(readRules("allreduce,0,1,ring,ll,-1,-1,-1\n", "x").ok());
  EXPECT_TRUE(readRules("{\"schema\": \"railtune.tuner-rules/1\", \"rules\": []}", "x").ok());
}

TEST(TunerRulesFile, ReadsFilesAndReportsUnreadableOnes) {
  const std::string ncclConf = railtune::testing::sharedDataPath("tuner/nccl_tuner.conf");  // NCCL's own example
  if (railtune::testing::sharedDataPresent(ncclConf)) {
    const RulesResult conf = readRulesFile(ncclConf);
    EXPECT_TRUE(conf.ok()) << conf.describeErrors();
    EXPECT_EQ(conf.ruleSet.rules.size(), 9u);
  }
  const RulesResult example = readRulesFile(RAILTUNE_TUNER_RULES_EXAMPLE);
  EXPECT_TRUE(example.ok()) << example.describeErrors();
  const RulesResult missing = readRulesFile("/nonexistent/rules.csv");
  ASSERT_EQ(missing.errors.size(), 1u);
  EXPECT_EQ(missing.errors[0].describe(), "/nonexistent/rules.csv: cannot open: No such file or directory");
  const std::string big = ::testing::TempDir() + "tuner_rules_big.csv";
  {
    std::FILE* f = std::fopen(big.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fseek(f, static_cast<long>(kMaxFileBytes), SEEK_SET);
    std::fputc('\n', f);
    std::fclose(f);
  }
  const RulesResult tooBig = readRulesFile(big);
  std::remove(big.c_str());
  ASSERT_EQ(tooBig.errors.size(), 1u);
  EXPECT_EQ(tooBig.errors[0].message, "larger than 64 MiB");
}

// Each documented example, rule by rule as describeRule prints it, against a committed listing.
void expectGolden(const RulesResult& result, const std::string& name) {
  ASSERT_TRUE(result.ok()) << result.describeErrors();
  std::string listing;
  for (const Rule& rule : result.ruleSet.rules) listing += describeRule(rule) + "\n";
  const std::string path = std::string(RAILTUNE_TUNER_RULES_GOLDEN) + "/" + name;
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << listing;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; run with RAILTUNE_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(listing, readFile(path)) << "regenerate with RAILTUNE_UPDATE_GOLDEN=1 if the change is intended";
}

TEST(TunerRulesGolden, NcclExampleConf) {
  const std::string path = railtune::testing::sharedDataPath("tuner/nccl_tuner.conf");
  if (!railtune::testing::sharedDataPresent(path)) GTEST_SKIP() << path << " is absent";
  expectGolden(readRulesFile(path), "nccl_example_tuner.txt");
}

TEST(TunerRulesGolden, RailtuneJsonExample) {
  expectGolden(readRulesFile(RAILTUNE_TUNER_RULES_EXAMPLE), "tuner-rules.example.txt");
}

}  // namespace
}  // namespace railtune::tuner::rules
