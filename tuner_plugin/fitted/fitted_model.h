// The fitted model (RAILTUNE_TUNER_MODEL_FILE, `railtune.tuner-model/1`) as one communicator uses it. Whether a
// fit applies is decided once, at init, from communicator-wide inputs only (architecture rule 2): the GPU model
// and fabric the rail map states (never NVML or the host name), NCCL's scale bucket from nNodes, the tuner ABI
// NCCL bound (which says the NCCL release, coarsely) and the fit's verdict for that bucket. What applies:
//  - tuner v5/v6: the fit's identified constants, written into NCCL's (NCCL costs every collective of the
//    communicator with them, init.cc:1638-1644@v2.30.7), and its corrections of the cost-table cells the
//    constants cannot express;
//  - tuner v3/v4 (no constants): the fit's table transform composed with its corrections, an approximation
//    (NCCL before 2.28 is not emulated);
//  - tuner v2 (no cost table): nothing.
// The per-cell affine maps are a fixed array built here, so getCollInfo allocates nothing.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "formats/tuner_model/tuner_model.h"
#include "tuner_plugin/engine.h"

namespace railtune::formats {
struct RailMap;
}

namespace railtune::tuner::fitted {

using formats::tuner_model::Fit;
using formats::tuner_model::TunerModel;

// t' = max(kMinCostUs, scale * t + addUs) for one (collective, algorithm, protocol) cell.
struct CellAffine {
  float scale = 1.0f;
  float addUs = 0.0f;
  bool set = false;
};
inline constexpr float kMinCostUs = 1e-3f;  // a corrected cost stays a cost: never 0 (a rule's mark) or IGNORE

class CellCorrections {
 public:
  // Every cell of `table` NCCL left available (cost >= 0) whose entry is set; IGNORE cells never change.
  void apply(Collective c, CostTableView table) const;
  CellAffine& at(Collective c, Algorithm a, Protocol p) {
    return cells_[static_cast<size_t>(c)][static_cast<size_t>(a)][static_cast<size_t>(p)];
  }
  int count() const;  // cells with an entry

 private:
  std::array<std::array<std::array<CellAffine, kNumProtocols>, kNumAlgorithms>, kNumCollectives> cells_{};
};

// The fit one communicator applies.
struct FitPlan {
  std::shared_ptr<const TunerModel> model;  // keeps `fit` alive
  const Fit* fit = nullptr;
  bool writeConstants = false;  // tuner v5/v6
  CellCorrections cells;
  std::string summary;  // for the init line: what applies and how much
};

// What coverage decided: a plan, or why nothing applies (`reason`, naming the file, the fit's GPU and fabric
// and this communicator's).
struct Coverage {
  std::optional<FitPlan> plan;
  std::string reason;
};

struct FitInputs {
  std::shared_ptr<const TunerModel> model;
  std::string modelPath;
  const formats::RailMap* railMap = nullptr;  // null: none, or unusable
  std::string railMapPath;
};

// Decides which fit of the file applies to `comm`, and builds its plan.
Coverage coverage(const FitInputs& inputs, const CommInfo& comm);

// The plan of `fit` for `comm` (coverage decided it applies).
FitPlan planOf(const FitInputs& inputs, const Fit& fit, const CommInfo& comm);

// The fit's identified constants written into `constants` (v5/v6); returns how many were written. Never
// hwLatencies[NET][Ring][Simple]: NCCL 2.30's symmetric kernels read it as the GPU-initiated network's latency
// (sym_kernels.cc:197@v2.30.7), which no fit validates, so NCCL's value stays even where the fit identified one.
int writeFittedConstants(const Fit& fit, CostModelConstants& constants);

// "NVIDIA GB300/IB InfiniBand 800G": a fit's GPU and fabric, as messages name them.
std::string fitLabel(const Fit& fit);

}  // namespace railtune::tuner::fitted
