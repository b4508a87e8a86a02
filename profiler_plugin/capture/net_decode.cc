// See net_decode.h.
#include "profiler_plugin/capture/net_decode.h"

#include <cstdio>

#include "formats/net_event.h"

namespace railtune::profiler {
namespace {

NetDecode decodeRailtune(const railtuneNetEventDescr_v1_t& event, NetEndpoint& out) {
  out.device = event.device;
  out.rail = event.rail;
  out.plane = event.plane;
  out.label.assign(event.hca != nullptr ? event.hca : "");
  return NetDecode::Railtune;
}

}  // namespace

NetDecode decodeNetEvent(int64_t pluginId, const void* data, NetEndpoint& out) {
  if (data == nullptr) return NetDecode::Unknown;
  const int64_t type = pluginId & kNetTypeMask;
  const int64_t version = pluginId & kNetVersionMask;
  if (version < 1) return NetDecode::Unknown;
  if (type == RAILTUNE_PROFILER_NET_TYPE) {
    // Later versions only append fields, so a newer descriptor starts with version 1's.
    return decodeRailtune(*static_cast<const railtuneNetEventDescr_v1_t*>(data), out);
  }
  if (type == kNcclNetTypeIb && version == 1) {
    const auto& ib = *static_cast<const NcclNetIbDescrV1*>(data);
    if (ib.type != kNcclProfileQp) return NetDecode::Unknown;
    out.device = ib.qp.device;
    char text[32];
    std::snprintf(text, sizeof(text), "ib dev %d qp %d", ib.qp.device, ib.qp.qpNum);
    out.label.assign(text);
    return NetDecode::NcclIb;
  }
  if (type == kNcclNetTypeSocket && version == 1) {
    const auto& sock = *static_cast<const NcclNetSockDescrV1*>(data);
    if (sock.type != kNcclProfileSocket) return NetDecode::Unknown;
    char text[32];
    std::snprintf(text, sizeof(text), "socket fd %d", sock.sock.fd);
    out.label.assign(text);
    return NetDecode::NcclSocket;
  }
  return NetDecode::Unknown;
}

}  // namespace railtune::profiler
