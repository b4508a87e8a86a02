// One key's fit, stages A to D (fit_key.h).
#include "nccl-tests-integration/fit/fit_key.h"

#include <algorithm>

namespace railtune::sweep {
namespace {

// The refinement's parameters: the identified constants, then each correction's time scale.
struct RefineSet {
  std::vector<RefineParameter> parameters;
  std::vector<ncclmodel::ConstId> constants;
};

RefineSet refineSet(const ConstantFit& stageB, const std::vector<Correction>& corrections) {
  RefineSet set;
  for (const ConstantEntry& e : stageB.entries) {
    const double v = ncclmodel::constValue(stageB.constants, e.id);
    if (!e.identified || !(v > 0)) continue;
    set.parameters.push_back({ncclmodel::constName(e.id), v, v / 4, v * 4, {}});
    set.constants.push_back(e.id);
  }
  for (const Correction& c : corrections)
    set.parameters.push_back(
        {"correction " + cellLabel(c.key.cell), c.timeScale, c.timeScale / 2, c.timeScale * 2, {}});
  return set;
}

std::shared_ptr<KeyModel> modelAt(const KeyModel& start, const RefineSet& set, std::span<const double> values) {
  auto model = std::make_shared<KeyModel>(start);
  size_t i = 0;
  for (const ncclmodel::ConstId id : set.constants) ncclmodel::constRef(model->constants, id) = values[i++];
  for (Correction& c : model->corrections) c.timeScale = values[i++];
  return model;
}

// Stage E: each measured shape's own corrections of what the shared fit leaves wrong there (corrections.h).
void addShapeCorrections(const FitPoints& points, const PointMask* mask, const KeyFitOptions& options, KeyFit& fit) {
  if (!options.shapeCorrections) return;
  const std::vector<Correction> own =
      fitShapeCorrections(points, fit.model->shapes->groups, mask, predictorOf(points, fit.model), fit.corrections);
  if (own.empty()) return;
  auto model = std::make_shared<KeyModel>(*fit.model);
  model->corrections.insert(model->corrections.end(), own.begin(), own.end());
  fit.corrections = model->corrections;
  fit.model = model;
}

}  // namespace

KeyFit fitKey(const FitPoints& points, std::shared_ptr<const KeyShapes> shapes, const PointMask* mask,
              const formats::CostModelConstants& defaults, const KeyFitOptions& options) {
  KeyFit fit;
  std::vector<CellLine> lines = fitCellLines(points, mask);
  std::erase_if(lines, [&](const CellLine& l) { return !shapes->models[l.group]; });
  fit.lines = lines.size();
  fit.poorLines =
      static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [](const CellLine& l) { return l.line.poor; }));
  fit.stageB = fitConstants(points, *shapes, lines, defaults);
  const TimePredictor stageB = constantsPredictor(points, shapes, fit.stageB.constants);
  CorrectionOptions correctionOptions;
  correctionOptions.minRegretGain = options.minCorrectionGain;
  fit.corrections = fitCorrections(points, mask, stageB, correctionOptions);
  KeyModel start{shapes, fit.stageB.constants, fit.corrections};
  fit.model = std::make_shared<const KeyModel>(start);
  const RefineSet set = refineSet(fit.stageB, fit.corrections);
  if (!options.refine || set.parameters.empty()) {
    addShapeCorrections(points, mask, options, fit);
    return fit;
  }
  const std::vector<PointRef> at = keyPoints(points, *shapes, mask);
  const ModelOf modelOf = [&](std::span<const double> values) {
    return predictorOf(points, modelAt(start, set, values));
  };
  fit.refined = refine(points, at, set.parameters, modelOf, options.refineOptions);
  if (fit.refined.moved) {
    std::shared_ptr<KeyModel> moved = modelAt(start, set, fit.refined.values);
    fit.corrections = moved->corrections;
    fit.model = moved;
  }
  addShapeCorrections(points, mask, options, fit);
  return fit;
}

}  // namespace railtune::sweep
