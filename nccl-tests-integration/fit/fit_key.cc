// One key's fit, stages A to D (fit_key.h).
#include "nccl-tests-integration/fit/fit_key.h"

#include <algorithm>

namespace railtune::sweep {
namespace {

struct RefineSet {
  std::vector<RefineParameter> parameters;
  std::vector<ncclmodel::ConstId> constants;
};

// The refinement's parameters: the identified constants (when asked), then each correction's time scale, at
// their values in `from`.
RefineSet refineSet(const ConstantFit& stageB, const KeyModel& from, bool constants) {
  RefineSet set;
  for (const ConstantEntry& e : stageB.entries) {
    const double v = ncclmodel::constValue(from.constants, e.id);
    if (!constants || !e.identified || !(v > 0)) continue;
    set.parameters.push_back({ncclmodel::constName(e.id), v, v / 4, v * 4, {}});
    set.constants.push_back(e.id);
  }
  for (const Correction& c : from.corrections)
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

// One pass of stage D from `from`; the model it moved to, or null (no parameter, or the start kept).
std::shared_ptr<KeyModel> refineFrom(const FitPoints& points, std::span<const PointRef> at, const ConstantFit& stageB,
                                     const KeyModel& from, bool constants, const RefineOptions& options,
                                     RefineResult& result) {
  const RefineSet set = refineSet(stageB, from, constants);
  if (set.parameters.empty()) return nullptr;
  const ModelOf modelOf = [&](std::span<const double> values) {
    return predictorOf(points, modelAt(from, set, values));
  };
  result = refine(points, at, set.parameters, modelOf, options);
  return result.moved ? modelAt(from, set, result.values) : nullptr;
}

// Stage D in two passes: the corrections' scales alone first, as a misspecified cell's own correction is the knob
// for it; then, only where a pick above the ties is still wrong, the identified constants too. A constant stage B
// identified is pinned by its cells' lines: moved to mend a pick another cell spoils, it lands 10-25 % off the
// truth (eval fit --kind ll-decay --seed 1: the Ring/LL128 cap 24.0 -> 19.0, stage B 24.03, to offset LL's decay).
void refineKey(const FitPoints& points, const PointMask* mask, const KeyFitOptions& options, KeyFit& fit) {
  const std::vector<PointRef> at = keyPoints(points, *fit.model->shapes, mask);
  RefineResult first;
  if (auto moved = refineFrom(points, at, fit.stageB, *fit.model, false, options.refineOptions, first))
    fit.model = moved, fit.corrections = moved->corrections;
  fit.refined = first;
  const RegretScore& now = first.moved ? first.after : first.before;
  if (!options.refineConstants || (first.sweeps > 0 && !(now.model.worst > options.refineOptions.tieRegret))) return;
  RefineResult second;
  if (auto moved = refineFrom(points, at, fit.stageB, *fit.model, true, options.refineOptions, second)) {
    fit.model = moved, fit.corrections = moved->corrections;
    second.before = first.sweeps > 0 ? first.before : second.before;
    second.sweeps += first.sweeps;
    fit.refined = second;
  }
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
  fit.model = std::make_shared<const KeyModel>(KeyModel{shapes, fit.stageB.constants, fit.corrections});
  if (options.refine) refineKey(points, mask, options, fit);
  addShapeCorrections(points, mask, options, fit);
  return fit;
}

}  // namespace railtune::sweep
