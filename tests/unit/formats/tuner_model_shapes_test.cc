// The fitted-model file's shape keys: a correction or a table-transform entry keyed by a communicator's exact
// shape (nRanks, nNodes), and a scale's verdict usable only at the measured shapes. Files written before those keys
// still read (no shape: every communicator of the scale; no measured_shapes_usable: false); a bad key is refused
// with its path.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "formats/tuner_model/tuner_model.h"
#include "tests/unit/formats/tuner_model_sample.h"

namespace railtune::formats::tuner_model {
namespace {

std::string refusal(const std::string& text) {
  return testing::errorOf(text);
}

std::string replaced(const std::string& base, const std::string& from, const std::string& to) {
  return testing::replacedIn(base, from, to);
}

TunerModel measuredShapesModel() {
  TunerModel model = testing::sampleModel();
  model.fits[0].usable[0] = {false, "leave-one-shape-out worst 14.2 % > 10.0 %", true, {{8, 1}, {16, 1}}, 0, 0};
  return model;
}

TEST(TunerModelShapes, AShapeKeyedEntryAndAMeasuredShapesVerdictRoundTrip) {
  const std::string text = writeTunerModel(measuredShapesModel());
  EXPECT_NE(text.find("\"shape\": {\"ranks\": 8, \"nodes\": 1}"), std::string::npos) << "on the entry's one line";
  const Fit fit = parseTunerModel(text, "model.json").fits[0];
  ASSERT_EQ(fit.corrections.size(), 3u);
  EXPECT_EQ(fit.corrections[2].shape, (CommShape{8, 1}));
  EXPECT_FALSE(fit.corrections[0].shape);
  EXPECT_EQ(fit.tableTransform.at(2).shape, (CommShape{8, 1}));
  EXPECT_FALSE(fit.usable[0].usable);
  EXPECT_TRUE(fit.usable[0].measuredShapesUsable);
  EXPECT_EQ(fit.usable[0].shapes, (std::vector<CommShape>{{8, 1}, {16, 1}}));
  EXPECT_FALSE(fit.usable[1].measuredShapesUsable);
  EXPECT_EQ(writeTunerModel(parseTunerModel(text, "model.json")), text);
}

TEST(TunerModelShapes, AFileWrittenBeforeTheShapeKeysStillReads) {
  TunerModel before = testing::sampleModel();
  std::erase_if(before.fits[0].corrections, [](const Correction& c) { return c.shape.has_value(); });
  std::erase_if(before.fits[0].tableTransform, [](const CellAffine& e) { return e.shape.has_value(); });
  std::string text = writeTunerModel(before);
  // Every measured_shapes_usable removed: the file as it was written before the key.
  const std::string key = ", \"measured_shapes_usable\": false";
  for (size_t at; (at = text.find(key)) != std::string::npos;) text.erase(at, key.size());
  ASSERT_EQ(text.find("shape\": {"), std::string::npos);
  const std::string error = refusal(text);
  ASSERT_EQ(error, "") << error;
  const Fit fit = parseTunerModel(text, "old.json").fits[0];
  for (const Correction& c : fit.corrections) EXPECT_FALSE(c.shape);
  EXPECT_TRUE(fit.usable[0].usable);
  EXPECT_FALSE(fit.usable[0].measuredShapesUsable);
  EXPECT_TRUE(fit.usable[0].shapes.empty());
}

TEST(TunerModelShapes, BadShapeKeysAreRefusedWithTheirPath) {
  const std::string good = writeTunerModel(measuredShapesModel());
  const std::string shape = "\"shape\": {\"ranks\": 8, \"nodes\": 1}";
  const auto refused = [&](const std::string& to, const std::string& says) {
    const std::string error = refusal(replaced(good, shape, to));
    EXPECT_NE(error.find(says), std::string::npos) << to << ": " << error;
  };
  refused("\"shape\": {\"ranks\": 8, \"nodes\": 2}",
          "field 'fits[0].corrections[2].shape': 2 nodes are not in scale 1node");
  refused("\"shape\": {\"ranks\": 0, \"nodes\": 1}", "field 'fits[0].corrections[2].shape.ranks': expected an integer");
  refused("\"shape\": {\"ranks\": 8}", "field 'fits[0].corrections[2].shape.nodes': missing");
  refused("\"shape\": {\"ranks\": 8, \"nodes\": 1, \"gpus\": 8}", "field 'fits[0].corrections[2].shape.gpus': unknown");
  refused("\"shape\": [8, 1]", "field 'fits[0].corrections[2].shape': expected an object");
  refused("\"shape\": {\"ranks\": \"8\", \"nodes\": 1}", "field 'fits[0].corrections[2].shape.ranks'");
  // Two entries for one cell, scale and shape; the same cell at another shape is another entry.
  TunerModel model = measuredShapesModel();
  model.fits[0].corrections.push_back(model.fits[0].corrections[2]);
  EXPECT_THROW(writeTunerModel(model), TunerModelError);
  model.fits[0].corrections.back().shape = CommShape{16, 1};
  EXPECT_NO_THROW(writeTunerModel(model));
}

TEST(TunerModelShapes, BadMeasuredShapesVerdictsAreRefusedWithTheirPath) {
  const std::string good = writeTunerModel(measuredShapesModel());
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& says) {
    const std::string error = refusal(replaced(good, from, to));
    EXPECT_NE(error.find(says), std::string::npos) << to << ": " << error;
  };
  refused("\"measured_shapes_usable\": true", "\"measured_shapes_usable\": 1",
          "field 'fits[0].usable.1node.measured_shapes_usable': expected true or false");
  refused("\"measured_shapes_usable\": true", "\"measured_shapes_usable\": false",
          "field 'fits[0].usable.1node.shapes': listed without measured_shapes_usable true");
  refused("{\"ranks\": 16, \"nodes\": 1}", "{\"ranks\": 8, \"nodes\": 1}",
          "field 'fits[0].usable.1node.shapes[1]': listed twice");
  refused("{\"ranks\": 16, \"nodes\": 1}", "{\"ranks\": 16, \"nodes\": 4}",
          "field 'fits[0].usable.1node.shapes[1]': 4 nodes are not in scale 1node");
  // measured_shapes_usable true with usable true, with no shapes, and with a validation that did not complete.
  TunerModel model = measuredShapesModel();
  model.fits[0].usable[0].usable = true;
  try {
    writeTunerModel(model);
    ADD_FAILURE() << "usable and measured_shapes_usable both true was written";
  } catch (const TunerModelError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'fits[0].usable.1node.measured_shapes_usable': true with usable true"),
              std::string::npos)
        << e.what();
  }
  model = measuredShapesModel();
  model.fits[0].usable[0].shapes.clear();
  EXPECT_THROW(writeTunerModel(model), TunerModelError);
  model = measuredShapesModel();
  model.fits[0].validation.status = ValidationStatus::Truncated;
  EXPECT_THROW(writeTunerModel(model), TunerModelError);
}

// A usable verdict applies within the rank counts measured at its scale (leaving one shape out checks a shape
// beside the measured ones, never one far past them); without the key, as written before it, at any.
TEST(TunerModelShapes, AUsableVerdictAppliesWithinItsMeasuredRankRange) {
  TunerModel model = testing::sampleModel();
  model.fits[0].usable[0] = {true, "within targets; applies from 4 to 16 ranks", false, {}, 4, 16};
  const std::string text = writeTunerModel(model);
  EXPECT_NE(text.find("\"ranks\": {\"min\": 4, \"max\": 16}"), std::string::npos) << text;
  const Verdict v = parseTunerModel(text, "model.json").fits[0].usable[0];
  EXPECT_EQ(v.minRanks, 4);
  EXPECT_EQ(v.maxRanks, 16);
  EXPECT_EQ(writeTunerModel(parseTunerModel(text, "model.json")), text);
  for (const auto& [ranks, applies] :
       std::vector<std::pair<int, bool>>{{2, false}, {4, true}, {12, true}, {16, true}, {32, false}, {72, false}})
    EXPECT_EQ(verdictApplies(v, {ranks, 1}), applies) << ranks << " ranks";
  EXPECT_TRUE(verdictApplies(Verdict{true, "written before the range", false, {}, 0, 0}, {72, 1}));
  EXPECT_FALSE(verdictApplies(Verdict{false, "not usable", false, {}, 4, 16}, {8, 1}));

  const std::string range = "\"ranks\": {\"min\": 4, \"max\": 16}";
  const auto refused = [&](const std::string& to, const std::string& says) {
    const std::string error = refusal(replaced(text, range, to));
    EXPECT_NE(error.find(says), std::string::npos) << to << ": " << error;
  };
  refused("\"ranks\": {\"min\": 16, \"max\": 4}", "field 'fits[0].usable.1node.ranks': min above max");
  refused("\"ranks\": {\"min\": 4}", "field 'fits[0].usable.1node.ranks.max': missing");
  refused("\"ranks\": {\"min\": 0, \"max\": 16}", "field 'fits[0].usable.1node.ranks.min'");
  refused("\"ranks\": {\"min\": 4, \"max\": 16, \"nodes\": 1}", "field 'fits[0].usable.1node.ranks.nodes': unknown");
  const std::string notUsable = replaced(text, "\"usable\": true", "\"usable\": false");
  const std::string error = refusal(notUsable);
  EXPECT_NE(error.find("field 'fits[0].usable.1node.ranks': given without usable true"), std::string::npos) << error;
}

TEST(TunerModelShapes, TheMostSpecificEntryWinsAndAnotherShapesNeverApplies) {
  const Fit fit = testing::sampleModel().fits[0];
  const CommShape eight{8, 1}, sixteen{16, 1};
  const auto* at8 =
      cellEntry(fit.corrections, Collective::AllReduce, Algorithm::Ring, Protocol::LL128, Scale::OneNode, &eight);
  ASSERT_NE(at8, nullptr);
  EXPECT_EQ(at8->timeScale, 1.2);
  EXPECT_EQ(
      cellEntry(fit.corrections, Collective::AllReduce, Algorithm::Ring, Protocol::LL128, Scale::OneNode, &sixteen),
      nullptr);
  EXPECT_EQ(cellEntry(fit.corrections, Collective::AllReduce, Algorithm::Ring, Protocol::LL128, Scale::OneNode),
            nullptr)
      << "no shape given: a shape's entry never applies";
  // The table transform at 8 ranks: the shape's "*" entry beats the scale's; at 16 the scale's applies.
  EXPECT_EQ(
      cellEntry(fit.tableTransform, Collective::AllGather, Algorithm::Ring, Protocol::LL128, Scale::OneNode, &eight)
          ->timeScale,
      0.85);
  EXPECT_EQ(
      cellEntry(fit.tableTransform, Collective::AllGather, Algorithm::Ring, Protocol::LL128, Scale::OneNode, &sixteen)
          ->timeScale,
      0.71);
  Verdict v{false, "", true, {eight}};
  EXPECT_TRUE(verdictApplies(v, eight));
  EXPECT_FALSE(verdictApplies(v, sixteen));
  EXPECT_TRUE(verdictApplies({true, "", false, {}}, sixteen));
  EXPECT_FALSE(verdictApplies({false, "", false, {}}, eight));
}

}  // namespace
}  // namespace railtune::formats::tuner_model
