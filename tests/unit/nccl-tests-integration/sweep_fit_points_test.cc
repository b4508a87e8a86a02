// The fit's stage 0 (nccl-tests-integration/fit/points.h): dataset rows into points, per group of one GPU, with
// medians of time and busbw, distinct runs, NCCL default's busbw, and every row left out counted by why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/fit/points.h"

namespace railtune::sweep {
namespace {

const Shape kEight{8, 2, 1, 1, 8, {}, {}, {}};

DatasetRow row(const char* algorithm, const char* protocol, uint64_t size, double timeOut, double timeIn, double busbw,
               const char* gpu = "NVIDIA GB300") {
  DatasetRow r;
  r.source = "runs/a.txt";
  r.collective = "allreduce";
  r.size = size;
  r.choice.algorithm = algorithm;
  r.choice.protocol = protocol;
  r.shape = kEight;
  r.gpu = gpu;
  r.shape.gpu = gpu;  // as the parser writes a row: the device line's name in both
  r.outOfPlace.timeUs = timeOut;
  r.inPlace.timeUs = timeIn;
  r.outOfPlace.busbwGBps = busbw;
  r.inPlace.busbwGBps = busbw * 1.01;
  return r;
}

TEST(SweepFitPoints, MediansRunsAndTheDefaultPerGroupSizeAndCell) {
  PointsBuilder builder;
  builder.add(row("ring", "ll128", 1024, 10, 11, 40));
  DatasetRow second = row("ring", "ll128", 1024, 30, 12, 20);
  second.run = 1;  // another run of the same output
  builder.add(second);
  builder.add(row("", "", 1024, 9, 9, 50));
  builder.add(row("tree", "simple", 2048, 20, 20, 60));
  const FitPoints points = builder.finish();
  ASSERT_EQ(points.groups.size(), 1u);
  const GroupPoints& g = points.groups[0];
  EXPECT_EQ(g.collective, formats::Collective::AllReduce);
  ASSERT_EQ(g.sizes.size(), 2u);
  const CellPoint* ll128 = g.sizes[0].find(Cell{formats::Algorithm::Ring, formats::Protocol::LL128});
  ASSERT_NE(ll128, nullptr);
  EXPECT_DOUBLE_EQ(ll128->timeUs, 11.5);  // median of 10, 11, 12, 30
  EXPECT_DOUBLE_EQ(ll128->busbw, (20.2 + 40) / 2);
  EXPECT_EQ(ll128->samples, 4u);
  EXPECT_EQ(ll128->runs, 2u);  // the two halves of a row are one run
  EXPECT_EQ(g.sizes[0].defaultBusbw, (50 + 50.5) / 2);
  EXPECT_EQ(g.sizes[0].defaultRuns, 1u);
  EXPECT_FALSE(g.sizes[1].defaultBusbw.has_value());
  EXPECT_EQ(g.sizes[1].cells.size(), 1u);
  EXPECT_EQ(cellLabel(g.sizes[1].cells[0].cell), "tree/simple");
  EXPECT_EQ(points.counts.rowsUsed, 4u);
}

TEST(SweepFitPoints, TheGpuSplitsGroupsOfOneShape) {
  PointsBuilder builder;
  builder.add(row("ring", "simple", 1024, 10, 10, 40, "NVIDIA H100 80GB HBM3"));
  builder.add(row("ring", "simple", 1024, 10, 10, 40, "NVIDIA H200"));
  builder.add(row("ring", "simple", 2048, 12, 12, 40, "NVIDIA H100 80GB HBM3"));
  const FitPoints points = builder.finish();
  ASSERT_EQ(points.groups.size(), 2u);
  EXPECT_EQ(points.groups[0].key.gpu(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(points.groups[0].sizes.size(), 2u);
  EXPECT_EQ(points.groups[1].key.gpu(), "NVIDIA H200");
  const auto byKey = points.groupsByFitKey();
  EXPECT_EQ(byKey.size(), 2u);
  EXPECT_NE(points.groups[1].key.label().find("NVIDIA H200"), std::string::npos) << points.groups[1].key.label();
}

TEST(SweepFitPoints, RowsNcclsModelDoesNotCoverAreCountedNeverUsed) {
  PointsBuilder builder;
  DatasetRow channels = row("ring", "simple", 1024, 10, 10, 40);
  channels.choice.channels = 16;
  builder.add(channels);
  builder.add(row("ring", "", 1024, 10, 10, 40));  // the protocol left to NCCL: no cell
  builder.add(row("collnet_direct", "simple", 1024, 10, 10, 40));
  DatasetRow wrong = row("ring", "simple", 1024, 10, 10, 40);
  wrong.valid = false;
  builder.add(wrong);
  DatasetRow unusable = row("ring", "simple", 1024, 10, 10, 40);
  unusable.choice.unusable = "NCCL_ALGO=Ring,Tree names 2 algorithms";
  builder.add(unusable);
  DatasetRow noShape = row("ring", "simple", 1024, 10, 10, 40);
  noShape.shape = Shape{};
  builder.add(noShape);
  DatasetRow noTime = row("ring", "simple", 1024, 10, 10, 40);
  noTime.outOfPlace.timeUs.reset();
  noTime.inPlace.timeUs.reset();
  builder.add(noTime);
  DatasetRow alltoall = row("", "", 1024, 10, 10, 40);
  alltoall.collective = "alltoall";
  builder.add(alltoall);
  const FitPoints points = builder.finish();
  const PointCounts& c = points.counts;
  EXPECT_EQ(c.rowsRead, 8u);
  EXPECT_EQ(c.rowsNoTime, 1u);
  EXPECT_EQ(c.rowsForcedChannelsOrChunk, 1u);
  EXPECT_EQ(c.rowsPartialChoice, 1u);
  EXPECT_EQ(c.rowsNotModelled, 1u);
  EXPECT_EQ(c.rowsWrong, 1u);
  EXPECT_EQ(c.rowsUnusable, 1u);
  EXPECT_EQ(c.rowsNoShape, 1u);
  EXPECT_EQ(c.rowsUsed, 1u);
  ASSERT_EQ(points.groups.size(), 1u);
  EXPECT_FALSE(points.groups[0].collective.has_value());  // alltoall: NCCL's model does not cost it
}

TEST(SweepFitPoints, OneNetworkSettingIsFittedAndTheOthersCounted) {
  const NetEnv arSplit = {{"NCCL_IB_ADAPTIVE_ROUTING", "1"}, {"NCCL_IB_SPLIT_DATA_ON_QPS", "1"}};
  DatasetRow measured = row("ring", "simple", 1024, 10, 10, 40);
  measured.netEnv = arSplit;
  PointsBuilder none;  // by default the rows of no --env setting, as `sweep rules` makes its rules
  none.add(row("ring", "simple", 1024, 10, 10, 40));
  none.add(measured);
  const FitPoints noSetting = none.finish();
  EXPECT_EQ(noSetting.counts.rowsUsed, 1u);
  EXPECT_EQ(noSetting.counts.rowsOtherNetEnv, 1u);
  EXPECT_EQ(pointCountsText(noSetting.counts),
            "1 of 2 rows used; left out: 1 of another network setting (--net-env-rows)");
  PointsBuilder chosen(arSplit);
  chosen.add(row("ring", "simple", 1024, 10, 10, 40));
  chosen.add(measured);
  const FitPoints setting = chosen.finish();
  EXPECT_EQ(setting.counts.rowsUsed, 1u);
  EXPECT_EQ(setting.counts.rowsOtherNetEnv, 1u);
  ASSERT_EQ(setting.groups.size(), 1u);
  EXPECT_EQ(setting.groups[0].key.group.netEnv, arSplit);
  EXPECT_EQ(pointCountsText(PointCounts{}), "0 of 0 rows used");
}

TEST(SweepFitPoints, DatasetsAreReadAsTheRulesReadThem) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "sweep_fit_points";
  std::filesystem::create_directories(dir);
  std::string text;
  for (int i = 0; i < 3; ++i) appendDatasetRow(row("ring", "ll", 1024u << i, 5.0 + i, 5.0 + i, 1.0 + i), text);
  DatasetSource source;
  source.source = "runs/a.txt";
  source.badRows = 2;
  appendDatasetSource(source, text);
  text += "not json\n";
  std::ofstream(dir / "d.jsonl") << text;
  std::vector<std::string> warnings;
  const FitPoints points =
      readFitPoints({(dir / "d.jsonl").string()}, 10, [&](std::string_view w) { warnings.emplace_back(w); });
  ASSERT_EQ(points.groups.size(), 1u);
  EXPECT_EQ(points.groups[0].sizes.size(), 3u);
  EXPECT_EQ(points.counts.rowsBadInOutputs, 2u);
  EXPECT_EQ(warnings.size(), 2u);  // the dropped rows, the line skipped
  std::ofstream(dir / "empty.jsonl") << "";
  EXPECT_THROW(readFitPoints({(dir / "empty.jsonl").string()}, 10, [](std::string_view) {}), std::runtime_error);
}

TEST(SweepFitPoints, MasksKeepEveryPointOrNone) {
  PointsBuilder builder;
  builder.add(row("ring", "simple", 1024, 10, 10, 40));
  builder.add(row("ring", "simple", 2048, 12, 12, 40));
  const FitPoints points = builder.finish();
  EXPECT_TRUE(PointMask::all(points).keeps(0, 1));
  EXPECT_FALSE(PointMask::none(points).keeps(0, 0));
}

}  // namespace
}  // namespace railtune::sweep
