// makeEngine: which engine a new communicator gets from the resolved configuration.
#include "common/log.h"
#include "tuner_plugin/config_report.h"
#include "tuner_plugin/decision_engine.h"
#include "tuner_plugin/engine.h"
#include "tuner_plugin/tuner_config.h"

namespace railtune::tuner {

namespace {

// The model's inputs, from communicator-wide values and the rail map's cluster-wide part. A rail
// map that cannot be read is one WARN per process; the model then uses its documented defaults.
model::ModelInputs modelInputs(const CommInfo& comm, const TunerConfig& config, const CostModelConstants* constants,
                               const Log& log) {
  model::BuildMessages messages;
  if (!config.railMapError.empty()) messages.errors.push_back(config.railMapError);
  model::ModelInputs inputs = model::makeModelInputs(comm, constants, config.railMap.get(), {}, messages);
  for (const std::string& error : messages.errors) {
    if (firstReportOf("RAILTUNE_RAIL_MAP: " + error)) {  // once per process (config_report.h)
      RT_WARN(log, NCCL_INIT | NCCL_TUNING, "RAILTUNE_RAIL_MAP: %s; the cost model uses its defaults", error.c_str());
    } else {
      RT_INFO(log, NCCL_INIT | NCCL_TUNING,
              "RAILTUNE_RAIL_MAP: %s; the cost model uses its defaults (reported at WARN once per process)",
              error.c_str());
    }
  }
  for (const std::string& note : messages.notes) RT_INFO(log, NCCL_INIT | NCCL_TUNING, "model: %s", note.c_str());
  return inputs;
}

}  // namespace

std::unique_ptr<Engine> makeEngine(const CommInfo& comm, const TunerConfig& config, const CostModelConstants* constants,
                                   const Log& log) {
  if (!config.rules && config.model == ModelMode::Off) return std::make_unique<PassThroughEngine>();
  std::optional<model::ModelInputs> inputs;
  if (config.model != ModelMode::Off) inputs = modelInputs(comm, config, constants, log);
  auto engine = std::make_unique<DecisionEngine>(config.rules, std::move(inputs), config.model, comm);
  if (engine->index() && engine->index()->usesLinearScan())
    RT_INFO(log, NCCL_INIT | NCCL_TUNING,
            "%zu rules fit this communicator; their index would exceed its memory budget, so lookups scan them in "
            "order",
            engine->index()->ruleCount());
  return engine;
}

}  // namespace railtune::tuner
