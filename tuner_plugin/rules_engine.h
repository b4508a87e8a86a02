// The engine of a communicator with rules: the first rule that fits the communicator and the call,
// and whose cell NCCL left enabled, becomes NCCL's pick (its cell set to 0, as NCCL's example tuner
// does); its channel count, when it names one, is returned; otherwise NCCL's own choice stands.
#pragma once

#include <memory>

#include "tuner_plugin/engine.h"
#include "tuner_plugin/rules/rule_index.h"

namespace railtune::tuner {

class RulesEngine final : public Engine {
 public:
  RulesEngine(std::shared_ptr<const rules::RuleSet> rules, const CommInfo& comm);
  const char* name() const override { return "rules"; }
  void tuneConstants(CostModelConstants&) override {}
  void decide(const CollQuery& query, CostTableView table, CollDecision& decision) override;
  // v6: the chunk size of the first rule that fits the call and names NCCL's chosen cell. The chunk
  // query carries neither numPipeOps nor regBuff, so rules keyed on them are matched as for a
  // single-operation call without registered buffers.
  std::optional<size_t> chunkSize(const ChunkQuery& query) override;
  const rules::RuleIndex& index() const { return index_; }

 private:
  std::shared_ptr<const rules::RuleSet> rules_;  // the index copies what it needs; kept for reasons
  rules::RuleIndex index_;
};

}  // namespace railtune::tuner
