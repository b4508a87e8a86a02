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

// The fit that covers this communicator, if any. Why none does is the same for every communicator of the
// process that meets it: WARN once per process, INFO after (config_report.h).
std::optional<fitted::FitPlan> fitPlan(const CommInfo& comm, const TunerConfig& config, const Log& log) {
  if (!config.tunerModel) return std::nullopt;
  fitted::Coverage covered =
      fitted::coverage({config.tunerModel, config.tunerModelPath, config.railMap.get(), config.railMapPath}, comm);
  if (covered.plan) {
    RT_INFO(log, NCCL_INIT | NCCL_TUNING, "RAILTUNE_TUNER_MODEL_FILE=%s: %s", config.tunerModelPath.c_str(),
            covered.plan->summary.c_str());
  } else if (firstReportOf(covered.reason)) {
    RT_WARN(log, NCCL_INIT | NCCL_TUNING, "%s", covered.reason.c_str());
  } else {
    RT_INFO(log, NCCL_INIT | NCCL_TUNING, "%s (reported at WARN once per process)", covered.reason.c_str());
  }
  return std::move(covered.plan);
}

}  // namespace

std::unique_ptr<Engine> makeEngine(const CommInfo& comm, const TunerConfig& config, const CostModelConstants* constants,
                                   const Log& log) {
  std::optional<fitted::FitPlan> fit = fitPlan(comm, config, log);
  if (!config.rules && config.model == ModelMode::Off && !fit) return std::make_unique<PassThroughEngine>();
  std::optional<model::ModelInputs> inputs;
  if (config.model != ModelMode::Off) inputs = modelInputs(comm, config, constants, log);
  auto engine = std::make_unique<DecisionEngine>(config.rules, std::move(inputs), config.model, comm, std::move(fit));
  if (engine->index() && engine->index()->usesLinearScan())
    RT_INFO(log, NCCL_INIT | NCCL_TUNING,
            "%zu rules fit this communicator; their index would exceed its memory budget, so lookups scan them in "
            "order",
            engine->index()->ruleCount());
  return engine;
}

}  // namespace railtune::tuner
