// The sweep manifest's lines written and read (manifest.h). Lines are written with nlohmann's ordered_json
// (keys in one fixed order, empty choice fields left out) and read leniently: a line that is not JSON (cut by
// a crash), of another schema or with a field of the wrong type is one diagnostic and skipped; keys the
// reader does not know are ignored, so that a newer writer's lines stay readable.
#include "nccl-tests-integration/run/manifest.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "nccl-tests-integration/dataset/net_env.h"

namespace railtune::sweep {
namespace {

using ManifestJson = nlohmann::json;

// A field of the wrong type: one message naming the key.
struct FieldError {
  std::string message;
};

const ManifestJson* manifestField(const ManifestJson& object, const char* key, bool required) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (required) throw FieldError{std::string("\"") + key + "\" is missing"};
    return nullptr;
  }
  return &*it;
}

std::string manifestString(const ManifestJson& object, const char* key, bool required) {
  const ManifestJson* value = manifestField(object, key, required);
  if (value == nullptr) return "";
  if (!value->is_string()) throw FieldError{std::string("\"") + key + "\" is not a string"};
  return value->get<std::string>();
}

int64_t manifestInteger(const ManifestJson& object, const char* key, bool required, int64_t min, int64_t max) {
  const ManifestJson* value = manifestField(object, key, required);
  if (value == nullptr) return 0;
  if (!value->is_number_integer()) throw FieldError{std::string("\"") + key + "\" is not an integer"};
  const int64_t number = value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)
                             ? INT64_MAX
                             : value->get<int64_t>();
  if (number < min || number > max)
    throw FieldError{std::string("\"") + key + "\" is " + std::to_string(number) + ", out of range"};
  return number;
}

// "net_env": NCCL variables (NCCL_[A-Z0-9_]+) with string values.
void readNetEnv(const ManifestJson& object, std::map<std::string, std::string>& out) {
  if (!object.is_object()) throw FieldError{"\"net_env\" is not an object"};
  for (const auto& [name, value] : object.items()) {
    if (!isNcclVariableName(name)) throw FieldError{"\"net_env\"." + name + " is not an NCCL variable"};
    if (!value.is_string()) throw FieldError{"\"net_env\"." + name + " is not a string"};
    out[name] = value.get<std::string>();
  }
}

ManifestFabric fabricFromJson(const ManifestJson& object) {
  if (!object.is_object()) throw FieldError{"\"fabric\" is not an object"};
  ManifestFabric out;
  const std::string from = manifestString(object, "from", true);
  if (from != "rail-map" && from != "fabric")
    throw FieldError{"\"fabric\".\"from\" is \"" + from + "\", expected rail-map or fabric"};
  out.from = from == "fabric" ? ShapeSource::Fabric : ShapeSource::RailMap;
  out.file = manifestString(object, "file", true);
  out.fabric.name = manifestString(object, "name", false);
  out.fabric.linkLayer = manifestString(object, "link_layer", false);
  out.fabric.nicGbps = static_cast<int>(manifestInteger(object, "nic_gbps", false, 0, 100000000));
  out.fabric.nicsPerGpu = static_cast<int>(manifestInteger(object, "nics_per_gpu", false, 0, 1024));
  return out;
}

nlohmann::ordered_json fabricJson(const ManifestFabric& f) {
  nlohmann::ordered_json out;
  out["from"] = shapeSourceName(f.from);
  out["file"] = f.file;
  if (!f.fabric.name.empty()) out["name"] = f.fabric.name;
  if (!f.fabric.linkLayer.empty()) out["link_layer"] = f.fabric.linkLayer;
  if (f.fabric.nicGbps > 0) out["nic_gbps"] = f.fabric.nicGbps;
  if (f.fabric.nicsPerGpu > 0) out["nics_per_gpu"] = f.fabric.nicsPerGpu;
  return out;
}

// "call": nccl-tests' -R/-D/-x as `sweep run` recorded them (absent: none given, or an earlier sweep).
void readCall(const ManifestJson& object, ManifestEntry& entry) {
  const std::string call = manifestString(object, "call", false);
  if (call.empty()) return;
  try {
    entry.call = callModeFromLabel(call);
  } catch (const std::invalid_argument& e) {
    throw FieldError{e.what()};
  }
}

ManifestEntry entryFromJson(const ManifestJson& object) {
  if (!object.is_object()) throw FieldError{"not a JSON object"};
  const std::string schema = manifestString(object, "schema", true);
  if (schema != kManifestSchema)
    throw FieldError{"schema \"" + schema + "\", expected \"" + std::string(kManifestSchema) + "\""};
  ManifestEntry entry;
  entry.id = manifestString(object, "id", true);
  if (entry.id.empty()) throw FieldError{"\"id\" is empty"};
  entry.test = manifestString(object, "test", true);
  if (const ManifestJson* choice = manifestField(object, "choice", true)) {
    if (!choice->is_object()) throw FieldError{"\"choice\" is not an object"};
    entry.choice.algorithm = manifestString(*choice, "algorithm", false);
    entry.choice.protocol = manifestString(*choice, "protocol", false);
    entry.choice.channels = static_cast<int>(manifestInteger(*choice, "channels", false, 0, 64));
    const ManifestJson* chunk = manifestField(*choice, "chunk_size", false);
    if (chunk != nullptr) {
      if (!chunk->is_number_unsigned()) throw FieldError{"\"chunk_size\" is not a non-negative integer"};
      entry.choice.chunkSize = chunk->get<uint64_t>();
    }
  }
  entry.repeat = static_cast<int>(manifestInteger(object, "repeat", true, 0, 1000000));
  if (const ManifestJson* command = manifestField(object, "command", true)) {
    if (!command->is_array()) throw FieldError{"\"command\" is not an array"};
    for (const ManifestJson& word : *command) {
      if (!word.is_string()) throw FieldError{"\"command\" holds a value that is not a string"};
      entry.command.push_back(word.get<std::string>());
    }
  }
  if (const ManifestJson* env = manifestField(object, "env", true)) {
    if (!env->is_object()) throw FieldError{"\"env\" is not an object"};
    for (const auto& [name, value] : env->items()) {
      if (!value.is_string()) throw FieldError{"\"env\"." + name + " is not a string"};
      entry.env[name] = value.get<std::string>();
    }
  }
  if (const ManifestJson* netEnv = manifestField(object, "net_env", false)) readNetEnv(*netEnv, entry.netEnv);
  entry.output = manifestString(object, "output", true);
  entry.json = manifestString(object, "json", false);
  if (const ManifestJson* bytes = manifestField(object, "output_bytes", false)) {
    if (!bytes->is_number_unsigned()) throw FieldError{"\"output_bytes\" is not a non-negative integer"};
    entry.outputBytes = bytes->get<uint64_t>();
  }
  const std::string status = manifestString(object, "status", true);
  const std::optional<RunStatus> parsed = runStatusFromName(status);
  if (!parsed) throw FieldError{"\"status\" is \"" + status + "\", expected ok, rejected or failed"};
  entry.status = *parsed;
  entry.exitCode = static_cast<int>(manifestInteger(object, "exit", true, 0, 255));
  entry.reason = manifestString(object, "reason", false);
  readCall(object, entry);

  entry.start = manifestString(object, "start", true);
  entry.end = manifestString(object, "end", true);
  entry.nvlDomains = static_cast<int>(manifestInteger(object, "nvl_domains", false, 0, 1000000));
  entry.mnnvl = manifestString(object, "mnnvl", false);
  if (!entry.mnnvl.empty() && entry.mnnvl != "on" && entry.mnnvl != "off")
    throw FieldError{"\"mnnvl\" is \"" + entry.mnnvl + "\", expected on or off"};
  if (const ManifestJson* fabric = manifestField(object, "fabric", false)) entry.fabric = fabricFromJson(*fabric);
  return entry;
}

}  // namespace

const char* runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::Rejected:
      return "rejected";
    case RunStatus::Failed:
      return "failed";
  }
  return "failed";
}

std::optional<RunStatus> runStatusFromName(std::string_view name) {
  if (name == "ok") return RunStatus::Ok;
  if (name == "rejected") return RunStatus::Rejected;
  if (name == "failed") return RunStatus::Failed;
  return std::nullopt;
}

std::string manifestLine(const ManifestEntry& entry) {
  nlohmann::ordered_json line;
  line["schema"] = kManifestSchema;
  line["id"] = entry.id;
  line["test"] = entry.test;
  nlohmann::ordered_json choice = nlohmann::ordered_json::object();
  if (!entry.choice.algorithm.empty()) choice["algorithm"] = entry.choice.algorithm;
  if (!entry.choice.protocol.empty()) choice["protocol"] = entry.choice.protocol;
  if (entry.choice.channels > 0) choice["channels"] = entry.choice.channels;
  if (entry.choice.chunkSize > 0) choice["chunk_size"] = entry.choice.chunkSize;
  line["choice"] = std::move(choice);
  line["repeat"] = entry.repeat;
  line["command"] = entry.command;
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const auto& [name, value] : entry.env) env[name] = value;
  line["env"] = std::move(env);
  if (!entry.netEnv.empty()) line["net_env"] = entry.netEnv;
  line["output"] = entry.output;
  if (entry.outputBytes) line["output_bytes"] = *entry.outputBytes;
  if (!entry.json.empty()) line["json"] = entry.json;
  line["status"] = runStatusName(entry.status);
  line["exit"] = entry.exitCode;
  if (!entry.reason.empty()) line["reason"] = entry.reason;
  line["start"] = entry.start;
  line["end"] = entry.end;
  if (entry.nvlDomains > 0) line["nvl_domains"] = entry.nvlDomains;
  if (!entry.mnnvl.empty()) line["mnnvl"] = entry.mnnvl;
  if (entry.fabric) line["fabric"] = fabricJson(*entry.fabric);
  if (entry.call && !entry.call->isDefault()) line["call"] = entry.call->label();
  // Invalid UTF-8 (a reason cut from a binary's output) is replaced, never thrown.
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Manifest readManifestText(std::string_view text) {
  Manifest manifest;
  std::unordered_map<std::string, size_t> indexOfId;
  std::vector<bool> superseded;
  size_t lineNumber = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t newline = text.find('\n', start);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const ManifestJson object = ManifestJson::parse(line, nullptr, false);
    if (object.is_discarded()) {
      manifest.diagnostics.push_back(
          {lineNumber, newline == std::string_view::npos
                           ? "not JSON: the line is cut short (a sweep stopped while writing it?)"
                           : "not JSON"});
      continue;
    }
    try {
      ManifestEntry entry = entryFromJson(object);
      const auto [it, inserted] = indexOfId.try_emplace(entry.id, manifest.entries.size());
      if (!inserted) superseded[it->second] = true;
      it->second = manifest.entries.size();
      manifest.entries.push_back(std::move(entry));
      superseded.push_back(false);
    } catch (const FieldError& e) {
      manifest.diagnostics.push_back({lineNumber, e.message});
    } catch (const nlohmann::json::exception& e) {
      manifest.diagnostics.push_back({lineNumber, std::string("bad value: ") + e.what()});
    }
  }
  std::vector<ManifestEntry> kept;
  kept.reserve(manifest.entries.size());
  for (size_t i = 0; i < manifest.entries.size(); ++i)
    if (!superseded[i]) kept.push_back(std::move(manifest.entries[i]));
  manifest.entries = std::move(kept);
  return manifest;
}

}  // namespace railtune::sweep
