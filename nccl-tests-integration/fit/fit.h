// `railtune sweep fit` (issue 30 items 1 and 3): NCCL's own cost model, as the emulator reproduces it, fitted to
// sweeps, one fit per GPU model and fabric (fit/group_key.h), into the model file railtune.tuner-model/1
// (formats/tuner_model). Per fit key: stage A's measured lines, stage B's constants, stage C's corrections,
// stage D's refinement (fit_key.h), then the validation and the verdict per scale bucket (validate.h). Groups the
// emulator cannot model are left out, each with a note: NCCL decides there.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "formats/tuner_model/tuner_model.h"
#include "nccl-tests-integration/fit/to_file.h"

namespace railtune::sweep {

struct FitOptions {
  ncclmodel::NcclVersion nccl = ncclmodel::NcclVersion::V2_30;
  std::optional<std::string> profile;  // else each GPU's built-in profile
  std::string gpu;                     // only this GPU's groups ("" every GPU)
  std::string fabric;                  // only this transport's fit keys ("" every fabric)
  NetEnv netEnv;                       // the network setting whose rows are fitted (none: no --env setting)
  double sizeTarget = 0.05, shapeTarget = 0.10;
  double maxSeconds = 25;  // the whole fit's budget; validation splits not started by then are not run
  bool validate = true;
  unsigned threads = 0;
  size_t maxWarnings = 20;
  std::function<void(std::string_view)> warn;  // the datasets' warnings
  std::string generatedBy = "railtune sweep fit";
  KeyFitOptions fit;  // the full fit's; the refits use the same with at most 5 refinement sweeps
};

// One key's fit with what `sweep fit` prints of it.
struct KeyFitReport {
  FitKey key;
  std::shared_ptr<const KeyShapes> shapes;
  KeyFit fit;
  KeyValidation validation;
  std::array<BucketVerdict, kScaleBuckets> verdicts;
};

struct FitResult {
  formats::tuner_model::TunerModel model;  // one fit per key that could be fitted
  std::vector<KeyFitReport> keys;          // in the model's order
  std::vector<std::string> skipped;        // groups and keys not fitted, and why
  std::vector<std::string> notes;          // what else a reader of the fit must know (shared constants, ...)
  PointCounts counts;
};

// Fits points already read (FitResult.model's fits then have no datasets). `points` must outlive the call only.
FitResult fitPoints(const FitPoints& points, const FitOptions& options);
// Reads the datasets (as `sweep rules` does) and fits; each fit records the files it used (path, digest, rows).
// Throws on a file that cannot be read.
FitResult fitDatasets(const std::vector<std::string>& paths, const FitOptions& options);

// The fitted model's pick among the measured cells at one size of a communicator (NCCL's cost table at the fit's
// constants with its corrections, argmin over the measured cells the model offers); nullopt when none is. A
// correction keyed by a shape applies only at that shape (the model's nRanks and nNodes), as in the tuner. The
// fit's verdict is not consulted: callers that follow the tuner check tm::verdictApplies first.
std::optional<Cell> predictPick(const formats::tuner_model::Fit& fit, const ncclmodel::ShapeModel& model,
                                formats::Collective collective, uint64_t bytes, const std::set<Cell>& measured);

}  // namespace railtune::sweep
