// One connection as the plugin sees it: its path log record, its traffic counters and its profiler
// events. Made at connect/accept (plugin_engine.cc), owned by the engine until close. Its data-path
// members are touched only by the comm's proxy thread.
#pragma once

#include <memory>
#include <string>

#include "formats/path_log.h"
#include "net_plugin/engine.h"
#include "net_plugin/pathlog/counters.h"
#include "net_plugin/transports/transport.h"

namespace railtune::net {

class Connection final : public TransferObserver {
 public:
  Connection() : counters(std::make_shared<pathlog::ConnectionCounters>()) {}

  // Profiler events (net v10+): railtune's own event type, see formats/net_event.h.
  void* started(void* parentHandle, size_t bytes) noexcept override;
  void stopped(void* event) noexcept override;
  // And NCCL's own IB descriptor for each QP of a verbs transfer (the profiler decodes both).
  void* startedQp(void* parentHandle, int device, uint64_t wrId, int opcode, int qpNum,
                  size_t length) noexcept override;

  formats::path_log::PathRecord record;  // the connect record; its rank fields are set by the first transfer
  std::shared_ptr<pathlog::ConnectionCounters> counters;
  bool announced = false;  // the connect record was queued
  ProfilerCallback profiler = nullptr;
  std::string hca, netdev, peerHost;  // stable strings the profiler events point to
};

}  // namespace railtune::net
