// What the net plugin reads from sysfs: RDMA devices (`sys/class/infiniband`) and network interfaces
// (`sys/class/net`) under a root that is "/" on a live host and a fake tree in tests. Reading never
// throws and never blocks: a missing or unreadable attribute is reported as absent, only regular files
// are read, and at most a few KiB of each. (The CLI's discovery has its own reader; this one is small
// and has no dependency, because it goes into the plugin's shared object.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::net {

struct RdmaPort {
  int number = 0;
  bool active = false;    // state "4: ACTIVE" (IBV_PORT_ACTIVE)
  std::string state;      // as read, "" when unreadable
  std::string linkLayer;  // "InfiniBand", "Ethernet", "" when unreadable
  int speedMbps = 0;      // from `rate`; 0 when unreadable
};

struct RdmaDevice {
  std::string name;     // "mlx5_0"
  std::string pciPath;  // NCCL's: realpath of the PCI function with its function digit set to '0'; "" if none
  uint64_t guid = 0;    // sys_image_guid; 0 when unreadable
  std::vector<std::string> netdevs;  // device/net/*, sorted
  std::vector<RdmaPort> ports;       // sorted by number
};

struct NetInterface {
  std::string name;
  std::string pciPath;    // realpath of device/ ("" for a virtual interface)
  std::string operstate;  // "up", "down", "unknown", "" when unreadable
  int speedMbps = 0;      // from `speed`; 0 when unreadable or not positive
};

// The first line of a small regular file, trailing blanks removed.
std::optional<std::string> readSysfsLine(const std::string& path);

// Pure parsers of sysfs values, exposed for tests.
bool parsePortActive(std::string_view state);              // "4: ACTIVE"
int parseRateMbps(std::string_view rate);                  // "800 Gb/sec (4X XDR)" -> 800000, "2.5 Gb/sec" -> 2500
std::optional<uint64_t> parseGuid(std::string_view text);  // "b83f:d203:00a1:b220"

std::vector<RdmaDevice> readRdmaDevices(const std::string& root);      // sorted by name
std::vector<NetInterface> readNetInterfaces(const std::string& root);  // sorted by name
NetInterface readNetInterface(const std::string& root, const std::string& name);

// `root` joined with an absolute sysfs path ("/" + "/sys/class/net" = "/sys/class/net").
std::string underRoot(const std::string& root, std::string_view path);

}  // namespace railtune::net
