// makeEngine: which engine a new communicator gets from the resolved configuration.
#include "tuner_plugin/engine.h"
#include "tuner_plugin/rules_engine.h"
#include "tuner_plugin/tuner_config.h"

namespace railtune::tuner {

std::unique_ptr<Engine> makeEngine(const CommInfo& comm, const TunerConfig& config, const Log& log) {
  if (!config.rules) return std::make_unique<PassThroughEngine>();
  auto engine = std::make_unique<RulesEngine>(config.rules, comm);
  if (engine->index().usesLinearScan())
    RT_INFO(log, NCCL_INIT | NCCL_TUNING,
            "%zu rules fit this communicator; their index would exceed its memory budget, "
            "so lookups scan them in order",
            engine->index().ruleCount());
  return engine;
}

}  // namespace railtune::tuner
