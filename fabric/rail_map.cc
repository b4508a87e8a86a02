// Strict rail-map reader (nlohmann-json, header only, so the plugins can link it).
#include "fabric/rail_map.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace railtune::fabric {
namespace {

using nlohmann::json;

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}
  RailMap parse(const json& doc);

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& reason) const {
    throw RailMapError(source_ + ": " + where + ": " + reason);
  }
  void onlyKeys(const json& obj, const std::string& where, std::initializer_list<const char*> keys) const;
  const json& field(const json& obj, const std::string& where, const char* key) const;
  std::string str(const json& obj, const std::string& where, const char* key) const;
  int integer(const json& obj, const std::string& where, const char* key, int min) const;
  RailMapHost host(const json& obj, const std::string& where) const;
  RailMapGpu gpu(const json& obj, const std::string& where) const;
  RailMapNic nic(const json& obj, const std::string& where) const;

  std::string source_;
};

void Parser::onlyKeys(const json& obj, const std::string& where, std::initializer_list<const char*> keys) const {
  if (!obj.is_object()) fail(where, "expected an object");
  for (const auto& item : obj.items()) {
    bool known = false;
    for (const char* k : keys) known = known || item.key() == k;
    if (!known) fail(where, "unknown field '" + item.key() + "'");
  }
}

const json& Parser::field(const json& obj, const std::string& where, const char* key) const {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(where, std::string("missing field '") + key + "'");
  return *it;
}

std::string Parser::str(const json& obj, const std::string& where, const char* key) const {
  const json& v = field(obj, where, key);
  if (!v.is_string()) fail(where, std::string("field '") + key + "' must be a string");
  return v.get<std::string>();
}

int Parser::integer(const json& obj, const std::string& where, const char* key, int min) const {
  const json& v = field(obj, where, key);
  if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > 1'000'000)
    fail(where, std::string("field '") + key + "' must be an integer >= " + std::to_string(min));
  return static_cast<int>(v.get<int64_t>());
}

RailMapNic Parser::nic(const json& obj, const std::string& where) const {
  onlyKeys(obj, where, {"hca", "netdev", "bus_id", "port", "rail", "plane", "speed_mbps"});
  RailMapNic n;
  n.hca = str(obj, where, "hca");
  if (n.hca.empty()) fail(where, "field 'hca' is empty");
  n.netdev = str(obj, where, "netdev");
  n.busId = str(obj, where, "bus_id");
  n.port = integer(obj, where, "port", 1);
  n.rail = integer(obj, where, "rail", 0);
  n.plane = integer(obj, where, "plane", -1);
  if (obj.contains("speed_mbps")) {  // optional: rail maps written before it existed lack it
    const json& v = obj["speed_mbps"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 100'000'000)
      fail(where, "field 'speed_mbps' must be an integer from 0 to 100000000");
    n.speedMbps = static_cast<int>(v.get<int64_t>());
  }
  return n;
}

RailMapGpu Parser::gpu(const json& obj, const std::string& where) const {
  onlyKeys(obj, where, {"index", "bus_id", "nics"});
  RailMapGpu g;
  g.index = integer(obj, where, "index", 0);
  g.busId = str(obj, where, "bus_id");
  const json& nics = field(obj, where, "nics");
  if (!nics.is_array()) fail(where, "field 'nics' must be an array");
  for (size_t i = 0; i < nics.size(); ++i) g.nics.push_back(nic(nics[i], where + " nics[" + std::to_string(i) + "]"));
  return g;
}

RailMapHost Parser::host(const json& obj, const std::string& where) const {
  onlyKeys(obj, where, {"name", "domain", "gpus"});
  RailMapHost h;
  h.name = str(obj, where, "name");
  if (h.name.empty()) fail(where, "field 'name' is empty");
  const std::string at = "host " + h.name;
  h.domain = str(obj, at, "domain");
  const json& gpus = field(obj, at, "gpus");
  if (!gpus.is_array()) fail(at, "field 'gpus' must be an array");
  std::set<int> indices;
  std::set<std::string> busIds, hcaPorts;
  for (size_t i = 0; i < gpus.size(); ++i) {
    RailMapGpu g = gpu(gpus[i], at + " gpus[" + std::to_string(i) + "]");
    if (!indices.insert(g.index).second) fail(at, "duplicate GPU index " + std::to_string(g.index));
    if (!busIds.insert(g.busId).second) fail(at, "duplicate GPU bus_id " + g.busId);
    for (const RailMapNic& n : g.nics)
      if (!hcaPorts.insert(n.hca + ":" + std::to_string(n.port)).second)
        fail(at, "NIC " + n.hca + " port " + std::to_string(n.port) + " is listed twice");
    h.gpus.push_back(std::move(g));
  }
  return h;
}

RailMap Parser::parse(const json& doc) {
  onlyKeys(doc, "top level", {"schema", "cluster", "rails", "planes", "hosts"});
  const std::string schema = str(doc, "top level", "schema");
  if (schema != kRailMapSchema) fail("schema", "'" + schema + "' is not " + kRailMapSchema);
  RailMap map;
  map.cluster = str(doc, "top level", "cluster");
  map.rails = integer(doc, "top level", "rails", 0);
  map.planes = integer(doc, "top level", "planes", 1);
  const json& hosts = field(doc, "top level", "hosts");
  if (!hosts.is_array()) fail("top level", "field 'hosts' must be an array");
  std::set<std::string> names;
  for (size_t i = 0; i < hosts.size(); ++i) {
    RailMapHost h = host(hosts[i], "hosts[" + std::to_string(i) + "]");
    if (!names.insert(h.name).second) fail("host " + h.name, "listed twice");
    map.hosts.push_back(std::move(h));
  }
  return map;
}

}  // namespace

const RailMapHost* RailMap::findHost(const std::string& name) const {
  for (const RailMapHost& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

RailMap parseRailMap(const std::string& text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number out of range (1e99999)
    throw RailMapError(source + ": not JSON: " + e.what());
  }
  return Parser(source).parse(doc);
}

RailMap readRailMapFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RailMapError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parseRailMap(text.str(), path);
}

}  // namespace railtune::fabric
