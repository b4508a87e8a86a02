// One key's fit as the model file's `Fit` (formats/tuner_model/tuner_model.h): what it applies to, the data it was
// fitted on, the constants beside NCCL's (a value only where the data identified it), the corrections with the
// tuning.cc line that has no constant for them, the same as a transform of NCCL's cost table for tuners without
// constants, the validation and the verdict per scale.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "formats/tuner_model/tuner_model.h"
#include "nccl-tests-integration/fit/validate.h"

namespace railtune::sweep {

formats::NcclRelease releaseOf(ncclmodel::NcclVersion v);
formats::tuner_model::Generation generationOf(int minCompCap);  // 100+ Blackwell, 90+ Hopper, 80+ Ampere

struct KeyFitRecord {
  FitKey key;
  const KeyShapes* shapes = nullptr;
  const KeyFit* fit = nullptr;
  const KeyValidation* validation = nullptr;
  std::array<BucketVerdict, kScaleBuckets> verdicts;
  double sizeTarget = 0.05, shapeTarget = 0.10;
};

// Everything but data.datasets (the caller knows the files).
formats::tuner_model::Fit toFileFit(const FitPoints& points, const KeyFitRecord& record);

// Why NCCL's formula needs a correction for this cell: the tuning.cc line with no constant for it.
std::string correctionWhy(Cell cell);
// A shape's own correction's why: the measured shape, what it gained, and the line with no constant for it.
std::string shapeCorrectionWhy(const Correction& c);

}  // namespace railtune::sweep
