// The validation of one key's fit (issue 30 item 3): in-sample regret, then refits without one size
// (leave-one-size-out) and without one shape (leave-one-shape-out, splits.h) that predict what they did not see,
// with NCCL default's regret at the same points beside, and the final fit between the measured sizes (midpoints.h);
// and from them the verdict per scale bucket: usable when the held-out sizes' and the in-between sizes' worst regret
// is within the size target and the held-out shapes' within the shape target.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "nccl-tests-integration/fit/fit_key.h"
#include "nccl-tests-integration/fit/midpoints.h"
#include "nccl-tests-integration/fit/splits.h"

namespace railtune::sweep {

struct ValidateOptions {
  bool validate = true;  // false: in-sample only, and no bucket is usable
  double sizeTarget = 0.05, shapeTarget = 0.10;
  unsigned threads = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  KeyFitOptions refit;  // the refits' (fewer refinement sweeps than the full fit)
};

struct KeyValidation {
  bool ran = false, truncated = false;
  RegretScore inSample;
  std::array<RegretScore, kScaleBuckets> inSampleByScale;
  BetweenSizes betweenSizes;  // the final fit at the midpoints of the measured sizes (midpoints.h)
  ValidationScore sizeOut, shapeOut;
  size_t sizeSplits = 0, shapeSplits = 0;
  std::vector<std::string> heldOutShapes;
  std::array<std::vector<CommShape>, kScaleBuckets> measuredShapes;  // the communicator shapes with data, sorted
  // Each split whose worst held-out point is above its target: "8M held out: 28.9 % at allreduce, 8 ranks, ...".
  std::vector<std::string> sizeMisses, shapeMisses;
};

KeyValidation validateKey(const FitPoints& points, std::shared_ptr<const KeyShapes> shapes, const KeyFit& fit,
                          const formats::CostModelConstants& defaults, const ValidateOptions& options);

// usable: everywhere at the scale. measuredShapesUsable: held-out sizes within target, a held-out shape not: the
// fit applies only to a communicator of one of `shapes` (what leave-one-size-out validated), NCCL decides elsewhere.
struct BucketVerdict {
  bool usable = false;
  std::string why;
  bool measuredShapesUsable = false;
  std::vector<CommShape> shapes;
  int minRanks = 0, maxRanks = 0;  // usable: the measured ranks' range it applies within
};
std::array<BucketVerdict, kScaleBuckets> verdicts(const FitPoints& points, const KeyValidation& validation,
                                                  const ValidateOptions& options);

const char* scaleBucketLabel(int bucket);  // "1 node", "2 nodes", "4 or more nodes"

}  // namespace railtune::sweep
