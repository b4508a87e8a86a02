// The rail map: per host, which NIC (HCA, netdev, port), rail and plane serve each GPU. topo_gen writes it
// from the fabric model (`railtune topo rail-map`); the plugins read it from RAILTUNE_RAIL_MAP and never
// read the YAML. The reader is strict, because a plugin that guesses a rail crosses it: an unknown schema,
// a missing or mistyped field, an unknown key or a duplicate is an error naming the field and the host.
// Format: docs/formats.md, schema docs/formats/rail-map.schema.json.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/qp_policy.h"
#include "formats/measured_env.h"
#include "formats/schemas.h"

namespace railtune::formats {

struct RailMapNic {
  std::string hca;     // "mlx5_0"
  std::string netdev;  // "" = unknown
  std::string busId;   // "0000:03:00.0"
  int port = 1;
  int rail = -1;
  int plane = -1;     // -1 = single plane
  int speedMbps = 0;  // the port's speed (speed_mbps); 0 = not given (files written before it existed)
};

struct RailMapGpu {
  int index = 0;
  std::string busId;
  std::vector<RailMapNic> nics;  // rail order, then plane order
};

struct RailMapHost {
  std::string name;
  std::string domain;
  std::vector<RailMapGpu> gpus;
  // The rail a GPU's traffic should leave on: its first NIC's (rail order); -1 when the GPU or its NICs are
  // not in the map. The net plugin and `railtune paths import` both ask it.
  int expectedRail(int gpuIndex) const;
  const RailMapGpu* findGpuByBusId(const std::string& busId) const;  // "0000:18:00.0", case-insensitive
  const RailMapNic* findNic(const std::string& hca) const;           // any GPU's NIC of this HCA name
};

// What the fabric description says of the network as a whole, for the QP policy (common/qp_policy.h): the
// optional `network` object. Every field is optional; unset = unknown (a map written before it existed, or a
// fabric that does not state it).
struct RailMapNetwork {
  std::optional<qp::LinkLayer> linkLayer;  // link_layer: "InfiniBand" or "Ethernet" (RoCE), when every rail NIC agrees
  std::optional<bool> adaptiveRouting;     // adaptive_routing: the switches route adaptively
  int trafficClass = -1;                   // traffic_class, 0..255; -1 unknown
  int serviceLevel = -1;                   // service_level, 0..15; -1 unknown
  int gidIndex = -1;                       // gid_index, 0..65535: the one every rail NIC uses; -1 unknown
  // measured: the network settings a sweep measured on this fabric (`railtune topo rail-map --measured`, from a
  // railtune.net-env/1 entry): its NCCL variables (`env`, names and values as formats/measured_env.h allows) and
  // their one-sentence source; both empty when the map has none.
  MeasuredEnv measured;
  std::string measuredSource;
};

struct RailMap {
  std::string cluster;
  // `gpu`: the GPU model as NCCL and nccl-tests name the device ("NVIDIA GB300"), when every GPU of the map is
  // that model; "" = not stated. The tuner matches a fitted model's `applies_to.gpu` against it.
  std::string gpu;
  int rails = 0;
  int planes = 1;
  std::vector<RailMapHost> hosts;
  RailMapNetwork network;  // `network`; all unknown when the file has none

  const RailMapHost* findHost(const std::string& name) const;
};

// A rail map that cannot be used. problems() lists every problem found, each "source:line:column:
// message" (or "source: message" where no position applies); what() is the first one, with a count
// of the others.
class RailMapError : public std::runtime_error {
 public:
  explicit RailMapError(const std::string& what) : std::runtime_error(what), problems_{what} {}
  explicit RailMapError(std::vector<std::string> problems);
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// Parses rail-map JSON; `source` (a path) prefixes every message. Throws RailMapError. Besides the
// shape (fields, types, no unknown or duplicated key), it checks the values: rails >= 1, every rail and
// plane within the map's counts, PCI bus ids "dddd:bb:dd.f", HCA names within NCCL's IB device name
// length, host and domain names valid DNS-1123 names (formats/names.h), no NUL in any string, and the
// optional `network` facts of the right type and within their ranges. The plugins and `railtune topo check
// --rail-map` all read through it.
RailMap parseRailMap(const std::string& text, const std::string& source);
RailMap readRailMapFile(const std::string& path);

// The fabric shape the QP policy reads (common/qp_policy.h), from a rail map: one function for both of its
// consumers, so that the net plugin's verbs transport (which reads the map) chooses what `railtune topo env`
// (which reads the fabric model the map is written from) chooses. Link layer, adaptive routing, traffic class,
// service level, GID index and the measured settings come from the map's `network`; rails (distinct rails), planes (the
// most on one rail) and speed (the slowest port) from `host`'s NICs, or the map's `rails` and `planes` when `host` is
// null or has no NIC. Every fact the map does not state keeps `unstated`'s value (the net plugin passes what its
// devices show; by default FabricShape's defaults: InfiniBand, AR unknown, speed, GID, TC and SL unknown).
qp::FabricShape fabricShapeOf(const RailMap& map, const RailMapHost* host, const qp::FabricShape& unstated = {});

}  // namespace railtune::formats
