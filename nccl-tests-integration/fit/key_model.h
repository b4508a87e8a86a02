// What `sweep fit` fits for one fit key (fit/group_key.h): NCCL's cost model as the emulator reproduces it
// (emulator/nccl_model/terms.h ShapeModel, one per group, from the GPU's hardware profile and its graph data for
// the group's shape), at a set of constants, with the stage-C corrections on top. A group the emulator cannot
// model (no profile for its GPU, no graph data for its shape, a collective NCCL's model does not cost, a fabric
// the profile does not describe) is left out with a note naming why: NCCL decides there.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "emulator/nccl_model/terms.h"
#include "nccl-tests-integration/fit/corrections.h"
#include "nccl-tests-integration/fit/points.h"

namespace railtune::sweep {

// The emulated shapes of a key's groups, indexed like FitPoints::groups (nullopt outside the key or skipped).
struct KeyShapes {
  ncclmodel::NcclVersion version = ncclmodel::NcclVersion::V2_30;
  std::string profile;         // the hardware profile used ("gb300-nvl72"); "" when no group could be modelled
  int minCompCap = 0;          // of the profile's graphs: the generation row of the caps
  std::vector<size_t> groups;  // the key's groups that are modelled, by index
  std::vector<std::optional<ncclmodel::ShapeModel>> models;
  std::vector<std::string> skipped;  // one note per group left out
};

// profile: the user's (--profile), else the GPU's built-in one (profileForGpu).
KeyShapes buildKeyShapes(const FitPoints& points, std::span<const size_t> groups, ncclmodel::NcclVersion version,
                         const std::optional<std::string>& profile);

// One candidate model: the constants and the corrections over the key's shapes.
struct KeyModel {
  std::shared_ptr<const KeyShapes> shapes;
  formats::CostModelConstants constants{};
  std::vector<Correction> corrections;
};

// The model's predicted time (µs) of a cell at a size; nullopt where NCCL's model does not offer the cell. The
// predictor holds the model (shared) and refers to points, which must outlive it.
TimePredictor predictorOf(const FitPoints& points, std::shared_ptr<const KeyModel> model);
// The stage-B model alone (no corrections): what the corrections are fitted against.
TimePredictor constantsPredictor(const FitPoints& points, std::shared_ptr<const KeyShapes> shapes,
                                 const formats::CostModelConstants& c);

// The key's points as regret.h indexes them, over the modelled groups (mask: only those it keeps).
std::vector<PointRef> keyPoints(const FitPoints& points, const KeyShapes& shapes, const PointMask* mask = nullptr);

}  // namespace railtune::sweep
