#include "tuner_plugin/tuner_config.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "common/config_digest.h"
#include "common/params.h"
#include "common/regular_file.h"
#include "formats/rail_map.h"
#include "formats/tuner_model/tuner_model.h"
#include "formats/tuner_rules/rules_file.h"

namespace railtune::tuner {
namespace {

struct FileStamp {
  off_t size = -1;
  int64_t mtimeNs = 0;
  bool operator==(const FileStamp&) const = default;
};

struct CachedRules {
  FileStamp stamp;
  std::string bytes;
  std::shared_ptr<const rules::RuleSet> rules;
};

std::mutex gCacheMutex;  // init only: never taken on NCCL's enqueue path
std::map<std::string, CachedRules> gCache;

FileStamp stampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// The parsed rules and their bytes, from the cache when the file has not changed.
CachedRules loadRules(const std::string& path, const char* variable) {
  const FileStamp stamp = stampOf(path);
  std::lock_guard<std::mutex> lock(gCacheMutex);
  if (auto it = gCache.find(path); it != gCache.end() && it->second.stamp == stamp && stamp.size >= 0)
    return it->second;
  CachedRules loaded;
  loaded.stamp = stamp;
  // Only a regular file is read (common/regular_file.h): a directory, a FIFO (which would block NCCL's
  // init forever), a device or a socket is the same bad configuration as a missing file.
  RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  if (!file.ok()) throw std::runtime_error(std::string(variable) + "=" + file.describe());
  loaded.bytes = std::move(file.bytes);
  rules::RulesResult result = formats::tuner_rules::readRules(loaded.bytes, path);
  if (!result.ok()) throw std::runtime_error(std::string(variable) + ": " + result.describeErrors());
  loaded.rules = std::make_shared<const rules::RuleSet>(std::move(result.ruleSet));
  gCache[path] = loaded;
  return loaded;
}

ModelMode readModelMode() {
  const ParamValue<std::string> mode = readString("RAILTUNE_TUNER_MODEL");
  if (!mode.ok()) throw std::runtime_error(mode.error);
  if (mode.value == "off") return ModelMode::Off;
  if (mode.value == "on") return ModelMode::On;
  return ModelMode::Advise;
}

struct CachedRailMap {
  FileStamp stamp;
  std::string bytes;
  std::shared_ptr<const formats::RailMap> map;  // null when it does not parse
  std::string error;
};

std::map<std::string, CachedRailMap> gRailMaps;  // guarded by gCacheMutex

// The rail map's bytes (for the digest) and its parsed form (for the model), read once per file and
// process like the rules: a 114-rack map is megabytes, and NCCL creates communicators by the thousand.
CachedRailMap loadRailMap(const std::string& path) {
  const FileStamp stamp = stampOf(path);
  std::lock_guard<std::mutex> lock(gCacheMutex);
  if (auto it = gRailMaps.find(path); it != gRailMaps.end() && it->second.stamp == stamp && stamp.size >= 0)
    return it->second;
  CachedRailMap loaded;
  loaded.stamp = stamp;
  RegularFile file = readRegularFile(path, kMaxConfigFileBytes);  // as the rules: regular files only
  if (!file.ok()) {
    loaded.error = file.describe();
    gRailMaps[path] = loaded;
    return loaded;
  }
  loaded.bytes = std::move(file.bytes);
  try {
    loaded.map = std::make_shared<const formats::RailMap>(formats::parseRailMap(loaded.bytes, path));
  } catch (const std::exception& e) {  // the digest still covers whatever bytes were read
    loaded.error = e.what();
  }
  gRailMaps[path] = loaded;
  return loaded;
}

struct CachedTunerModel {
  FileStamp stamp;
  std::string bytes;
  std::shared_ptr<const formats::tuner_model::TunerModel> model;
};

std::map<std::string, CachedTunerModel> gTunerModels;  // guarded by gCacheMutex

// The fitted model and its bytes, read once per file and process like the rules; a file that cannot be read
// (only a regular file of at most 4 MiB) or parsed is the same configuration problem as a bad rules file.
CachedTunerModel loadTunerModel(const std::string& path) {
  namespace tm = formats::tuner_model;
  const FileStamp stamp = stampOf(path);
  std::lock_guard<std::mutex> lock(gCacheMutex);
  if (auto it = gTunerModels.find(path); it != gTunerModels.end() && it->second.stamp == stamp && stamp.size >= 0)
    return it->second;
  CachedTunerModel loaded;
  loaded.stamp = stamp;
  RegularFile file = readRegularFile(path, tm::kMaxFileBytes);
  if (!file.ok()) throw std::runtime_error("RAILTUNE_TUNER_MODEL_FILE=" + file.describe());
  loaded.bytes = std::move(file.bytes);
  try {
    loaded.model = std::make_shared<const tm::TunerModel>(tm::parseTunerModel(loaded.bytes, path));
  } catch (const tm::TunerModelError& e) {
    throw std::runtime_error(std::string("RAILTUNE_TUNER_MODEL_FILE: ") + e.what());
  }
  gTunerModels[path] = loaded;
  return loaded;
}

}  // namespace

const char* modelModeName(ModelMode mode) {
  switch (mode) {
    case ModelMode::Off:
      return "off";
    case ModelMode::On:
      return "on";
    case ModelMode::Advise:
      break;
  }
  return "advise";
}

std::string TunerConfig::describe() const {
  std::string text =
      rules ? "rules " + rulesPath + " (" + std::to_string(rules->rules.size()) + " rules, from " + rulesVariable + ")"
            : std::string("no rules");
  text += ", rail map " + (railMapPath.empty() ? std::string("none") : railMapPath);
  text += ", model " + std::string(modelModeName(model));
  if (tunerModel) text += ", fitted model " + tunerModelPath;
  text += ", config digest " + digestHex(digest);
  return text;
}

TunerConfig loadTunerConfig() {
  TunerConfig config{};
  config.model = readModelMode();
  const ParamValue<std::string> ours = readString("RAILTUNE_TUNER_CONFIG");
  if (!ours.ok()) throw std::runtime_error(ours.error);
  std::string rulesBytes;
  if (!ours.value.empty()) {
    config.rulesPath = ours.value;
    config.rulesVariable = "RAILTUNE_TUNER_CONFIG";
  } else if (std::optional<std::string> nccl = processEnv("NCCL_TUNER_CONFIG_FILE"); nccl && !nccl->empty()) {
    config.rulesPath = *nccl;
    config.rulesVariable = "NCCL_TUNER_CONFIG_FILE";
  }
  if (!config.rulesPath.empty()) {
    CachedRules loaded = loadRules(config.rulesPath, config.rulesVariable);
    config.rules = loaded.rules;
    rulesBytes = std::move(loaded.bytes);
  }
  config.railMapPath = readString("RAILTUNE_RAIL_MAP").value;
  std::string railMapBytes;
  if (!config.railMapPath.empty()) {
    CachedRailMap railMap = loadRailMap(config.railMapPath);
    config.railMap = std::move(railMap.map);
    config.railMapError = std::move(railMap.error);
    railMapBytes = std::move(railMap.bytes);
  }
  config.tunerModelPath = readString("RAILTUNE_TUNER_MODEL_FILE").value;
  std::string tunerModelBytes;
  if (!config.tunerModelPath.empty()) {
    CachedTunerModel loaded = loadTunerModel(config.tunerModelPath);
    config.tunerModel = std::move(loaded.model);
    tunerModelBytes = std::move(loaded.bytes);
  }
  config.digest = configDigest({rulesBytes, railMapBytes, decisionEnvironment(), tunerModelBytes});
  return config;
}

void clearTunerConfigCache() {
  std::lock_guard<std::mutex> lock(gCacheMutex);
  gCache.clear();
  gRailMaps.clear();
  gTunerModels.clear();
}

}  // namespace railtune::tuner
