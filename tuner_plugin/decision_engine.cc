#include "tuner_plugin/decision_engine.h"

#include <bit>

#include "tuner_plugin/model/advise.h"

namespace railtune::tuner {
namespace {

const char* engineName(bool rules, ModelMode mode, bool fit) {
  if (fit && mode == ModelMode::Off) return rules ? "fit, then rules" : "fit";
  if (fit) return rules ? "fit, then rules (model advises)" : "fit (model advises)";
  if (mode == ModelMode::Off) return rules ? "rules" : "pass-through";
  if (mode == ModelMode::On) return rules ? "rules, then model" : "model";
  return rules ? "rules (model advises)" : "NCCL (model advises)";
}

// NCCL's own pick from its table: the strictly cheapest enabled cell, algorithms then protocols.
uint8_t ncclPick(const CostTableView& table) {
  float best = -1.0f;
  uint8_t pick = 0;
  for (int a = 0; a < kNumAlgorithms; ++a)
    for (int p = 0; p < kNumProtocols; ++p) {
      const float cost = table.cost(static_cast<Algorithm>(a), static_cast<Protocol>(p));
      if (cost >= 0.0f && (best < 0.0f || cost < best)) {
        best = cost;
        pick = static_cast<uint8_t>(a * kNumProtocols + p + 1);
      }
    }
  return pick;
}

std::string cellName(uint8_t packed) {
  const int cell = packed - 1;
  return std::string(algorithmName(static_cast<Algorithm>(cell / kNumProtocols))) + "/" +
         protocolName(static_cast<Protocol>(cell % kNumProtocols));
}

}  // namespace

DecisionEngine::DecisionEngine(std::shared_ptr<const rules::RuleSet> rules, std::optional<model::ModelInputs> model,
                               ModelMode mode, const CommInfo& comm, std::optional<fitted::FitPlan> fit)
    : rules_(std::move(rules)),
      model_(std::move(model)),
      fit_(std::move(fit)),
      mode_(!model_                         ? ModelMode::Off
            : fit_ && mode == ModelMode::On ? ModelMode::Advise
                                            : mode),
      name_(engineName(rules_ != nullptr, mode_, fit_.has_value())) {
  if (rules_) index_.emplace(*rules_, rules::scopeOf(comm));
}

void DecisionEngine::tuneConstants(CostModelConstants& constants) {
  if (fit_ && fit_->writeConstants) fitted::writeFittedConstants(*fit_->fit, constants);
}

void DecisionEngine::decide(const CollQuery& query, CostTableView table, CollDecision& decision) {
  if (fit_) fit_->cells.apply(query.collective, table);  // NCCL's costs as fitted; a rule below still wins
  if (index_) {
    const rules::Rule* rule =
        index_->lookup(query.collective, query.nBytes, query.numPipeOps, query.registeredBuffers ? 1 : 0,
                       [&table](Algorithm a, Protocol p) { return table.available(a, p); });
    if (rule != nullptr) {
      table.prefer(rule->algorithm, rule->protocol);
      if (rule->channels > 0) decision.nChannels = rule->channels;
      return;
    }
  }
  if (mode_ == ModelMode::Off) return;  // NCCL's table and nChannels stay as they are
  if (mode_ == ModelMode::On) {
    if (const std::optional<model::Advice> advice = model::advise(*model_, query, table))
      table.prefer(advice->algorithm, advice->protocol);
    return;
  }
  advise(query, table);
}

// Advise mode: NCCL decides; the model's pick is recorded once per collective and size bucket, so the
// steady state costs one load. The record is per communicator and read only by summary().
void DecisionEngine::advise(const CollQuery& query, CostTableView table) {
  const int c = static_cast<int>(query.collective);
  const int bucket = query.nBytes == 0 ? 0 : std::bit_width(query.nBytes) - 1;
  Advice& slot = advice_[static_cast<size_t>(c)][static_cast<size_t>(bucket)];
  if (slot.nccl.load(std::memory_order_relaxed) != 0) return;
  const std::optional<model::Advice> advice = model::advise(*model_, query, table);
  if (!advice) return;
  slot.model.store(static_cast<uint8_t>(static_cast<int>(advice->algorithm) * kNumProtocols +
                                        static_cast<int>(advice->protocol) + 1),
                   std::memory_order_relaxed);
  slot.nccl.store(ncclPick(table), std::memory_order_relaxed);
}

std::optional<size_t> DecisionEngine::chunkSize(const ChunkQuery& query) {
  if (!index_) return std::nullopt;
  const rules::Rule* rule = index_->lookup(query.collective, query.nBytes, 1, 0, [&query](Algorithm a, Protocol p) {
    return a == query.algorithm && p == query.protocol;
  });
  if (rule == nullptr || rule->chunkSize == 0) return std::nullopt;
  return static_cast<size_t>(rule->chunkSize);
}

std::string DecisionEngine::summary() const {
  std::string text;
  for (int c = 0; c < kNumCollectives; ++c)
    for (int b = 0; b < kSizeBuckets; ++b) {
      const Advice& slot = advice_[static_cast<size_t>(c)][static_cast<size_t>(b)];
      const uint8_t nccl = slot.nccl.load(std::memory_order_relaxed), ours = slot.model.load(std::memory_order_relaxed);
      if (nccl == 0 || nccl == ours) continue;
      text += std::string(text.empty() ? "" : "; ") + collectiveName(static_cast<Collective>(c)) + " " +
              std::to_string(uint64_t{1} << b) + " B: NCCL " + cellName(nccl) + ", model " + cellName(ours);
    }
  return text;
}

}  // namespace railtune::tuner
