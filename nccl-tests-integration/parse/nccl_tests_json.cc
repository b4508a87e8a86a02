// Reading nccl-tests' JSON output (nccl_tests_json.h). The layout is nccl-tests' src/util.cu (v2.17.3-v2.19.6).
#include "nccl-tests-integration/parse/nccl_tests_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "nccl-tests-integration/parse/row_bounds.h"

namespace railtune::sweep {
namespace {

using nlohmann::json;

// A number as nccl-tests writes one: a JSON number, or the string "nan" (and null for no value).
std::optional<double> numberOf(const json& value) {
  if (value.is_number()) {
    const double d = value.get<double>();
    if (std::isfinite(d)) return d;
  }
  return std::nullopt;
}

std::string textOf(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  if (it->is_number()) return it->dump();
  return "";
}

template <typename T>
T integerOf(const json& object, const char* key, T fallback) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (it->is_number_integer()) return it->get<T>();
  if (it->is_string()) {  // "root":"    -1"
    const std::string text = it->get<std::string>();
    try {
      size_t used = 0;
      const long long value = std::stoll(text, &used);
      if (text.find_first_not_of(' ', used) == std::string::npos) return static_cast<T>(value);
    } catch (const std::exception&) {
    }
  }
  return fallback;
}

Measurement measurementOf(const json& half) {
  Measurement m;
  if (!half.is_object()) return m;
  const auto time = half.contains("time") ? half.find("time") : half.find("cpu_time");
  if (time != half.end()) m.timeUs = numberOf(*time);
  if (half.contains("alg_bw")) m.algbwGBps = numberOf(half.at("alg_bw"));
  if (half.contains("bus_bw")) m.busbwGBps = numberOf(half.at("bus_bw"));
  if (half.contains("nwrong")) m.wrong = numberOf(half.at("nwrong"));
  return m;
}

void readConfig(const json& config, TestRun* run) {
  if (!config.is_object()) return;
  for (const auto& [key, value] : config.items()) {
    if (key == "devices" || value.is_structured()) continue;
    run->parameters[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  const auto devices = config.find("devices");
  if (devices == config.end() || !devices->is_array()) return;
  for (const json& d : *devices) {
    if (!d.is_object()) continue;
    DeviceLine line;
    line.rank = integerOf(d, "rank", -1);
    line.group = integerOf(d, "group", -1);
    line.pid = integerOf(d, "pid", -1);
    line.device = integerOf(d, "device", -1);
    line.host = textOf(d, "hostname");
    line.busId = textOf(d, "device_hex");
    line.gpu = textOf(d, "device_info");
    run->devices.push_back(std::move(line));
  }
}

void readResults(const json& results, TestRun* run, ParsedText* out) {
  if (!results.is_array()) return;
  int index = 0;
  for (const json& r : results) {
    ++index;
    if (!r.is_object() || !r.contains("size")) {
      out->diagnostics.push_back({1, "results[" + std::to_string(index - 1) + "] is not a result; skipped"});
      continue;
    }
    Row row;
    row.line = 1;
    const std::string where = "results[" + std::to_string(index - 1) + "]: ";
    const int64_t size = integerOf<int64_t>(r, "size", -1), count = integerOf<int64_t>(r, "count", 0);
    if (size < 0 || count < 0) {
      out->diagnostics.push_back({1, where + (size < 0 ? "size" : "count") + " is negative or not an integer", true});
      ++out->badRows;
      continue;
    }
    row.size = static_cast<uint64_t>(size);
    row.count = static_cast<uint64_t>(count);
    row.type = textOf(r, "type");
    row.redop = textOf(r, "redop");
    const int root = integerOf(r, "root", -1000000);
    if (root != -1000000) row.root = root;
    row.outOfPlace = measurementOf(r.value("out_of_place", json()));
    row.inPlace = measurementOf(r.value("in_place", json()));
    if (const std::string why = rowProblem(row, true); !why.empty()) {
      out->diagnostics.push_back({1, where + why, true});
      ++out->badRows;
      continue;
    }
    run->rows.push_back(std::move(row));
  }
}

void readFooter(const json& doc, TestRun* run) {
  if (const auto bounds = doc.find("out_of_bounds"); bounds != doc.end() && bounds->is_object())
    run->outOfBounds = integerOf(*bounds, "count", 0);
  // "average_bus_bandwidith":{"bandwidith":...} in 2.17.3-2.17.8 (fixed in 2.17.9)
  for (const char* key : {"average_bus_bandwidth", "average_bus_bandwidith"}) {
    const auto average = doc.find(key);
    if (average == doc.end() || !average->is_object()) continue;
    for (const char* inner : {"bandwidth", "bandwidith"})
      if (average->contains(inner)) run->averageBusbw = numberOf(average->at(inner));
  }
  if (const auto errors = doc.find("errors"); errors != doc.end() && errors->is_array()) {
    for (const json& e : *errors)
      if (e.is_string() && !e.get<std::string>().empty()) run->ncclFailures.push_back(e.get<std::string>());
  }
}

}  // namespace

ParsedText parseNcclTestsJson(std::string_view text) {
  ParsedText out;
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    out.diagnostics.push_back({1, "not a complete JSON object (a run cut short?); nothing read"});
    return out;
  }
  TestRun run;
  run.firstLine = 1;
  if (doc.contains("version")) run.parameters["json version"] = doc.at("version").dump();
  run.ncclLibrary = integerOf(doc, "nccl_version", 0);
  if (const auto args = doc.find("args");
      args != doc.end() && args->is_array() && !args->empty() && args->front().is_string()) {
    const std::string program = args->front().get<std::string>();
    run.collective = program.substr(program.rfind('/') == std::string::npos ? 0 : program.rfind('/') + 1);
    for (const json& arg : *args)
      if (arg.is_string()) run.args.push_back(arg.get<std::string>());  // -R, -D, -x: call_mode.h
  }
  if (const auto env = doc.find("env"); env != doc.end() && env->is_array()) {
    for (const json& entry : *env) {
      if (!entry.is_string()) continue;
      const std::string kv = entry.get<std::string>();
      const size_t equals = kv.find('=');
      if (kv.starts_with("NCCL_") && equals != std::string::npos)
        run.forced[kv.substr(0, equals)] = kv.substr(equals + 1);
    }
  }
  readConfig(doc.value("config", json()), &run);
  readResults(doc.value("results", json()), &run, &out);
  readFooter(doc, &run);
  out.runs.push_back(std::move(run));
  return out;
}

}  // namespace railtune::sweep
