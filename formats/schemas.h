// Every schema string railtune writes or reads, in one place. Each names a file format documented in
// docs/formats.md (with a JSON Schema and a golden example under docs/formats/ where the format is
// JSON). The spellings differ ("railtune.profile.net.v1", "railtune.profile_hangs.v1",
// "railtune.tuner-rules/1") because files with each spelling are already in users' hands: a reader
// matches them exactly, so they are kept as they are, and a new format takes the form
// "railtune.<name>.v<N>".
#pragma once

#include <string_view>

namespace railtune::formats {

// Written by the plugins, read by `railtune paths` and `railtune profile` (JSON lines).
inline constexpr const char* kPathLogSchema = "railtune.path_log.v1";
inline constexpr const char* kCollectivesSchema = "railtune.profile.collectives.v1";
inline constexpr const char* kNetSchema = "railtune.profile.net.v1";
// A file's kind is recognised by these prefixes of its first line's schema, so that a newer version
// ("…v2") is reported as a version this build cannot read rather than as a file of unknown kind.
inline constexpr std::string_view kPathLogFamily = "railtune.path_log.";
inline constexpr std::string_view kCollectivesFamily = "railtune.profile.collectives.";
inline constexpr std::string_view kNetFamily = "railtune.profile.net.";

// Inputs a user writes or generates (RAILTUNE_RAIL_MAP, RAILTUNE_TUNER_CONFIG).
inline constexpr const char* kRailMapSchema = "railtune.rail_map.v1";
inline constexpr const char* kTunerRulesSchema = "railtune.tuner-rules/1";
// Written by `railtune sweep fit`, read by the tuner (RAILTUNE_TUNER_MODEL_FILE) and `sweep compare --fitted`.
inline constexpr const char* kTunerModelSchema = "railtune.tuner-model/1";

// The CLI's JSON outputs.
inline constexpr const char* kPathsCheckSchema = "railtune.paths_check.v1";
inline constexpr const char* kProfileStragglersSchema = "railtune.profile_stragglers.v1";
inline constexpr const char* kProfileHangsSchema = "railtune.profile_hangs.v1";
inline constexpr const char* kSynthTruthSchema = "railtune.synth_truth.v1";
inline constexpr const char* kBindingsSchema = "railtune.bindings.v1";
inline constexpr const char* kTunerDecisionsSchema = "railtune.tuner-decisions/1";
inline constexpr const char* kDoctorSchema = "railtune.doctor.v1";

// The emulator's table of NCCL's graph search results (emulator/data/).
inline constexpr const char* kNcclGraphDataSchema = "railtune.nccl-graph-data/1";

// Measured network settings: from `railtune sweep run --env` results (`sweep rules --net-env`), read by `railtune topo
// env | rail-map
// --measured` (formats/net_env.h).
inline constexpr const char* kNetEnvSchema = "railtune.net-env/1";

}  // namespace railtune::formats
