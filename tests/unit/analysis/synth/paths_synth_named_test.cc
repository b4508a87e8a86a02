// Offenders named exactly (`railtune paths synth --late`, analysis/synth/offenders.h): parsed from
// LEVEL:INDEX:DELAY_US[:SHARE], placed on the ranks of their rank, tray or rack, late by exactly their
// delay in every k-th collective; and every way to name one wrongly is a SynthError saying which.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "analysis/synth/offenders.h"
#include "analysis/synth/placement.h"
#include "analysis/synth/rail_map_source.h"

namespace railtune::analysis::synth {
namespace {

JobPlacement sixtyFourRanks() {  // 4 racks x 4 trays x 4 GPUs
  static const formats::RailMap map = loadRailMap(RAILTUNE_SYNTH_DATA "/four-small-racks.yaml", "");
  return placeJob(map, 64, true);
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const SynthError& e) {
    return e.what();
  }
  return "";
}

TEST(PathsSynthNamed, ParsesEachLevelWithAndWithoutAShare) {
  const NamedOffender rank = parseNamedOffender("rank:5:1500");
  EXPECT_EQ(rank.level, OffenderLevel::Rank);
  EXPECT_EQ(rank.index, 5);
  EXPECT_EQ(rank.delayNs, 1'500'000);
  EXPECT_EQ(rank.share, 1.0);
  const NamedOffender tray = parseNamedOffender("tray:3:120.5:0.25");
  EXPECT_EQ(tray.level, OffenderLevel::Tray);
  EXPECT_EQ(tray.delayNs, 120'500);
  EXPECT_EQ(tray.share, 0.25);
  EXPECT_EQ(parseNamedOffender("rack:2:900:0.5").level, OffenderLevel::Rack);
}

TEST(PathsSynthNamed, MalformedTextIsRefusedWithTheFormExpected) {
  for (const char* text : {"rank:5", "rank:5:1:0.5:9", "gpu:1:100", "rank:x:100", "rank:1:fast", "rank:1:100:half",
                           "rank:1x:100", "rank:1:inf", "rank:1:nan", "rank:1:1e308", "rank:1:-5", ""}) {
    const std::string error = errorOf([&] { parseNamedOffender(text); });
    EXPECT_NE(error.find(std::string("--late ") + text + ": "), std::string::npos) << text << ": " << error;
    EXPECT_NE(error.find("expected LEVEL:INDEX:DELAY_US[:SHARE]"), std::string::npos) << error;
  }
}

TEST(PathsSynthNamed, EachLevelCoversItsRanksAndIsLateInEveryKthCollective) {
  const JobPlacement job = sixtyFourRanks();
  const Offenders o = nameOffenders(job, {{OffenderLevel::Rack, 1, 900'000, 0.5},
                                          {OffenderLevel::Tray, 2, 1'200'000, 0.25},
                                          {OffenderLevel::Rank, 1, 1'500'000, 1.0}});
  ASSERT_EQ(o.list.size(), 3u);
  EXPECT_EQ(o.list[0].ranks.size(), 16u);  // rack 1: ranks 16..31
  EXPECT_EQ(o.list[0].ranks.front(), 16);
  EXPECT_EQ(o.list[1].ranks, (std::vector<int>{8, 9, 10, 11}));  // the third tray
  EXPECT_EQ(o.list[2].ranks, std::vector<int>{1});
  EXPECT_EQ(o.ofRank[20], 0);
  EXPECT_EQ(o.ofRank[9], 1);
  EXPECT_EQ(o.ofRank[0], -1);
  for (uint64_t seq = 0; seq < 8; ++seq) {
    EXPECT_EQ(o.delayNs(1, 0, seq), seq % 2 == 0 ? 900'000 : 0) << seq;
    EXPECT_EQ(o.delayNs(1, 1, seq), seq % 4 == 0 ? 1'200'000 : 0) << seq;
    EXPECT_EQ(o.delayNs(7, 2, seq), 1'500'000) << seq;  // the seed plays no part
  }
}

TEST(PathsSynthNamed, WrongNamesAreRefusedSayingWhich) {
  const JobPlacement job = sixtyFourRanks();
  const auto refused = [&](NamedOffender n) { return errorOf([&] { nameOffenders(job, {n}); }); };
  EXPECT_EQ(refused({OffenderLevel::Rank, 64, 1'000'000, 1.0}),
            "--late rank:64: the job has 64 ranks, numbered from 0");
  EXPECT_EQ(refused({OffenderLevel::Tray, -1, 1'000'000, 1.0}),
            "--late tray:-1: the job has 16 trays, numbered from 0");
  EXPECT_EQ(refused({OffenderLevel::Rack, 4, 1'000'000, 1.0}), "--late rack:4: the job has 4 racks, numbered from 0");
  EXPECT_EQ(refused({OffenderLevel::Rank, 1, 999, 1.0}), "--late rank:1: the delay must be at least 1 us");
  EXPECT_EQ(refused({OffenderLevel::Rank, 1, 1'000'000, 0.0}), "--late rank:1: the share must be in (0, 1]");
  EXPECT_EQ(refused({OffenderLevel::Rank, 1, 1'000'000, 1.5}), "--late rank:1: the share must be in (0, 1]");
  EXPECT_EQ(errorOf([&] {
              nameOffenders(job, {{OffenderLevel::Rack, 0, 1'000'000, 1.0}, {OffenderLevel::Tray, 1, 1'000'000, 1.0}});
            }),
            "--late tray:1: rank 4 is already another offender's");
}

}  // namespace
}  // namespace railtune::analysis::synth
