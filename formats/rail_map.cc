// Strict rail-map reader (nlohmann-json, header only, so the plugins can link it). One pass builds the
// document and rejects a duplicated key (rail_map_json.cc); the checks then collect every problem they can (an
// unknown field, a value out of range, a bad name) and stop only where the document's shape makes going on
// meaningless (a missing field, a value of the wrong type). Positions are found by a second pass over the
// text, run only when there is something to report.
#include "formats/rail_map.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "common/regular_file.h"
#include "formats/names.h"
#include "formats/rail_map_json.h"

namespace railtune::formats {
namespace {

using nlohmann::json;
using rail_map_json::Problem;

// NCCL copies an IB device name into `char devName[MAXNAMESIZE]`, MAXNAMESIZE = 64 + MAXSUFFIXSIZE
// (NCCL src/transport/net_ib/common.h:35-36), the 16 extra bytes for the suffixes it appends itself
// ("%s_dma", src/transport/net_ib/init.cc:423). So a device name has 64 bytes with its NUL: 63 characters.
constexpr size_t kMaxHcaName = 63;
// NCCL's interface names are MAX_IF_NAME_SIZE = 16 bytes with the NUL (src/include/socket.h:27), as Linux's.
constexpr size_t kMaxNetdevName = 15;

struct Abort {};  // the document's shape stops the checks; the problems so far are the report

// Where a check is: `label` for messages ("host h1 gpus[0]"), `pointer` to find the position.
struct At {
  std::string label;
  std::string pointer;
  At child(const std::string& childLabel, const std::string& key) const { return {childLabel, pointer + "/" + key}; }
};

class Parser {
 public:
  RailMap parse(const json& doc);
  std::vector<Problem>& problems() { return problems_; }

 private:
  void problem(const At& at, const std::string& reason, const char* key = nullptr, bool atKey = false) {
    problems_.push_back({key ? at.pointer + "/" + key : at.pointer, atKey, at.label + ": " + reason});
  }
  [[noreturn]] void fail(const At& at, const std::string& reason, const char* key = nullptr) {
    problem(at, reason, key);
    throw Abort{};
  }
  void onlyKeys(const json& obj, const At& at, std::initializer_list<const char*> keys);
  const json& field(const json& obj, const At& at, const char* key);
  std::string str(const json& obj, const At& at, const char* key);
  int integer(const json& obj, const At& at, const char* key, int min);
  void checkName(const At& at, const char* key, const std::string& name);
  void checkNic(const RailMapNic& n, const At& at);
  RailMapHost host(const json& obj, const At& at);
  RailMapGpu gpu(const json& obj, const At& at);
  RailMapNic nic(const json& obj, const At& at);
  RailMapNetwork network(const json& obj, const At& at);
  void measured(const json& obj, const At& at, RailMapNetwork& net);
  int optionalInteger(const json& obj, const At& at, const char* key, int min, int max);

  std::vector<Problem> problems_;
  int rails_ = 0, planes_ = 1;
};

void Parser::onlyKeys(const json& obj, const At& at, std::initializer_list<const char*> keys) {
  if (!obj.is_object()) fail(at, "expected an object");
  for (const auto& item : obj.items()) {
    bool known = false;
    for (const char* k : keys) known = known || item.key() == k;
    if (!known)
      problems_.push_back(
          {at.pointer + "/" + item.key(), true, at.label + ": unknown field '" + printableName(item.key()) + "'"});
  }
}

const json& Parser::field(const json& obj, const At& at, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(at, std::string("missing field '") + key + "'");
  return *it;
}

std::string Parser::str(const json& obj, const At& at, const char* key) {
  const json& v = field(obj, at, key);
  if (!v.is_string()) fail(at, std::string("field '") + key + "' must be a string", key);
  std::string text = v.get<std::string>();
  if (text.find('\0') != std::string::npos)
    problem(at, std::string("field '") + key + "' contains a NUL character: '" + printableName(text) + "'", key);
  return text;
}

int Parser::integer(const json& obj, const At& at, const char* key, int min) {
  const json& v = field(obj, at, key);
  if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > 1'000'000)
    fail(at, std::string("field '") + key + "' must be an integer >= " + std::to_string(min), key);
  return static_cast<int>(v.get<int64_t>());
}

void Parser::checkName(const At& at, const char* key, const std::string& name) {
  if (name.find('\0') != std::string::npos) return;  // str() reported it
  const std::string why = dnsSubdomainProblem(name);
  if (!why.empty()) problem(at, std::string("field '") + key + "' '" + printableName(name) + "' " + why, key);
}

// A well-formed PCI bus id as the writer prints it: "dddd:bb:dd.f", lowercase hex.
bool isBusId(const std::string& text) {
  if (text.size() != 12 || text[4] != ':' || text[7] != ':' || text[10] != '.') return false;
  static constexpr size_t kHexAt[] = {0, 1, 2, 3, 5, 6, 8, 9, 11};
  for (const size_t i : kHexAt)
    if (std::string_view("0123456789abcdef").find(text[i]) == std::string_view::npos) return false;
  return text[8] <= '1' && text[11] <= '7';  // device 00-1f, function 0-7
}

void Parser::checkNic(const RailMapNic& n, const At& at) {
  if (n.hca.size() > kMaxHcaName)
    problem(at,
            "field 'hca' '" + printableName(n.hca) + "' is longer than NCCL's " + std::to_string(kMaxHcaName) +
                " characters for an IB device name",
            "hca");
  else if (n.hca.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
           std::string::npos)
    problem(at, "field 'hca' '" + printableName(n.hca) + "' may hold only letters, digits, '_', '-' and '.'", "hca");
  if (n.netdev.size() > kMaxNetdevName || n.netdev.find_first_of(std::string(" \t\n/:\0", 6)) != std::string::npos)
    problem(at,
            "field 'netdev' '" + printableName(n.netdev) + "' is not an interface name (up to " +
                std::to_string(kMaxNetdevName) + " characters, no '/', ':' or blank)",
            "netdev");
  if (!n.busId.empty() && !isBusId(n.busId))
    problem(at, "field 'bus_id' '" + printableName(n.busId) + "' is not a PCI bus id (dddd:bb:dd.f, lowercase hex)",
            "bus_id");
  if (n.rail >= rails_)
    problem(at,
            "field 'rail' is " + std::to_string(n.rail) + " but the map has " + std::to_string(rails_) +
                " rails (0 to " + std::to_string(rails_ - 1) + ")",
            "rail");
  if (n.plane >= planes_)
    problem(at,
            "field 'plane' is " + std::to_string(n.plane) + " but the map has " + std::to_string(planes_) +
                " plane(s) (-1, or 0 to " + std::to_string(planes_ - 1) + ")",
            "plane");
}

RailMapNic Parser::nic(const json& obj, const At& at) {
  onlyKeys(obj, at, {"hca", "netdev", "bus_id", "port", "rail", "plane", "speed_mbps"});
  RailMapNic n;
  n.hca = str(obj, at, "hca");
  if (n.hca.empty()) fail(at, "field 'hca' is empty", "hca");
  n.netdev = str(obj, at, "netdev");
  n.busId = str(obj, at, "bus_id");
  n.port = integer(obj, at, "port", 1);
  n.rail = integer(obj, at, "rail", 0);
  n.plane = integer(obj, at, "plane", -1);
  if (obj.contains("speed_mbps")) {  // optional: rail maps written before it existed lack it
    const json& v = obj["speed_mbps"];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 100'000'000)
      fail(at, "field 'speed_mbps' must be an integer from 0 to 100000000", "speed_mbps");
    n.speedMbps = static_cast<int>(v.get<int64_t>());
  }
  checkNic(n, at);
  return n;
}

RailMapGpu Parser::gpu(const json& obj, const At& at) {
  onlyKeys(obj, at, {"index", "bus_id", "nics"});
  RailMapGpu g;
  g.index = integer(obj, at, "index", 0);
  g.busId = str(obj, at, "bus_id");
  if (!isBusId(g.busId))
    problem(at, "field 'bus_id' '" + printableName(g.busId) + "' is not a PCI bus id (dddd:bb:dd.f, lowercase hex)",
            "bus_id");
  const json& nics = field(obj, at, "nics");
  if (!nics.is_array()) fail(at, "field 'nics' must be an array", "nics");
  for (size_t i = 0; i < nics.size(); ++i) {
    const std::string index = std::to_string(i);
    g.nics.push_back(nic(nics[i], {at.label + " nics[" + index + "]", at.pointer + "/nics/" + index}));
  }
  return g;
}

RailMapHost Parser::host(const json& obj, const At& where) {
  onlyKeys(obj, where, {"name", "domain", "gpus"});
  RailMapHost h;
  h.name = str(obj, where, "name");
  if (h.name.empty()) fail(where, "field 'name' is empty", "name");
  checkName(where, "name", h.name);
  const At at{"host " + printableName(h.name), where.pointer};
  h.domain = str(obj, at, "domain");
  if (!h.domain.empty()) checkName(at, "domain", h.domain);
  const json& gpus = field(obj, at, "gpus");
  if (!gpus.is_array()) fail(at, "field 'gpus' must be an array", "gpus");
  std::set<int> indices;
  std::set<std::string> busIds, hcaPorts;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::string index = std::to_string(i);
    const At gpuAt = at.child(at.label + " gpus[" + index + "]", "gpus/" + index);
    RailMapGpu g = gpu(gpus[i], gpuAt);
    if (!indices.insert(g.index).second) problem(at, "duplicate GPU index " + std::to_string(g.index));
    if (!busIds.insert(g.busId).second) problem(at, "duplicate GPU bus_id " + printableName(g.busId));
    for (const RailMapNic& n : g.nics)
      if (!hcaPorts.insert(n.hca + ":" + std::to_string(n.port)).second)
        problem(at, "NIC " + printableName(n.hca) + " port " + std::to_string(n.port) + " is listed twice");
    h.gpus.push_back(std::move(g));
  }
  return h;
}

// An optional integer from min to max; -1 when absent. A wrong type or range is a problem (and -1): nothing
// else in the document depends on it, so the checks go on.
int Parser::optionalInteger(const json& obj, const At& at, const char* key, int min, int max) {
  const auto it = obj.find(key);
  if (it == obj.end()) return -1;
  if (!it->is_number_integer() || it->get<int64_t>() < min || it->get<int64_t>() > max) {
    problem(at,
            std::string("field '") + key + "' must be an integer from " + std::to_string(min) + " to " +
                std::to_string(max),
            key);
    return -1;
  }
  return static_cast<int>(it->get<int64_t>());
}

RailMapNetwork Parser::network(const json& obj, const At& at) {
  onlyKeys(obj, at, {"link_layer", "adaptive_routing", "traffic_class", "service_level", "gid_index", "measured"});
  RailMapNetwork net;
  if (const auto it = obj.find("link_layer"); it != obj.end()) {
    if (it->is_string() && *it == "InfiniBand")
      net.linkLayer = qp::LinkLayer::InfiniBand;
    else if (it->is_string() && *it == "Ethernet")
      net.linkLayer = qp::LinkLayer::Ethernet;
    else
      problem(at, "field 'link_layer' must be \"InfiniBand\" or \"Ethernet\"", "link_layer");
  }
  if (const auto it = obj.find("adaptive_routing"); it != obj.end()) {
    if (it->is_boolean())
      net.adaptiveRouting = it->get<bool>();
    else
      problem(at, "field 'adaptive_routing' must be true or false", "adaptive_routing");
  }
  net.trafficClass = optionalInteger(obj, at, "traffic_class", 0, 255);
  net.serviceLevel = optionalInteger(obj, at, "service_level", 0, 15);
  net.gidIndex = optionalInteger(obj, at, "gid_index", 0, 65535);
  if (obj.contains("measured")) measured(obj["measured"], at.child("network measured", "measured"), net);
  return net;
}

// `network.measured`: {"source": "...", "env": {"NCCL_IB_QPS_PER_CONNECTION": "4", ...}}, the names and values
// a net-env file allows (formats/measured_env.h), so that the plugin takes nothing a user could not have measured.
void Parser::measured(const json& obj, const At& at, RailMapNetwork& net) {
  onlyKeys(obj, at, {"source", "env"});
  net.measuredSource = str(obj, at, "source");
  if (net.measuredSource.empty()) problem(at, "field 'source' is empty", "source");
  const json& env = field(obj, at, "env");
  if (!env.is_object() || env.empty()) fail(at, "field 'env' must be an object naming at least one variable", "env");
  const At envAt = at.child(at.label + " env", "env");
  for (const auto& item : env.items()) {
    const std::string name = printableName(item.key());
    if (const std::string why = measuredNameProblem(item.key()); !why.empty())
      problem(envAt, "'" + name + "' " + why, item.key().c_str(), true);
    else if (!item.value().is_string())
      problem(envAt, "'" + name + "' must be a string", item.key().c_str());
    else if (const std::string bad = measuredValueProblem(item.key(), item.value().get<std::string>()); !bad.empty())
      problem(envAt, "'" + name + "' " + bad, item.key().c_str());
    else
      net.measured.emplace_back(item.key(), item.value().get<std::string>());
  }
}

RailMap Parser::parse(const json& doc) {
  const At top{"top level", ""};
  onlyKeys(doc, top, {"schema", "cluster", "gpu", "rails", "planes", "network", "hosts"});
  const std::string schema = str(doc, top, "schema");
  if (schema != kRailMapSchema)
    fail({"schema", ""}, "'" + printableName(schema) + "' is not " + kRailMapSchema, "schema");
  RailMap map;
  map.cluster = str(doc, top, "cluster");
  if (doc.contains("gpu")) {  // optional: maps written before it existed lack it
    map.gpu = str(doc, top, "gpu");
    if (map.gpu.empty() || map.gpu.size() > 255) problem(top, "field 'gpu' must be 1 to 255 characters", "gpu");
  }
  map.rails = rails_ = integer(doc, top, "rails", 1);
  map.planes = planes_ = integer(doc, top, "planes", 1);
  if (doc.contains("network")) map.network = network(doc["network"], {"network", "/network"});  // optional
  const json& hosts = field(doc, top, "hosts");
  if (!hosts.is_array()) fail(top, "field 'hosts' must be an array", "hosts");
  std::set<std::string> names;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string index = std::to_string(i);
    RailMapHost h = host(hosts[i], {"hosts[" + index + "]", "/hosts/" + index});
    if (!names.insert(h.name).second)
      problems_.push_back({"/hosts/" + index, false, "host " + h.name + ": listed twice"});
    map.hosts.push_back(std::move(h));
  }
  return map;
}

}  // namespace

RailMapError::RailMapError(std::vector<std::string> problems)
    : std::runtime_error(problems.empty() ? std::string("rail map rejected")
                         : problems.size() == 1
                             ? problems.front()
                             : problems.front() + " (and " + std::to_string(problems.size() - 1) + " more problems)"),
      problems_(std::move(problems)) {}

int RailMapHost::expectedRail(int gpuIndex) const {
  if (gpuIndex < 0) return -1;
  for (const RailMapGpu& gpu : gpus) {
    if (gpu.index == gpuIndex) return gpu.nics.empty() ? -1 : gpu.nics.front().rail;
  }
  return -1;
}

const RailMapGpu* RailMapHost::findGpuByBusId(const std::string& busId) const {
  const auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string wanted = lower(busId);
  for (const RailMapGpu& gpu : gpus)
    if (lower(gpu.busId) == wanted) return &gpu;
  return nullptr;
}

const RailMapNic* RailMapHost::findNic(const std::string& hca) const {
  for (const RailMapGpu& gpu : gpus)
    for (const RailMapNic& nic : gpu.nics)
      if (nic.hca == hca) return &nic;
  return nullptr;
}

const RailMapHost* RailMap::findHost(const std::string& name) const {
  for (const RailMapHost& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

RailMap parseRailMap(const std::string& text, const std::string& source) {
  const json doc = rail_map_json::readDocument(text, source);
  Parser parser;
  RailMap map;
  try {
    map = parser.parse(doc);
  } catch (const Abort&) {
  }
  if (!parser.problems().empty()) throw RailMapError(rail_map_json::locate(parser.problems(), text, source));
  return map;
}

RailMap readRailMapFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  if (!file.ok()) throw RailMapError(file.describe());
  return parseRailMap(file.bytes, path);
}

}  // namespace railtune::formats
