// The strict net-env reader (net_env.h). The document is built by the rail map's JSON pass (rail_map_json.h:
// duplicate keys rejected at their position); the checks collect every problem they can and stop where the
// document's shape makes going on meaningless; positions come from a second pass, run only when there is
// something to report.
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "common/regular_file.h"
#include "formats/names.h"
#include "formats/net_env.h"
#include "formats/rail_map.h"
#include "formats/rail_map_json.h"

namespace railtune::formats {
namespace {

using nlohmann::json;
using rail_map_json::Problem;

struct Abort {};

class Reader {
 public:
  NetEnvFile file(const json& doc);
  std::vector<Problem>& problems() { return problems_; }

 private:
  void problem(const std::string& pointer, const std::string& message, bool atKey = false) {
    problems_.push_back({pointer, atKey, message});
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) {
    problem(pointer, message);
    throw Abort{};
  }
  const json& object(const json& v, const std::string& at, std::initializer_list<const char*> keys);
  const json& field(const json& obj, const std::string& at, const char* key);
  std::string text(const json& obj, const std::string& at, const char* key, bool nonEmpty);
  int integer(const json& obj, const std::string& at, const char* key, int min);
  double number(const json& obj, const std::string& at, const char* key, double min);
  const json& array(const json& obj, const std::string& at, const char* key);
  NetEnvShape shape(const json& obj, const std::string& at);
  NetEnvFabric fabric(const json& obj, const std::string& at);
  NetEnvEvidence evidence(const json& obj, const std::string& at);
  MeasuredEnv env(const json& obj, const std::string& at);
  NetEnvEntry entry(const json& obj, const std::string& at);
  NetEnvUndecided undecided(const json& obj, const std::string& at);

  std::vector<Problem> problems_;
};

// "field 'entries/0/shape/gpu'": the pointer without its leading '/', as the user finds it in the file.
std::string named(const std::string& pointer) {
  return "field '" + pointer.substr(pointer.empty() ? 0 : 1) + "'";
}

const json& Reader::object(const json& v, const std::string& at, std::initializer_list<const char*> keys) {
  if (!v.is_object()) fail(at, (at.empty() ? std::string("the document") : named(at)) + " must be an object");
  for (const auto& item : v.items()) {
    bool known = false;
    for (const char* k : keys) known = known || item.key() == k;
    if (!known) problem(at + "/" + item.key(), "unknown " + named(at + "/" + printableName(item.key())), true);
  }
  return v;
}

const json& Reader::field(const json& obj, const std::string& at, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(at, "missing " + named(at + "/" + key));
  return *it;
}

std::string Reader::text(const json& obj, const std::string& at, const char* key, bool nonEmpty) {
  const json& v = field(obj, at, key);
  const std::string pointer = at + "/" + key;
  if (!v.is_string()) fail(pointer, named(pointer) + " must be a string");
  const std::string out = v.get<std::string>();
  if (out.find('\0') != std::string::npos) problem(pointer, named(pointer) + " contains a NUL character");
  if (nonEmpty && out.empty()) problem(pointer, named(pointer) + " is empty");
  return out;
}

int Reader::integer(const json& obj, const std::string& at, const char* key, int min) {
  const json& v = field(obj, at, key);
  const std::string pointer = at + "/" + key;
  if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > 100'000'000)
    fail(pointer, named(pointer) + " must be an integer from " + std::to_string(min) + " to 100000000");
  return static_cast<int>(v.get<int64_t>());
}

double Reader::number(const json& obj, const std::string& at, const char* key, double min) {
  const json& v = field(obj, at, key);
  const std::string pointer = at + "/" + key;
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < min || v.get<double>() > 1e6)
    fail(pointer, named(pointer) + " must be a number from " + json(min).dump() + " to 1000000");
  return v.get<double>();
}

const json& Reader::array(const json& obj, const std::string& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_array()) fail(at + "/" + key, named(at + "/" + key) + " must be an array");
  return v;
}

NetEnvFabric Reader::fabric(const json& obj, const std::string& at) {
  object(obj, at, {"transport", "link_layer", "nic_gbps"});
  NetEnvFabric f;
  f.transport = text(obj, at, "transport", true);
  f.linkLayer = text(obj, at, "link_layer", true);
  if (f.linkLayer != "IB" && f.linkLayer != "RoCE" && f.linkLayer != "unknown")
    problem(at + "/link_layer", named(at + "/link_layer") + " must be \"IB\", \"RoCE\" or \"unknown\"");
  f.nicGbps = integer(obj, at, "nic_gbps", 0);
  return f;
}

NetEnvShape Reader::shape(const json& obj, const std::string& at) {
  object(obj, at, {"ranks", "nodes", "nvl_domains", "ranks_per_domain", "gpu", "fabric"});
  NetEnvShape s;
  s.ranks = integer(obj, at, "ranks", 1);
  s.nodes = integer(obj, at, "nodes", 1);
  s.nvlDomains = integer(obj, at, "nvl_domains", 1);
  s.ranksPerDomain = integer(obj, at, "ranks_per_domain", 0);
  s.gpu = text(obj, at, "gpu", false);
  s.fabric = fabric(field(obj, at, "fabric"), at + "/fabric");
  if (s.nodes > s.ranks) problem(at + "/nodes", named(at + "/nodes") + " exceeds the shape's ranks");
  return s;
}

NetEnvEvidence Reader::evidence(const json& obj, const std::string& at) {
  object(obj, at,
         {"sizes", "min_gain", "median_gain", "max_gain", "runs", "baseline_runs", "max_spread", "worst_regression"});
  NetEnvEvidence e;
  const json& sizes = array(obj, at, "sizes");
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string p = at + "/sizes/" + std::to_string(i);
    if (!sizes[i].is_number_unsigned() || sizes[i].get<uint64_t>() == 0)
      fail(p, named(p) + " must be a size in bytes, an integer >= 1");
    if (!e.sizes.empty() && sizes[i].get<uint64_t>() <= e.sizes.back())
      problem(p, named(p) + " is not larger than the size before it (sizes ascend)");
    e.sizes.push_back(sizes[i].get<uint64_t>());
  }
  if (e.sizes.empty()) problem(at + "/sizes", named(at + "/sizes") + " is empty");
  e.minGain = number(obj, at, "min_gain", -1);
  e.medianGain = number(obj, at, "median_gain", -1);
  e.maxGain = number(obj, at, "max_gain", -1);
  if (!(e.minGain <= e.medianGain && e.medianGain <= e.maxGain))
    problem(at + "/median_gain", named(at) + ": min_gain <= median_gain <= max_gain does not hold");
  e.runs = integer(obj, at, "runs", 1);
  e.baselineRuns = integer(obj, at, "baseline_runs", 1);
  e.maxSpread = number(obj, at, "max_spread", 0);
  e.worstRegression = number(obj, at, "worst_regression", 0);
  if (e.worstRegression > 1)
    problem(at + "/worst_regression", named(at + "/worst_regression") + " is a fraction of the baseline, 0 to 1");
  return e;
}

MeasuredEnv Reader::env(const json& obj, const std::string& at) {
  if (!obj.is_object()) fail(at, named(at) + " must be an object of NCCL variables");
  MeasuredEnv out;
  for (const auto& item : obj.items()) {
    const std::string name = printableName(item.key()), p = at + "/" + item.key();
    if (const std::string why = measuredNameProblem(item.key()); !why.empty())
      problem(p, "'" + name + "' in " + named(at) + " " + why, true);
    else if (!item.value().is_string())
      problem(p, named(at) + " '" + name + "' must be a string (as the environment holds it)");
    else if (const std::string bad = measuredValueProblem(item.key(), item.value().get<std::string>()); !bad.empty())
      problem(p, named(at) + " '" + name + "' " + bad);
    else
      out.emplace_back(item.key(), item.value().get<std::string>());
  }
  if (obj.empty()) problem(at, named(at) + " names no variable");
  return out;
}

NetEnvEntry Reader::entry(const json& obj, const std::string& at) {
  object(obj, at, {"shape", "collective", "env", "evidence", "description"});
  NetEnvEntry e;
  e.shape = shape(field(obj, at, "shape"), at + "/shape");
  if (e.shape.nodes < 2)
    problem(at + "/shape/nodes",
            named(at + "/shape/nodes") + " is 1: one node never touches the network (such a shape is not_decided)");
  e.collective = text(obj, at, "collective", true);
  e.env = env(field(obj, at, "env"), at + "/env");
  e.evidence = evidence(field(obj, at, "evidence"), at + "/evidence");
  e.description = text(obj, at, "description", false);
  return e;
}

NetEnvUndecided Reader::undecided(const json& obj, const std::string& at) {
  object(obj, at, {"shape", "collective", "why"});
  NetEnvUndecided u;
  u.shape = shape(field(obj, at, "shape"), at + "/shape");
  u.collective = text(obj, at, "collective", true);
  u.why = text(obj, at, "why", true);
  return u;
}

NetEnvFile Reader::file(const json& doc) {
  object(doc, "", {"schema", "generated_by", "datasets", "entries", "not_decided"});
  const std::string schema = text(doc, "", "schema", false);
  if (schema != kNetEnvSchema) fail("/schema", "schema '" + printableName(schema) + "' is not " + kNetEnvSchema);
  NetEnvFile out;
  out.generatedBy = text(doc, "", "generated_by", false);
  const json& datasets = array(doc, "", "datasets");
  for (size_t i = 0; i < datasets.size(); ++i) {
    const std::string p = "/datasets/" + std::to_string(i);
    if (!datasets[i].is_string()) fail(p, named(p) + " must be a string");
    out.datasets.push_back(datasets[i].get<std::string>());
  }
  std::set<std::tuple<int, int, int, int, std::string, std::string, std::string, int, std::string>> seen;
  const json& entries = array(doc, "", "entries");
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string p = "/entries/" + std::to_string(i);
    NetEnvEntry e = entry(entries[i], p);
    const NetEnvShape& s = e.shape;
    if (!seen.insert({s.ranks, s.nodes, s.nvlDomains, s.ranksPerDomain, s.gpu, s.fabric.transport, s.fabric.linkLayer,
                      s.fabric.nicGbps, e.collective})
             .second)
      problem(p, named(p) + ": a second entry for " + s.label() + ", " + e.collective);
    out.entries.push_back(std::move(e));
  }
  const json& undecided = array(doc, "", "not_decided");
  for (size_t i = 0; i < undecided.size(); ++i)
    out.notDecided.push_back(this->undecided(undecided[i], "/not_decided/" + std::to_string(i)));
  return out;
}

}  // namespace

std::string NetEnvShape::label() const {
  return std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + " on " + std::to_string(nodes) +
         (nodes == 1 ? " node" : " nodes");
}

NetEnvFile parseNetEnv(const std::string& text, const std::string& source) {
  json doc;
  try {
    doc = rail_map_json::readDocument(text, source);
  } catch (const RailMapError& e) {
    throw NetEnvError(e.what());
  }
  Reader reader;
  NetEnvFile out;
  try {
    out = reader.file(doc);
  } catch (const Abort&) {
  }
  if (reader.problems().empty()) return out;
  const std::vector<std::string> lines = rail_map_json::locate(reader.problems(), text, source);
  std::string what;
  for (size_t i = 0; i < lines.size() && i < 20; ++i) what += (i ? "\n" : "") + lines[i];
  if (lines.size() > 20) what += "\n(and " + std::to_string(lines.size() - 20) + " more problems)";
  throw NetEnvError(what);
}

NetEnvFile readNetEnvFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxNetEnvBytes);
  if (!file.ok()) throw NetEnvError(file.describe());
  return parseNetEnv(file.bytes, path);
}

}  // namespace railtune::formats
