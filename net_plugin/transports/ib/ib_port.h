// What the verbs transport decides about one HCA port from what libibverbs and sysfs report, as NCCL's IB
// transport decides it (docs/net-ib.md cites the lines): the port's speed, the path MTU two ends agree on,
// and the GID index a connection uses. Pure functions, so they are tested without hardware.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/nccl_ib_env.h"
#include "net_plugin/transports/ib/verbs_abi.h"

namespace railtune::net::ib {

// Mb/s: lane speed (lowest set bit of active_speed_ex, else of active_speed) times width (lowest set bit of
// active_width), as NCCL's ncclIbSpeed/ncclIbWidth (src/transport/net_ib/init.cc@v2.30.7). 0 for a port
// that reports neither.
int portSpeedMbps(const IbvPortAttr& attr);

// The smaller of two IbvMtu values (RTR's path_mtu: both ends must use the same).
int pathMtu(int local, int remote);
int mtuBytes(int mtu);  // kIbvMtu4096 -> 4096; 0 for an unknown value

// What the GID choice takes from NCCL's variables (NCCL's names, NCCL's defaults).
struct GidOptions {
  int gidIndex = -1;             // NCCL_IB_GID_INDEX (RoCE): >= 0 wins
  int family = 2;                // NCCL_IB_ADDR_FAMILY: AF_INET (2) or AF_INET6 (10)
  std::string range;             // NCCL_IB_ADDR_RANGE "addr/len"; "" = any
  int roceVersion = 2;           // NCCL_IB_ROCE_VERSION_NUM
  int routableFlidGidIndex = 1;  // NCCL_IB_ROUTABLE_FLID_GID_INDEX (IB)
};
// From NCCL's variables as read once (common/nccl_ib_env.h) and the QP policy's GID index (NCCL_IB_GID_INDEX where
// the user set it, else the fabric's, else -1).
GidOptions gidOptionsFrom(const ncclib::NcclIbEnv& env, int policyGidIndex);

// Reads one GID of the port; false when the index cannot be read.
using GidReader = std::function<bool(int index, IbvGid& gid)>;
// The RoCE version of a GID index (sysfs gid_attrs/types: "RoCE v2" = 2, "IB/RoCE v1" = 1); nullopt when
// hidden or unreadable (NCCL skips such an index).
using GidTypeReader = std::function<std::optional<int>(int index)>;

struct GidChoice {
  int index = 0;
  IbvGid gid{};
  std::string why;  // for the INFO line: "IB GID 0", "RoCE v2 IPv4 GID 3"
};
// NCCL's ncclIbGetGidIndex (src/transport/net_ib/connect.cc@v2.30.7): IB uses the routable-FLID index when that
// GID has a non-zero FLID, else 0; RoCE takes NCCL_IB_GID_INDEX when set, else scans for the wanted address
// family, range and RoCE version. Throws std::runtime_error when the chosen GID cannot be read.
GidChoice chooseGid(const IbvPortAttr& port, const GidOptions& options, const GidReader& readGid,
                    const GidTypeReader& readType);

// The sysfs reader of a port's GID types (root: "/" live, a fake tree in tests).
GidTypeReader sysfsGidTypes(const std::string& root, const std::string& device, int port);

// "fe80:0000:0000:0000:b83f:d203:00a1:b220", as sysfs prints a GID.
std::string gidText(const IbvGid& gid);
// 0 = IPv4-mapped (AF_INET), else AF_INET6, as NCCL's ncclIbExtractAddressFamily.
int gidFamily(const IbvGid& gid);

}  // namespace railtune::net::ib
