// The fitted-model file (formats/tuner_model): the writer's output of the sample model is the documented example
// (RAILTUNE_UPDATE_GOLDEN=1 rewrites it), the reader gives back what was written, and files are read only when
// they are regular files of at most 4 MiB.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "formats/tuner_model/tuner_model.h"
#include "tests/support/file_text.h"
#include "tests/unit/formats/tuner_model_sample.h"

namespace railtune::formats::tuner_model {
namespace {

using testing::sampleModel;

const std::string kExample = RAILTUNE_TUNER_MODEL_EXAMPLE;

TEST(TunerModelFile, TheExampleIsTheWritersOutputOfTheSampleModel) {
  const std::string written = writeTunerModel(sampleModel());
  if (std::getenv("RAILTUNE_UPDATE_GOLDEN") != nullptr) std::ofstream(kExample, std::ios::binary) << written;
  EXPECT_EQ(written, railtune::testing::readFile(kExample)) << "RAILTUNE_UPDATE_GOLDEN=1 rewrites " << kExample;
}

TEST(TunerModelFile, ReadsBackWhatWasWritten) {
  const TunerModel model = parseTunerModel(writeTunerModel(sampleModel()), "model.json");
  ASSERT_EQ(model.fits.size(), 1u);
  const Fit& fit = model.fits[0];
  EXPECT_EQ(model.created, "2026-12-06T16:00:00Z");
  EXPECT_EQ(fit.appliesTo.gpu, "NVIDIA GB300");
  EXPECT_EQ(fit.appliesTo.generation, Generation::Blackwell);
  EXPECT_EQ(fit.appliesTo.fabric.linkLayer, "InfiniBand");
  EXPECT_EQ(fit.appliesTo.fabric.nicGbps, 800.0);
  EXPECT_EQ(fit.appliesTo.nccl, (std::vector<std::string>{"2.28", "2.30"}));
  EXPECT_EQ(fit.basis.nccl, NcclRelease::V2_30);
  EXPECT_EQ(fit.data.shapes.at(2).maxBytes, 8589934592u);
  EXPECT_EQ(fit.data.datasets.at(1).digest, "fnv1a64:0f1e2d3c4b5a6978");
  const int ring = static_cast<int>(Algorithm::Ring);
  EXPECT_EQ(fit.constants.baseLatencyUs[ring][1]->value, 9.5);
  EXPECT_FALSE(fit.constants.baseLatencyUs[ring][0]->value) << "an unidentified constant carries no value";
  EXPECT_EQ(fit.constants.baseLatencyUs[ring][0]->nccl, 6.6);
  EXPECT_FALSE(fit.constants.baseLatencyUs[0][0]) << "a constant the fit did not list stays absent";
  EXPECT_EQ(fit.constants.hwLatencyUs[0][ring][1]->value, 1.1);
  EXPECT_EQ(fit.constants.llMaxBwGbps[1]->cpu, CpuRow::NotAmd);
  EXPECT_FALSE(fit.constants.llMaxBwGbps[0]->cpu);
  EXPECT_EQ(fit.constants.perChannelMaxGbps[static_cast<int>(CapArray::RingLL128)][0]->value, 28.0);
  ASSERT_EQ(fit.corrections.size(), 3u);
  EXPECT_FALSE(fit.corrections[0].collective);
  EXPECT_EQ(fit.corrections[2].shape, (CommShape{8, 1}));
  EXPECT_EQ(fit.corrections[1].timeAddUs, -1.5);
  EXPECT_EQ(fit.validation.leaveOneSizeOut.worstAt->bytes, 4194304u);
  EXPECT_EQ(fit.validation.heldOutShapes.size(), 1u);
  EXPECT_TRUE(fit.usable[0].usable);
  EXPECT_FALSE(fit.usable[2].usable);
  EXPECT_EQ(writeTunerModel(model), writeTunerModel(sampleModel())) << "the same bytes a second time";
}

TEST(TunerModelFile, AModelWithNothingOptionalRoundTrips) {
  TunerModel model = sampleModel();
  Fit& fit = model.fits[0];
  fit.appliesTo.fabric = {"nvlink", std::nullopt, std::nullopt};
  fit.basis.profile.reset();
  fit.constants = Constants{};
  fit.corrections.clear();
  fit.tableTransform.clear();
  fit.validation.status = ValidationStatus::Skipped;
  fit.validation.inSample = fit.validation.leaveOneSizeOut = fit.validation.leaveOneShapeOut = RegretStats{};
  fit.validation.heldOutShapes.clear();
  fit.usable[0] = {false, "not validated", false, {}, 0, 0};
  model.notes.clear();
  const std::string text = writeTunerModel(model);
  EXPECT_EQ(text.find("link_layer"), std::string::npos);
  EXPECT_EQ(text.find("\"profile\""), std::string::npos);
  EXPECT_EQ(writeTunerModel(parseTunerModel(text, "model.json")), text);
}

TEST(TunerModelFile, TheWriterRefusesWhatTheReaderWouldRefuse) {
  TunerModel model = sampleModel();
  model.fits[0].constants.baseLatencyUs[1][1]->value = std::nan("");
  try {
    writeTunerModel(model);
    FAIL() << "a NaN latency was written";
  } catch (const TunerModelError& e) {
    EXPECT_NE(std::string(e.what()).find("fits[0].constants.base_latency_us.ring/ll128.value"), std::string::npos)
        << e.what();
  }
  model = sampleModel();
  model.fits[0].usable[1].usable = true;
  model.fits[0].validation.status = ValidationStatus::Truncated;
  EXPECT_THROW(writeTunerModel(model), TunerModelError);
}

TEST(TunerModelFile, ACollectivesOwnEntryWinsOverTheWildcard) {
  const Fit fit = sampleModel().fits[0];
  const auto* own =
      cellEntry(fit.tableTransform, Collective::AllReduce, Algorithm::Ring, Protocol::Simple, Scale::OneNode);
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->timeAddUs, -0.4);
  const auto* any =
      cellEntry(fit.tableTransform, Collective::AllGather, Algorithm::Ring, Protocol::LL128, Scale::OneNode);
  ASSERT_NE(any, nullptr);
  EXPECT_EQ(any->timeScale, 0.71);
  EXPECT_EQ(cellEntry(fit.tableTransform, Collective::AllGather, Algorithm::Ring, Protocol::Simple, Scale::OneNode),
            nullptr);
  EXPECT_EQ(cellEntry(fit.corrections, Collective::AllReduce, Algorithm::Ring, Protocol::Simple, Scale::TwoNodes),
            nullptr);
}

// Exactly the constants with a value move, each to the row NCCL reads for it; the others stay NCCL's.
TEST(TunerModelFile, OnlyIdentifiedConstantsAreWrittenAtNcclsRows) {
  TunerModel model = sampleModel();
  Fit& fit = model.fits[0];
  LlConstant amd;
  static_cast<Constant&>(amd) = testing::fitted(19.0, 17.0);
  amd.cpu = CpuRow::AmdOrMixed;
  fit.constants.llMaxBwGbps[2] = amd;
  const CostModelConstants defaults = ncclDefaultConstants(NcclRelease::V2_30);
  CostModelConstants c = defaults;
  applyFittedConstants(fit, &c);
  const auto* before = reinterpret_cast<const double*>(&defaults);
  const auto* after = reinterpret_cast<const double*>(&c);
  size_t changed = 0;
  for (size_t i = 0; i < sizeof c / sizeof(double); ++i) changed += before[i] != after[i];
  EXPECT_EQ(changed, 9u) << "2 base and 4 NVLink latencies, 2 llMaxBws and 1 cap have values";
  const int ring = static_cast<int>(Algorithm::Ring), nvls = static_cast<int>(Algorithm::Nvls);
  EXPECT_EQ(c.baseLatencies[ring][1], 9.5);
  EXPECT_EQ(c.baseLatencies[ring][0], 6.6) << "no value: NCCL's";
  EXPECT_EQ(c.hwLatencies[0][nvls][2], 17.5);
  EXPECT_EQ(c.hwLatencies[2][ring][2], 14.0);
  EXPECT_EQ(c.llMaxBws[3][0], 250.0) << "one node: the Blackwell row";
  EXPECT_EQ(c.llMaxBws[1][2], 17.0) << "4 nodes: the AMD row, not Blackwell's";
  EXPECT_EQ(c.llMaxBws[3][2], defaults.llMaxBws[3][2]);
  EXPECT_EQ(c.perChMaxRingLL128Bws[3][0], 28.0);
  EXPECT_EQ(c.perChMaxRingLL128Bws[2][0], defaults.perChMaxRingLL128Bws[2][0]) << "Hopper's row untouched";
}

TEST(TunerModelFile, NamesAndScalesAreNccls) {
  EXPECT_EQ(scaleOfNodes(1), Scale::OneNode);
  EXPECT_EQ(scaleOfNodes(2), Scale::TwoNodes);
  EXPECT_EQ(scaleOfNodes(3), Scale::FourNodes) << "tuning.cc:267@v2.30.7: index2 = nNodes <= 2 ? nNodes-1 : 2";
  Generation g{};
  EXPECT_TRUE(generationFromName("hopper", &g));
  EXPECT_EQ(static_cast<int>(g), 2);
  EXPECT_FALSE(generationFromName("3", &g)) << "rows are named, never numbered";
  EXPECT_EQ(ncclDefaultLlMaxBw(NcclRelease::V2_30, Generation::Blackwell, Scale::OneNode, std::nullopt), 282.0);
  EXPECT_EQ(ncclDefaultLlMaxBw(NcclRelease::V2_30, Generation::Blackwell, Scale::FourNodes, CpuRow::NotAmd), 20.4);
  EXPECT_EQ(ncclDefaultPerChannelMax(NcclRelease::V2_28, Generation::Blackwell, CapArray::RingLL128, Scale::TwoNodes),
            34.6);
  EXPECT_EQ(ncclDefaultPerChannelMax(NcclRelease::V2_30, Generation::Blackwell, CapArray::RingLL128, Scale::TwoNodes),
            40.0);
}

class TunerModelFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tuner_model_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string errorOf(const std::string& path) {
    try {
      readTunerModelFile(path);
    } catch (const TunerModelError& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(TunerModelFiles, ReadsARegularFile) {
  const std::string path = (dir_ / "model.json").string();
  std::ofstream(path) << writeTunerModel(sampleModel());
  EXPECT_EQ(readTunerModelFile(path).fits.size(), 1u);
}

TEST_F(TunerModelFiles, RefusesAFileOver4MiB) {
  const std::string path = (dir_ / "big.json").string();
  std::string text = writeTunerModel(sampleModel());
  text.insert(text.size() - 1, std::string(kMaxFileBytes, ' '));  // valid JSON, one byte too many and more
  std::ofstream(path) << text;
  EXPECT_EQ(errorOf(path), path + ": larger than 4 MiB");
}

TEST_F(TunerModelFiles, RefusesADirectoryAFifoAndNothing) {
  const std::string directory = (dir_ / "model.json").string();
  std::filesystem::create_directories(directory);
  EXPECT_EQ(errorOf(directory), directory + ": is a directory, not a regular file");
  const std::string fifo = (dir_ / "fifo.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(errorOf(fifo), fifo + ": is a FIFO, not a regular file") << "and it did not block";
  const std::string missing = (dir_ / "missing.json").string();
  EXPECT_EQ(errorOf(missing), missing + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace railtune::formats::tuner_model
