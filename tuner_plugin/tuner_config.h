// The tuner's configuration, resolved once per file: which rules (RAILTUNE_TUNER_CONFIG, else NCCL's
// NCCL_TUNER_CONFIG_FILE), parsed; the model mode (RAILTUNE_TUNER_MODEL); the fitted model
// (RAILTUNE_TUNER_MODEL_FILE), parsed; and the configuration digest over the rules' bytes, the rail
// map's bytes, the decision environment and the fitted model's bytes (architecture rule 2). Communicators are created
// by the thousand in some jobs: a file already parsed is reused while its size and modification time are unchanged, so
// only the first init pays for parsing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tuner_plugin/rules/rule.h"

namespace railtune::formats {
struct RailMap;
namespace tuner_model {
struct TunerModel;
}
}  // namespace railtune::formats

namespace railtune::tuner {

enum class ModelMode { Off, Advise, On };
const char* modelModeName(ModelMode mode);

struct TunerConfig {
  std::string rulesPath;                        // "" = no rules
  const char* rulesVariable;                    // "RAILTUNE_TUNER_CONFIG" or "NCCL_TUNER_CONFIG_FILE" (nullptr = none)
  std::shared_ptr<const rules::RuleSet> rules;  // null = no rules
  std::string railMapPath;                      // RAILTUNE_RAIL_MAP, "" = none
  std::shared_ptr<const formats::RailMap> railMap;  // parsed once per file; null = none or unusable
  std::string railMapError;                         // why a named rail map is unusable, "" = fine
  ModelMode model = ModelMode::Advise;
  std::string tunerModelPath;                                          // RAILTUNE_TUNER_MODEL_FILE, "" = none
  std::shared_ptr<const formats::tuner_model::TunerModel> tunerModel;  // parsed once per file; null = none
  uint64_t digest = 0;
  // "rules FILE (N rules, from VAR), rail map FILE, model advise, fitted model FILE, digest HEX"
  std::string describe() const;
};

// Throws std::runtime_error naming the variable, file and line of the first problems (a bad value,
// an unreadable or malformed file); the boundary turns that into its one WARN and pass-through.
TunerConfig loadTunerConfig();

// Drops every cached rules file, rail map and fitted model (tests change files under the same name).
void clearTunerConfigCache();

}  // namespace railtune::tuner
