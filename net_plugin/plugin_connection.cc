// See plugin_connection.h.
#include "net_plugin/plugin_connection.h"

#include "formats/net_event.h"
#include "nccl/profiler_common.h"

namespace railtune::net {

void* Connection::started(void* parentHandle, size_t bytes) noexcept {
  railtuneNetEventDescr_v1_t event{};
  event.type = record.direction == formats::path_log::Direction::Send ? railtuneNetEventSend : railtuneNetEventRecv;
  event.connection = record.connection;
  event.device = record.local.device;
  event.hca = hca.c_str();
  event.netdev = netdev.c_str();
  event.rail = record.local.rail;
  event.plane = record.local.plane;
  event.peerHost = peerHost.c_str();
  event.peerRank = record.remote.rank;
  event.bytes = bytes;
  void* handle = nullptr;  // NCCL leaves it NULL when no profiler wants the event
  const int64_t pluginId = RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION;
  if (profiler(&handle, ncclProfilerNetEventStart, parentHandle, pluginId, &event) != ncclSuccess) return nullptr;
  return handle;
}

void* Connection::startedQp(void* parentHandle, int device, uint64_t wrId, int opcode, int qpNum,
                            size_t length) noexcept {
  ncclProfilerNetIbDescr_v1_t event{};
  event.type = ncclProfileQp;
  event.qp.device = device;
  event.qp.wr_id = wrId;
  event.qp.opcode = opcode;
  event.qp.qpNum = qpNum;
  event.qp.length = length;
  void* handle = nullptr;
  const int64_t pluginId = NCCL_PROFILER_NET_TYPE_IB | 1;
  if (profiler(&handle, ncclProfilerNetEventStart, parentHandle, pluginId, &event) != ncclSuccess) return nullptr;
  return handle;
}

void Connection::stopped(void* event) noexcept {
  void* handle = event;
  (void)profiler(&handle, ncclProfilerNetEventStop, nullptr, 0, nullptr);  // nothing to do about a failure here
}

}  // namespace railtune::net
