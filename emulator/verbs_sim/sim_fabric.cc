// Fabric presets and the JSON description (sim_fabric.h).
#include "emulator/verbs_sim/sim_fabric.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace railtune::verbs_sim {
namespace {

// NVIDIA's OUI (b8:3f:d2) in the top bytes; the host, card and plane below, so that every device of every
// host has its own GUID and the GUID tells where a device sits.
uint64_t fabricGuid(int host, int card, int plane) {
  return 0xb83fd20300000000ULL | (static_cast<uint64_t>(host + 1) << 16) | (static_cast<uint64_t>(card) << 8) |
         static_cast<uint64_t>(plane);
}

SimGid linkLocalGid(uint64_t guid, bool roceV2) {
  SimGid gid;
  gid.raw[0] = 0xfe;
  gid.raw[1] = 0x80;
  for (int i = 0; i < 8; ++i) gid.raw[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  gid.roceV2 = roceV2;
  return gid;
}

SimGid ipv4MappedGid(int a, int b, int c, int d, bool roceV2) {
  SimGid gid;
  gid.raw[10] = 0xff;
  gid.raw[11] = 0xff;
  gid.raw[12] = static_cast<uint8_t>(a);
  gid.raw[13] = static_cast<uint8_t>(b);
  gid.raw[14] = static_cast<uint8_t>(c);
  gid.raw[15] = static_cast<uint8_t>(d);
  gid.roceV2 = roceV2;
  return gid;
}

// One InfiniBand port: XDR does not fit the 8-bit active_speed (the kernel leaves it 0 and reports 256 in
// active_speed_ex, which the exported compat ibv_query_port never writes); NDR is 128 in both.
SimPortDesc ibPort(int host, int index, uint64_t guid, int gbps, bool xdr, uint8_t width, const char* widthText) {
  SimPortDesc port;
  port.ethernet = false;
  port.lid = static_cast<uint16_t>(host * 16 + index + 1);
  port.activeWidth = width;
  port.activeSpeed = xdr ? 0 : 128;
  port.activeSpeedEx = xdr ? 256 : 128;
  port.speed100Mbps = static_cast<uint64_t>(gbps) * 10;
  port.rateText = std::to_string(gbps) + " Gb/sec (" + widthText + (xdr ? " XDR)" : " NDR)");
  port.gids.push_back(linkLocalGid(guid, false));
  return port;
}

SimFabric gb300(int hosts, bool twoPlanes) {
  SimFabric fabric{twoPlanes ? "gb300-2plane" : "gb300", {}};
  for (int h = 0; h < hosts; ++h) {
    SimHostDesc host{"host" + std::to_string(h), {}};
    for (int card = 0; card < 4; ++card) {
      for (int plane = 0; plane < (twoPlanes ? 2 : 1); ++plane) {
        int index = static_cast<int>(host.devices.size());
        SimDeviceDesc dev;
        dev.name = "mlx5_" + std::to_string(index);
        dev.nodeGuid = fabricGuid(h, card, plane);
        dev.sysImageGuid = fabricGuid(h, card, 0);  // one per ConnectX-8, shared by its planes
        dev.vendorPartId = 4131;
        dev.rail = card;
        dev.plane = plane;
        char pci[32];
        std::snprintf(pci, sizeof pci, "0000:%02x:00.%d", 0x03 + card * 0x40, plane);
        dev.pciAddress = pci;
        dev.ports.push_back(twoPlanes ? ibPort(h, index, dev.nodeGuid, 400, true, 16, "2X")
                                      : ibPort(h, index, dev.nodeGuid, 800, true, 2, "4X"));
        host.devices.push_back(dev);
      }
    }
    fabric.hosts.push_back(host);
  }
  return fabric;
}

SimFabric dgxH100Roce(int hosts) {
  SimFabric fabric{"dgx-h100-roce", {}};
  for (int h = 0; h < hosts; ++h) {
    SimHostDesc host{"host" + std::to_string(h), {}};
    for (int rail = 0; rail < 8; ++rail) {
      SimDeviceDesc dev;
      dev.name = "mlx5_" + std::to_string(rail);
      dev.nodeGuid = fabricGuid(h, rail, 0);
      dev.sysImageGuid = dev.nodeGuid;
      dev.vendorPartId = 4129;
      dev.rail = rail;
      char pci[32];
      std::snprintf(pci, sizeof pci, "0000:%02x:00.0", 0x0c + rail * 0x10);
      dev.pciAddress = pci;
      SimPortDesc port;
      port.ethernet = true;
      port.activeWidth = 2;
      port.activeSpeed = 128;
      port.activeSpeedEx = 128;
      port.speed100Mbps = 4000;
      port.rateText = "400 Gb/sec (4X NDR)";
      port.activeMtu = 5;
      port.gids = {linkLocalGid(dev.nodeGuid, false), linkLocalGid(dev.nodeGuid, true),
                   ipv4MappedGid(10, rail, h & 0xff, 1, false), ipv4MappedGid(10, rail, h & 0xff, 1, true)};
      dev.ports.push_back(port);
      host.devices.push_back(dev);
    }
    fabric.hosts.push_back(host);
  }
  return fabric;
}

uint64_t fnv1a(const std::string& text) {
  uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

// "host1/mlx5_0/1": a port to mark down.
bool markDown(SimFabric& fabric, const std::string& spec, std::string* error) {
  std::istringstream in(spec);
  std::string host, dev, port;
  std::getline(in, host, '/');
  std::getline(in, dev, '/');
  std::getline(in, port, '/');
  for (SimHostDesc& h : fabric.hosts) {
    if (h.name != host) continue;
    for (SimDeviceDesc& d : h.devices) {
      if (d.name != dev) continue;
      for (SimPortDesc& p : d.ports) {
        if (std::to_string(p.number) == port) {
          p.up = false;
          return true;
        }
      }
    }
  }
  *error = "\"down\": no port " + spec + " (host/device/port)";
  return false;
}

std::optional<SimFabric> fabricFromJson(const nlohmann::json& doc, std::string* error) {
  if (!doc.is_object() || !doc.contains("preset")) {
    *error = "a fabric file is an object with \"preset\" (README.md, \"Fabric description\")";
    return std::nullopt;
  }
  int count = 0;
  std::vector<std::string> names;
  if (doc.contains("hosts")) {
    if (doc["hosts"].is_number_integer()) {
      count = doc["hosts"].get<int>();
    } else if (doc["hosts"].is_array()) {
      for (const auto& n : doc["hosts"]) names.push_back(n.get<std::string>());
      count = static_cast<int>(names.size());
    }
    if (count <= 0 || count > 4096) {
      *error = "\"hosts\" must be a count in 1..4096 or a list of names";
      return std::nullopt;
    }
  }
  auto fabric = presetFabric(doc["preset"].get<std::string>(), count);
  if (!fabric) {
    *error = "unknown preset '" + doc["preset"].get<std::string>() + "'";
    return std::nullopt;
  }
  for (size_t i = 0; i < names.size(); ++i) fabric->hosts[i].name = names[i];
  if (doc.contains("down")) {
    for (const auto& spec : doc["down"]) {
      if (!markDown(*fabric, spec.get<std::string>(), error)) return std::nullopt;
    }
  }
  if (doc.contains("flid")) {
    // GID index 1 of every InfiniBand port: the subnet prefix with a non-zero FLID in bytes 4-5, as on a
    // fabric with routers (NCCL then addresses the peer by FLID when prefixes differ).
    uint16_t flidBase = static_cast<uint16_t>(doc["flid"].get<int>());
    for (SimHostDesc& h : fabric->hosts) {
      for (SimDeviceDesc& d : h.devices) {
        for (SimPortDesc& p : d.ports) {
          if (p.ethernet || p.gids.empty()) continue;
          SimGid gid = p.gids[0];
          uint16_t flid = static_cast<uint16_t>(flidBase + p.lid);
          gid.raw[4] = static_cast<uint8_t>(flid >> 8);
          gid.raw[5] = static_cast<uint8_t>(flid);
          p.gids.push_back(gid);
        }
      }
    }
  }
  return fabric;
}

}  // namespace

std::vector<std::string> presetNames() {
  return {"gb300", "gb300-2plane", "dgx-h100-roce"};
}

std::optional<SimFabric> presetFabric(const std::string& name, int hosts) {
  if (name == "gb300") return gb300(hosts > 0 ? hosts : 18, false);
  if (name == "gb300-2plane") return gb300(hosts > 0 ? hosts : 18, true);
  if (name == "dgx-h100-roce") return dgxH100Roce(hosts > 0 ? hosts : 16);
  return std::nullopt;
}

std::optional<SimFabric> loadFabric(const std::string& nameOrPath, std::string* error) {
  if (auto preset = presetFabric(nameOrPath)) return preset;
  std::ifstream in(nameOrPath);
  if (!in) {
    *error = "fabric '" + nameOrPath + "' is neither a preset (gb300, gb300-2plane, dgx-h100-roce) nor a file";
    return std::nullopt;
  }
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded()) {
    *error = nameOrPath + ": not JSON";
    return std::nullopt;
  }
  try {
    auto fabric = fabricFromJson(doc, error);
    if (!fabric && !error->empty()) *error = nameOrPath + ": " + *error;
    return fabric;
  } catch (const nlohmann::json::exception& e) {
    *error = nameOrPath + ": " + e.what();
    return std::nullopt;
  }
}

std::optional<SimFabric> fabricFromEnvironment(std::string* error) {
  const char* env = std::getenv("RAILTUNE_VERBS_SIM_FABRIC");
  return loadFabric(env != nullptr && *env != '\0' ? env : "gb300", error);
}

int selectHost(const SimFabric& fabric, const std::string& selector) {
  if (fabric.hosts.empty()) return 0;
  std::string key = selector;
  for (const char* var : {"RAILTUNE_VERBS_SIM_HOST", "RAILTUNE_HOST", "NCCL_HOSTID"}) {
    if (!key.empty()) break;
    if (const char* env = std::getenv(var); env != nullptr) key = env;
  }
  if (key.empty()) {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    key = name;
  }
  for (size_t i = 0; i < fabric.hosts.size(); ++i) {
    if (fabric.hosts[i].name == key) return static_cast<int>(i);
  }
  if (key.find_first_not_of("0123456789") == std::string::npos && key.size() < 9) {
    int index = std::atoi(key.c_str());
    if (index < static_cast<int>(fabric.hosts.size())) return index;
  }
  return static_cast<int>(fnv1a(key) % fabric.hosts.size());
}

std::string gidText(const SimGid& gid) {
  std::string out;
  char part[8];
  for (int i = 0; i < 16; i += 2) {
    std::snprintf(part, sizeof part, "%02x%02x", gid.raw[i], gid.raw[i + 1]);
    if (i > 0) out += ':';
    out += part;
  }
  return out;
}

std::string guidText(uint64_t guid) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%04x:%04x:%04x", static_cast<unsigned>(guid >> 48) & 0xffff,
                static_cast<unsigned>(guid >> 32) & 0xffff, static_cast<unsigned>(guid >> 16) & 0xffff,
                static_cast<unsigned>(guid) & 0xffff);
  return text;
}

}  // namespace railtune::verbs_sim
