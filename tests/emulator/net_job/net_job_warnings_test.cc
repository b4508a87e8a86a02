// How an emulated job's plugin WARNs are grouped for stderr (emulator/net_job/plugin_warnings.h). The
// job itself, through the real binary, is tests/cli/net_job_warnings.sh.
#include <gtest/gtest.h>

#include "emulator/net_job/plugin_warnings.h"

namespace railtune::emu::netjob {
namespace {

TEST(NetJobWarnings, RankListsCollapseRuns) {
  EXPECT_EQ(rankListText({3}), "rank 3");
  EXPECT_EQ(rankListText({0, 1, 2, 3, 4, 5, 6, 7}), "ranks 0-7");
  EXPECT_EQ(rankListText({0, 1, 2, 5, 9, 10, 11}), "ranks 0-2,5,9-11");
  EXPECT_EQ(rankListText({4, 6}), "ranks 4,6");
}

// Lines equal but for each rank's own pid and record-file tag are one group; the pid inside a longer
// number, or another rank's pid, is not marked.
TEST(NetJobWarnings, AlikeLinesOfSeveralRanksAreOneGroup) {
  const std::vector<PluginWarning> warnings = {
      {0, 101, "1a2b", "WARN w.cc:1 railtune profiler: cannot open d/job-h-101.1a2b.collectives.jsonl: denied"},
      {1, 102, "1a2c", "WARN w.cc:1 railtune profiler: cannot open d/job-h-102.1a2c.collectives.jsonl: denied"},
      {1, 102, "1a2c", "WARN n.cc:9 railtune net: peer pid 101 gone, size 51020"},
      {2, 103, "1a2d", "WARN w.cc:1 railtune profiler: cannot open d/job-h-103.1a2d.collectives.jsonl: denied"},
      {3, 104, "", "WARN n.cc:9 railtune net: peer pid 101 gone, size 51040"},
  };
  const std::vector<WarningGroup> groups = groupPluginWarnings(warnings);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].text, "w.cc:1 railtune profiler: cannot open d/job-h-<pid>.<tag>.collectives.jsonl: denied");
  EXPECT_EQ(groups[0].ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(groups[0].lines, 3);
  EXPECT_EQ(groups[1].text, "n.cc:9 railtune net: peer pid 101 gone, size 51020") << "one rank: shown as logged";
  EXPECT_EQ(groups[2].ranks, (std::vector<int>{3}));
  EXPECT_EQ(formatPluginWarnings(warnings).substr(0, 20), "WARN (ranks 0-2): w.");
  EXPECT_EQ(pluginWarningSummary(warnings), "plugin WARNs: 5 from 4 rank(s), 3 distinct (printed on stderr)\n");
  EXPECT_EQ(pluginWarningSummary({}), "plugin WARNs: none\n");
  EXPECT_EQ(formatPluginWarnings({}), "");
}

// A rank that logs one line twice is one line on stderr, counted twice.
TEST(NetJobWarnings, ARepeatedLineIsPrintedOnce) {
  const std::vector<PluginWarning> warnings = {{5, 9, "", "WARN a.cc:1 x"}, {5, 9, "", "WARN a.cc:1 x"}};
  EXPECT_EQ(formatPluginWarnings(warnings), "WARN (rank 5): a.cc:1 x\n");
  EXPECT_EQ(groupPluginWarnings(warnings).front().lines, 2);
}

}  // namespace
}  // namespace railtune::emu::netjob
