// The simulated fabric: hosts, their RDMA devices, ports and GID tables, from a built-in preset or a JSON
// file. Every process of a simulated job reads the same description (RAILTUNE_VERBS_SIM_FABRIC) and picks
// its own host (RAILTUNE_VERBS_SIM_HOST, ...), so that a GID or LID named in a QP's address vector maps to
// one device of one host without any exchange between the processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railtune::verbs_sim {

struct SimGid {
  uint8_t raw[16] = {};
  bool roceV2 = false;  // gid_attrs/types: "RoCE v2", else "IB/RoCE v1"
};

struct SimPortDesc {
  int number = 1;
  bool up = true;
  bool ethernet = false;       // link layer: Ethernet (RoCE) or InfiniBand
  uint16_t lid = 0;            // 0 on Ethernet
  uint8_t activeWidth = 2;     // IB encoding: 1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X
  uint8_t activeSpeed = 0;     // ibv_port_attr.active_speed (8-bit; 0 when the speed does not fit, XDR)
  uint32_t activeSpeedEx = 0;  // ibv_port_attr.active_speed_ex (XDR = 256)
  uint64_t speed100Mbps = 0;   // ibv_query_port_speed's answer
  std::string rateText;        // sysfs `rate`: "800 Gb/sec (4X XDR)"
  int activeMtu = 5;           // IBV_MTU_4096
  std::vector<SimGid> gids;
};

struct SimDeviceDesc {
  std::string name;  // "mlx5_0"
  uint64_t nodeGuid = 0;
  uint64_t sysImageGuid = 0;
  uint32_t vendorPartId = 0;  // 4129 ConnectX-7, 4131 ConnectX-8
  int rail = 0;
  int plane = 0;
  std::string pciAddress;  // "0000:1a:00.0": the sysfs tree's device link names it
  std::vector<SimPortDesc> ports;
};

struct SimHostDesc {
  std::string name;
  std::vector<SimDeviceDesc> devices;
};

struct SimFabric {
  std::string name;
  std::vector<SimHostDesc> hosts;
};

// "gb300", "gb300-2plane", "dgx-h100-roce".
std::vector<std::string> presetNames();
// A preset with `hosts` hosts (0: the preset's default count). nullopt for an unknown name.
std::optional<SimFabric> presetFabric(const std::string& name, int hosts = 0);
// A preset name or the path of a JSON file (README.md, "Fabric description"). Sets *error and returns
// nullopt when neither.
std::optional<SimFabric> loadFabric(const std::string& nameOrPath, std::string* error);
// The fabric named by RAILTUNE_VERBS_SIM_FABRIC (default "gb300"), or nullopt with *error.
std::optional<SimFabric> fabricFromEnvironment(std::string* error);

// The host index for a selector: a host name, a decimal index, or anything else hashed (FNV-1a) onto
// the hosts. Empty selector: RAILTUNE_VERBS_SIM_HOST, else RAILTUNE_HOST, else NCCL_HOSTID, else the
// hostname, in that order.
int selectHost(const SimFabric& fabric, const std::string& selector = "");

// "fe80:0000:0000:0000:b83f:d203:0001:0000", as sysfs prints GIDs.
std::string gidText(const SimGid& gid);
// A GUID as sysfs prints it: "b83f:d203:0001:0000".
std::string guidText(uint64_t guid);

}  // namespace railtune::verbs_sim
