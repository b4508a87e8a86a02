// The sysfs source of `railtune topo discover`: the RDMA devices under /sys/class/infiniband and the
// network interfaces under /sys/class/net, read into a SysfsInventory (inventory.h). `root` is ""
// or "/" for the live system, or a fixture directory holding the same tree (sys/class/...,
// sys/devices/...) with the same relative symlinks. Symlinks are resolved inside that root, never
// above it, with a bounded number of expansions, and every file is read with a size cap: sysfs
// can hold loops, huge attributes and files whose read fails (EINVAL for the speed of a down link).
//
// The small text parsers are public so that the unit tests and the fuzzer reach them directly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabric/discover/inventory.h"

namespace railtune::fabric::discover {

// Devices are sorted by name with digit runs compared as numbers (mlx5_2 before mlx5_10); `lo` is skipped.
SysfsInventory readSysfs(const std::string& root);

// ---- reading files and links ---------------------------------------------------------------------

inline constexpr size_t kSysfsMaxRead = 4096;  // one page: what any sysfs attribute can hold
inline constexpr int kSysfsMaxLinks = 32;      // symlink expansions per path (loops end here)

struct SysfsRead {
  int error = 0;     // errno of the open or read; 0 = read
  std::string text;  // at most kSysfsMaxRead bytes, trailing whitespace removed
};
SysfsRead readSysfsFile(const std::string& path);

// `relative` (a path below root, "sys/class/infiniband/mlx5_0/device") with every symlink resolved
// inside root: absolute targets start again at root and ".." stops at root. Returns the resolved
// path relative to root with a leading '/', or nullopt with *error set (ENOENT, ELOOP, ...).
std::optional<std::string> resolveInRoot(const std::string& root, const std::string& relative, int* error);

// Where a resolved sysfs device path sits on PCI: "/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0"
// gives busId "0000:03:00.0" and upstream {"pci0000:00", "0000:00:01.0"}. The bus id is the last PCI
// function on the path (a virtio device below a PCI function reports that function); a path with
// none (/sys/devices/virtual/...) gives an empty bus id and no upstream.
struct PciLocation {
  std::string busId;
  std::vector<std::string> upstream;  // host bridge first
};
PciLocation pciLocationOf(const std::string& devicePath);

// ---- text parsers (input as read, trailing whitespace already removed or not) ---------------------

// ports/P/rate: "400 Gb/sec (4X NDR)" -> 400000, "2.5 Gb/sec (1X SDR)" -> 2500 (Mb/s; fractions of a
// Mb/s are dropped). nullopt for anything else, zero, or above 100 Tb/s.
std::optional<int> parseRateMbps(const std::string& text);

// node_guid, sys_image_guid: "b83f:d203:00a1:b2c3" (four groups of four hex digits).
std::optional<uint64_t> parseGuid(const std::string& text);
std::string formatGuid(uint64_t guid);  // the inverse, lowercase

// ports/P/gids/N: eight groups of four hex digits; formatGid gives the canonical lowercase text.
using GidBytes = std::array<uint8_t, 16>;
std::optional<GidBytes> parseGid(const std::string& text);
std::string formatGid(const GidBytes& gid);
bool isZeroGid(const GidBytes& gid);
// The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d, what RoCE v2 uses for IPv4), "10.0.1.5".
std::optional<std::string> gidIpv4(const GidBytes& gid);

// device/numa_node: a decimal from -1 to 65535 (-1 = the platform does not say).
std::optional<int> parseNumaNode(const std::string& text);

// device/vendor, device/device: "0x15b3" (0x and one to four hex digits).
std::optional<uint16_t> parseHexId(const std::string& text);

// ports/P/state: "4: ACTIVE" -> "ACTIVE".
std::optional<std::string> parsePortState(const std::string& text);

// A decimal integer that fits an int: net speed ("-1" allowed), mtu, type.
std::optional<int> parseSysfsInt(const std::string& text);

// /sys/class/net/X/speed: the value, or -1 when unreadable (EINVAL while the link is down) or unknown.
int netSpeedMbps(const SysfsRead& read);

}  // namespace railtune::fabric::discover
