// Decoding of ncclProfileNetPlugin events: the plugin id's type bits say whose descriptor `data` points
// to. railtune's own net plugin (formats/net_event.h) names device, HCA, rail and plane; NCCL's
// internal IB and socket transports (when NCCL is built with NCCL_ENABLE_NET_PROFILING) name a device
// and QP, or a socket. The descriptor is valid only during startEvent, so everything is copied.
#pragma once

#include <cstddef>
#include <cstdint>

#include "profiler_plugin/profile_format.h"

namespace railtune::profiler {

// NCCL's own NetPlugin descriptors, declared from NCCL's src/include/plugin/profiler/net_ib_v1.h and
// net_socket_v1.h (NCCL does not install them). Type bits 16..31 of the plugin id, version in 0..15.
inline constexpr int64_t kNcclNetTypeIb = 1 << 16;
inline constexpr int64_t kNcclNetTypeSocket = 2 << 16;
inline constexpr int64_t kNetTypeMask = 0xffff0000;
inline constexpr int64_t kNetVersionMask = 0xffff;
inline constexpr uint8_t kNcclProfileQp = 1 << 0;      // ncclProfilerNetIbDescr_v1_t::type
inline constexpr uint8_t kNcclProfileSocket = 1 << 0;  // ncclProfilerNetSockDescr_v1_t::type

struct NcclNetIbDescrV1 {
  uint8_t type;
  union {
    struct {
      int device;
      uint64_t wr_id;
      int opcode;
      int qpNum;
      size_t length;
    } qp;
  };
};

struct NcclNetSockDescrV1 {
  uint8_t type;
  union {
    struct {
      int fd;
      int op;
      size_t length;
    } sock;
  };
};

// Layouts as NCCL's C compiler lays them out (x86-64 and aarch64 LP64).
static_assert(sizeof(NcclNetIbDescrV1) == 40 && offsetof(NcclNetIbDescrV1, qp) == 8);
static_assert(sizeof(NcclNetSockDescrV1) == 24 && offsetof(NcclNetSockDescrV1, sock) == 8);

// Where a flow's transfers went, as one NetPlugin event says.
struct NetEndpoint {
  int device = -1;
  int rail = -1;
  int plane = -1;
  InlineText<32> label;  // "mlx5_3", "ib dev 2 qp 417", "socket fd 17"
};

enum class NetDecode { Railtune, NcclIb, NcclSocket, Unknown };

// Fills `out` from a NetPlugin event's id and data; Unknown (and `out` untouched) for an id type or
// version this code does not know, a descriptor type it does not know, or NULL data.
NetDecode decodeNetEvent(int64_t pluginId, const void* data, NetEndpoint& out);

}  // namespace railtune::profiler
