// The engine of a communicator with rules, a fitted model or a cost model. A fitted model that covers the
// communicator (fitted/fitted_model.h) first writes its constants into NCCL's at init (v5/v6) and corrects
// the cost of the cells NCCL enabled on every call, so NCCL's own pick follows the fit; then, first that
// applies wins:
//  1. the first rule that fits the communicator and the call, and whose cell NCCL left enabled,
//     becomes NCCL's pick (its cell set to 0, as NCCL's example tuner does), with its channels;
//  2. the cost model (subordinate to a fit: where one applies, `on` only advises): with RAILTUNE_TUNER_MODEL=on its
//  cheapest enabled cell becomes NCCL's pick;
//     with `advise` NCCL's choice stands and the advice is recorded where it differs, per collective
//     and power-of-two size, for the summary logged when the communicator is destroyed;
//  3. otherwise NCCL's own choice stands: table and nChannels untouched.
// decide() allocates nothing, takes no lock and does no I/O; the record is a fixed array.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "tuner_plugin/engine.h"
#include "tuner_plugin/fitted/fitted_model.h"
#include "tuner_plugin/model/model_inputs.h"
#include "tuner_plugin/rules/rule_index.h"
#include "tuner_plugin/tuner_config.h"

namespace railtune::tuner {

class DecisionEngine final : public Engine {
 public:
  // `rules` may be null (no rules); `model` absent = RAILTUNE_TUNER_MODEL=off; `fit` absent = no fit applies.
  DecisionEngine(std::shared_ptr<const rules::RuleSet> rules, std::optional<model::ModelInputs> model, ModelMode mode,
                 const CommInfo& comm, std::optional<fitted::FitPlan> fit = std::nullopt);
  const char* name() const override { return name_; }
  // Without a fit NCCL's constants stay NCCL's (docs/tuning.md); with one, its identified constants (v5/v6).
  void tuneConstants(CostModelConstants& constants) override;
  void decide(const CollQuery& query, CostTableView table, CollDecision& decision) override;
  // v6: the chunk size of the first rule that fits the call and names NCCL's chosen cell. The chunk
  // query carries neither numPipeOps nor regBuff, so rules keyed on them are matched as for a
  // single-operation call without registered buffers.
  std::optional<size_t> chunkSize(const ChunkQuery& query) override;
  std::string summary() const override;

  const rules::RuleIndex* index() const { return index_ ? &*index_ : nullptr; }
  const fitted::FitPlan* fit() const { return fit_ ? &*fit_ : nullptr; }

 private:
  static constexpr int kSizeBuckets = 64;  // log2(nBytes)
  // One recorded advice: NCCL's pick and the model's, packed (algorithm * 3 + protocol), + 1 so 0 = none.
  struct Advice {
    std::atomic<uint8_t> nccl{0}, model{0};
  };
  void advise(const CollQuery& query, CostTableView table);

  std::shared_ptr<const rules::RuleSet> rules_;
  std::optional<rules::RuleIndex> index_;
  std::optional<model::ModelInputs> model_;
  std::optional<fitted::FitPlan> fit_;
  ModelMode mode_;
  const char* name_;
  std::array<std::array<Advice, kSizeBuckets>, kNumCollectives> advice_{};
};

}  // namespace railtune::tuner
