// PluginEngine: what NCCL talks to when railtune carries the traffic. It owns the device table
// (virtual devices, NIC fusion), one transport (transports/transport.h: sockets today), and what
// the plugin adds on top of any transport:
//   - the handshake header each connection sends in its preamble, and the checks on the peer's
//     (a peer that is not railtune fails the connection; a configuration digest that differs is a
//     WARN, a failure under RAILTUNE_STRICT=1);
//   - the rail check: the actual rail of the NIC a connection leaves through against the rail the
//     rail map gives the GPU it serves (served_gpu.h); a mismatch is a WARN and is marked in the log;
//   - the path log records of each connection and its traffic counters;
//   - profiler events naming the NIC of every transfer (formats/net_event.h).
// See docs/net.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/identity.h"
#include "common/log.h"
#include "formats/rail_map.h"
#include "net_plugin/devices/device_table.h"
#include "net_plugin/engine.h"
#include "net_plugin/pathlog/writer.h"
#include "net_plugin/transports/ib/ib_engine.h"
#include "net_plugin/transports/socket/socket_engine.h"
#include "net_plugin/transports/transport.h"

namespace railtune::net {

struct PluginOptions {
  Identity identity;
  uint64_t digest = 0;  // common/config_digest.h, computed at init
  bool strict = false;  // RAILTUNE_STRICT: a digest mismatch fails the connection
  socket::SocketEngineOptions socket;
  // Set: the traffic goes over verbs (transports/ib/, RAILTUNE_NET_TRANSPORT=ib), else over TCP sockets.
  std::optional<ib::IbTransportSetup> ib;
  std::shared_ptr<const formats::RailMap> railMap;  // NULL: none
  std::string railMapHost;                          // this host's name in it
  std::optional<std::pair<int, int>> misbind;       // physical device FROM leaves through TO (a fault, for tests)
  std::unique_ptr<pathlog::PathLogWriter> pathLog;  // NULL: no path log
  ProfilerCallback profiler = nullptr;
  std::function<std::optional<std::string>()> cudaBusId;  // empty: served_gpu.h's currentCudaBusId
  EnvLookup env = processEnv;
};

class Connection;

class PluginEngine final : public Engine {
 public:
  // Throws NetError when the transport refuses the devices (an address that is not numeric...).
  PluginEngine(std::vector<NetDevice> devices, PluginOptions options, const Log& log);
  ~PluginEngine() override;
  PluginEngine(const PluginEngine&) = delete;
  PluginEngine& operator=(const PluginEngine&) = delete;

  const char* name() const override { return transport_->name(); }
  int deviceCount() override { return table_.count(); }
  DeviceProperties properties(int dev) override { return table_.properties(dev); }
  int makeVirtualDevice(std::span<const int> members, size_t maxMembers) override;
  ListenComm* listen(int dev, const CommConfig& config, std::span<std::byte, kHandleBytes> handle) override;
  SendComm* connect(int dev, const CommConfig& config, std::span<const std::byte, kHandleBytes> handle) override;
  RecvComm* accept(ListenComm* listener) override;
  MemoryRegion* registerMemory(void* comm, void* data, size_t size, MemoryType type) override;
  MemoryRegion* registerDmaBuf(void* comm, void* data, size_t size, uint64_t offset, int fd) override;
  void deregisterMemory(void* comm, MemoryRegion* region) override;
  Request* isend(SendComm* comm, void* data, size_t size, int tag, MemoryRegion* region, void* profilerHandle) override;
  Request* irecv(RecvComm* comm, std::span<const RecvBuffer> buffers) override;
  Request* iflush(RecvComm* comm, std::span<const RecvBuffer> buffers) override;
  Completion test(Request* request) override;
  void closeSend(SendComm* comm) override;
  void closeRecv(RecvComm* comm) override;
  void closeListen(ListenComm* listener) override;
  void setNetAttributes(std::optional<uint64_t> commId, const NetAttributes& attributes) override;

 private:
  struct ListenerInfo {
    int vdev = -1;
    std::optional<uint64_t> commId;
  };
  int physicalOf(int vdev) const;  // the member the transport uses, after the misbinding fault
  void* adopt(void* comm, int vdev, bool send, std::optional<uint64_t> commId);
  // The peer's handshake header from its preamble, and whether its configuration digest matches ours. A header
  // that does not decode, or a digest that differs under RAILTUNE_STRICT=1, closes the comm and throws
  // NetError(Remote); a digest that differs otherwise is a (rate-limited) WARN.
  formats::path_log::HandshakeHeader checkedPeer(void* comm, const Transport::ConnectionFacts& facts, int vdev,
                                                 bool send, bool& digestMatch);
  void announce(Connection& connection, int tag);
  void close(void* comm, bool send);
  bool limitWarning(std::atomic<int>& count, const char* what);

  // The transport is made first: the verbs one reads each port's speed and GUID, which the table then offers.
  static std::unique_ptr<Transport> makeTransport(std::vector<NetDevice>& devices, PluginOptions& options,
                                                  TransportLimits& limits);

  Log log_;
  PluginOptions options_;
  const formats::RailMapHost* host_ = nullptr;  // into options_.railMap
  TransportLimits limits_;
  std::unique_ptr<Transport> transport_;  // sockets or verbs (docs/net.md)
  DeviceTable table_;
  std::mutex setupMutex_;  // listeners_ and connections_: setup and close only
  std::map<void*, ListenerInfo> listeners_;
  std::map<void*, std::unique_ptr<Connection>> connections_;
  std::atomic<int> railWarnings_{0}, digestWarnings_{0};
};

}  // namespace railtune::net
