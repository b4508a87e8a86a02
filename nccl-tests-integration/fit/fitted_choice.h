// `sweep compare --fitted MODEL.json`: the fitted model's pick per group and size of a sweep, among the cells
// measured there (predictPick, fit.h), as compare's model column scores it (regret beside NCCL default's). The fit
// is the model file's entry for the group's GPU and fabric (transport, link layer and NIC speed, as the tuner's
// coverage matches them); a group no fit covers, or whose shape has no graph data in the fit's profile, has no pick
// and gets a note, and so does a group at a scale the fit is not usable at (the tuner leaves NCCL's choice there).
// The pick is the emulated NCCL's at the fitted constants and corrections; tests/e2e/fitted_pick_test.cc holds it
// equal to the tuner plugin's with the same file (RAILTUNE_TUNER_MODEL_FILE).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/tuner_model/tuner_model.h"
#include "nccl-tests-integration/fit/fit.h"

namespace railtune::sweep {

class FittedChooser {
 public:
  FittedChooser(const formats::tuner_model::TunerModel& model, const Aggregate& sweep);
  std::optional<Choice> pick(const GroupKey& group, uint64_t size);
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct GroupModel {
    const formats::tuner_model::Fit* fit = nullptr;
    std::optional<ncclmodel::ShapeModel> shape;
    std::optional<formats::Collective> collective;
  };
  const GroupModel& groupModel(const GroupKey& group);

  const formats::tuner_model::TunerModel& model_;
  const Aggregate& sweep_;
  std::map<GroupKey, GroupModel> groups_;
  std::vector<std::string> notes_;
};

}  // namespace railtune::sweep
