// The whole fit (nccl-tests-integration/fit/fit.h) scored against injected truth (eval/fit/fit_truth.h, the
// generator `railtune eval fit` scores it with over many seeds): NCCL 2.30's GB300 constants perturbed, a Ring/Simple
// correction no constant expresses, noise and misspecification. The fit must pick within the targets at held-out sizes
// (leave one size out ≤ 5 %) and at a held-out shape (4 and 8 ranks → 16: ≤ 10 %), beat NCCL default's regret, and call
// a truth it cannot express not usable.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "emulator/nccl_model/graph_data.h"
#include "eval/fit/fit_truth.h"
#include "nccl-tests-integration/fit/fit.h"
#include "nccl-tests-integration/fit/report.h"

namespace railtune::sweep {
namespace {

using namespace eval::fit_truth;
using ncclmodel::ConstId;

Truth perturbed(unsigned seed) {
  Truth t;
  t.seed = seed;
  const auto ring = formats::Algorithm::Ring;
  ncclmodel::constRef(t.constants, ncclmodel::hwLatencyId(ncclmodel::HwLink::Nvlink, ring, formats::Protocol::LL128)) =
      1.1;                                                                                        // NCCL's 1.9
  ncclmodel::constRef(t.constants, ncclmodel::capId(ncclmodel::CapArray::RingLL128, 3, 0)) = 28;  // NCCL's 40
  t.ringSimpleScale = 0.9;
  return t;
}

FitOptions options() {
  FitOptions o;
  o.maxSeconds = 600;  // never truncated here: the verdict is about the fit, not the machine
  o.threads = 2;
  return o;
}

void print(const char* name, const FitResult& r) {
  std::printf("--- %s\n%s", name, renderFitReport(r).c_str());
}

double constantOf(const FitResult& r, ConstId id) {
  return ncclmodel::constValue(r.keys.at(0).fit.model->constants, id);
}

// Seeds 1..6 of 4, 8 and 16 ranks on one NVLink domain. Held-out sizes and the final fit between the measured sizes:
// within 5 % for every seed. Held-out shape: the ±5 % graph error is drawn per shape and cell, so at a held-out shape
// two cells within ~10 % of each other may swap, which nothing fitted on the other shapes can know; over seeds 1..12
// all are within 10 % today (worst 4.6 %; three were not before the corrections had to earn their place). Asserted:
// every verdict says which, and most seeds are within.
TEST(SweepFitTruth, OneDomainWithinTargetsAndBetterThanNcclDefault) {
  const ConstId hwRingLL128 =
      ncclmodel::hwLatencyId(ncclmodel::HwLink::Nvlink, formats::Algorithm::Ring, formats::Protocol::LL128);
  const ConstId ringLL128Cap = ncclmodel::capId(ncclmodel::CapArray::RingLL128, 3, 0);
  int shapeWithin = 0;
  for (const unsigned seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    const FitPoints points = render(perturbed(seed), {{4, 1}, {8, 1}, {16, 1}});
    const FitResult r = fitPoints(points, options());
    if (seed == 1) print("one domain, seed 1", r);
    ASSERT_EQ(r.keys.size(), 1u);
    const KeyValidation& v = r.keys[0].validation;
    ASSERT_TRUE(v.ran && !v.truncated);
    EXPECT_NEAR(constantOf(r, hwRingLL128), 1.1, 0.11) << "seed " << seed;
    EXPECT_NEAR(constantOf(r, ringLL128Cap), 28, 2.8) << "seed " << seed;
    ASSERT_GT(v.sizeOut.merged.model.points, 0u);
    EXPECT_LE(v.sizeOut.merged.model.worst, 0.05) << "seed " << seed;
    EXPECT_LT(v.inSample.model.mean, v.inSample.ncclDefault.mean) << "seed " << seed;
    EXPECT_LT(v.inSample.model.worst, v.inSample.ncclDefault.worst) << "seed " << seed;
    ASSERT_GT(v.shapeOut.merged.model.points, 0u);
    const bool within = v.shapeOut.merged.model.worst <= 0.10;
    shapeWithin += within ? 1 : 0;
    std::printf("seed %u: leave one shape out worst %.1f %% (NCCL default %.1f %%)\n", seed,
                v.shapeOut.merged.model.worst * 100, v.shapeOut.merged.ncclDefault.worst * 100);
    ASSERT_GT(v.betweenSizes.merged.model.points, 0u);
    const bool betweenWithin = v.betweenSizes.merged.model.worst <= 0.6 * 0.05;  // an estimate: validate.cc's bar
    EXPECT_EQ(r.keys[0].verdicts[0].usable, within && betweenWithin && v.sizeOut.merged.model.worst <= 0.05)
        << r.keys[0].verdicts[0].why;
    EXPECT_EQ(r.model.fits.at(0).usable[0].usable, r.keys[0].verdicts[0].usable);
    if (r.keys[0].verdicts[0].usable) {  // within the measured rank range only: 4 to 16, not 72 ranks of the rack
      EXPECT_EQ(r.model.fits.at(0).usable[0].minRanks, 4);
      EXPECT_EQ(r.model.fits.at(0).usable[0].maxRanks, 16);
      EXPECT_TRUE(formats::tuner_model::verdictApplies(r.model.fits.at(0).usable[0], {12, 1}));
      EXPECT_FALSE(formats::tuner_model::verdictApplies(r.model.fits.at(0).usable[0], {72, 1}));
    }
    EXPECT_FALSE(r.keys[0].verdicts[1].usable);  // no data at 2 nodes
    EXPECT_NO_THROW(formats::tuner_model::parseTunerModel(formats::tuner_model::writeTunerModel(r.model), "fit"));
  }
  EXPECT_GE(shapeWithin, 5);
}

TEST(SweepFitTruth, NvlsSlowerAtMidSizesOnlyIsNotUsable) {
  Truth t = perturbed(4);
  t.extra = [](Cell c, uint64_t bytes) {
    return c.algorithm == formats::Algorithm::Nvls && bytes >= (256u << 10) && bytes <= (16u << 20) ? 1.4 : 1.0;
  };
  const FitPoints points = render(t, {{4, 1}, {8, 1}, {16, 1}});
  const FitResult r = fitPoints(points, options());
  print("NVLS 40 % slower at mid sizes", r);
  ASSERT_EQ(r.keys.size(), 1u);
  EXPECT_FALSE(r.keys[0].verdicts[0].usable) << r.keys[0].verdicts[0].why;
  // Its held-out sizes have slow neighbours and pass; a held-out shape does not: the measured shapes only.
  const KeyValidation& v = r.keys[0].validation;
  EXPECT_EQ(r.keys[0].verdicts[0].measuredShapesUsable,
            v.sizeOut.byScale[0].model.worst <= 0.05 && v.shapeOut.byScale[0].model.worst > 0.10)
      << r.keys[0].verdicts[0].why;
}

TEST(SweepFitTruth, NoValidateIsNotUsable) {
  const FitPoints points = render(perturbed(5), {{4, 1}, {8, 1}});
  FitOptions o = options();
  o.validate = false;
  const FitResult r = fitPoints(points, o);
  ASSERT_EQ(r.model.fits.size(), 1u);
  EXPECT_EQ(r.model.fits[0].validation.status, formats::tuner_model::ValidationStatus::Skipped);
  for (const auto& verdict : r.model.fits[0].usable) EXPECT_FALSE(verdict.usable);
}

TEST(SweepFitTruth, AGroupWithoutProfileOrGraphIsSkippedWithANote) {
  FitPoints points = render(perturbed(6), {{4, 1}, {8, 1}});
  GroupPoints h200 = points.groups[0];
  h200.key.group.shape.gpu = "NVIDIA H200";
  points.groups.push_back(h200);
  const FitResult r = fitPoints(points, options());
  ASSERT_EQ(r.model.fits.size(), 1u);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].find("no hardware profile models GPU 'NVIDIA H200'"), std::string::npos) << r.skipped[0];
  EXPECT_NE(r.skipped[0].find("NCCL decides"), std::string::npos);
}

TEST(SweepFitTruth, NvlDomainsOneTwoFourReported) {
  const FitPoints points = render(perturbed(7), {{72, 1}, {144, 2}, {288, 4}});
  const FitResult r = fitPoints(points, options());
  print("1, 2 and 4 NVLink domains of 72", r);
  ASSERT_EQ(r.keys.size(), 1u);
  const KeyValidation& v = r.keys[0].validation;
  EXPECT_TRUE(v.ran);
  EXPECT_GT(v.shapeOut.merged.model.points, 0u);
  EXPECT_EQ(r.model.fits.at(0).validation.heldOutShapes.size(), 2u);
  // Across domains the network latencies enter, but never the one NCCL's symmetric kernels read too
  // (sym_kernels.cc:197@v2.30.7): the tuner never writes it, so the fit keeps NCCL's value.
  const ConstId symmetric =
      ncclmodel::hwLatencyId(ncclmodel::HwLink::Net, formats::Algorithm::Ring, formats::Protocol::Simple);
  bool anyNet = false;
  for (const ConstantEntry& e : r.keys[0].fit.stageB.entries) {
    EXPECT_NE(e.id, symmetric);
    anyNet = anyNet || std::string(ncclmodel::constName(e.id)).find("[NET]") != std::string::npos;
  }
  EXPECT_TRUE(anyNet);
  EXPECT_EQ(constantOf(r, symmetric),
            ncclmodel::constValue(formats::ncclDefaultConstants(formats::NcclRelease::V2_30), symmetric));
}

// What `sweep compare --fitted` and the file's readers see (the written file's constants and corrections on NCCL's
// model, predictPick) picks as the fit itself scored: the file carries the whole fitted model.
TEST(SweepFitTruth, TheFilesPicksAreTheFitsOwn) {
  const FitPoints points = render(perturbed(8), {{4, 1}, {8, 1}, {16, 1}});
  const FitResult r = fitPoints(points, options());
  ASSERT_EQ(r.model.fits.size(), 1u);
  const formats::tuner_model::TunerModel read =
      formats::tuner_model::parseTunerModel(formats::tuner_model::writeTunerModel(r.model), "fit");
  const TimePredictor own = predictorOf(points, r.keys[0].fit.model);
  size_t compared = 0;
  for (const PointRef ref : allPoints(points)) {
    const GroupPoints& g = points.groups[ref.group];
    const ncclmodel::CommShape comm{g.key.group.shape.ranks, g.key.group.shape.nodes};
    const ncclmodel::ShapeModel model(
        ncclmodel::NcclVersion::V2_30, comm,
        ncclmodel::builtinGraphData("gb300-nvl72").shapeFor(comm).factsFor(ncclmodel::NcclVersion::V2_30));
    std::set<Cell> measured;
    for (const CellPoint& c : g.sizes[ref.size].cells) measured.insert(c.cell);
    const std::optional<Cell> fromFile =
        predictPick(read.fits[0], model, formats::Collective::AllReduce, g.sizes[ref.size].bytes, measured);
    EXPECT_EQ(fromFile, pickAt(points, ref, own).pick) << pointLabel(points, ref);
    ++compared;
  }
  EXPECT_EQ(compared, 33u);
}

}  // namespace
}  // namespace railtune::sweep
