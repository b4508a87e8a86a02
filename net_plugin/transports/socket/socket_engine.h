// The socket transport: a Transport (transports/transport.h) over TCP. Each connection opens N parallel streams (the
// socket analogue of QPs per connection) and splits large messages across them in fixed-size chunks. Devices come from
// the caller (device discovery lives elsewhere); each binds its listening and connecting sockets to its own address, so
// traffic leaves through the device it was asked for. See docs/net.md, "Socket transport".
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "net_plugin/transports/socket/socket_wire.h"
#include "net_plugin/transports/tcp_setup/tcp_setup.h"
#include "net_plugin/transports/transport.h"

namespace railtune::net::socket {

struct SocketDevice {
  std::string name;         // unique, e.g. the HCA's name ("mlx5_0") or the interface's
  std::string ifname;       // the network interface carrying it ("eth0"), for logs
  std::string bindAddress;  // numeric IPv4 or IPv6 address of that interface
  int speedMbps = 0;
  int railId = -1;
  int planeId = -1;
  std::string pciPath;  // empty: a virtual NIC (NCCL places it on the first CPU)
  // What this device's connections send as their preamble (kPreambleBytes); empty: zeros.
  std::vector<std::byte> preamble;
};

// The streams and chunk sizes a connection may have are what its hellos may carry (tcp_setup.h).
inline constexpr int kMaxStreams = tcp_setup::kMaxStreams;
inline constexpr int kMaxRequests = 32;  // NCCL_NET_MAX_REQUESTS: receives in flight per comm
inline constexpr size_t kMinChunkBytes = tcp_setup::kMinChunkBytes;
inline constexpr size_t kMaxChunkBytes = tcp_setup::kMaxChunkBytes;

struct SocketEngineOptions {
  int streams = 2;              // TCP streams per connection, 1..kMaxStreams
  int timeoutSeconds = 20;      // keepalive + TCP_USER_TIMEOUT while data is pending
  size_t chunkBytes = 1 << 19;  // a message is cut into chunks of this size, dealt round-robin
  // Reported as maxP2pBytes; larger sends are refused. 1 GiB as NCCL's own NCCL_MAX_NET_SIZE: test
  // reports received sizes to NCCL as int, so a message must stay below 2 GiB.
  size_t maxMessageBytes = size_t{1} << 30;
};

class SocketListenComm;
class SocketSendComm;
class SocketRecvComm;

class SocketEngine final : public Transport {
 public:
  // Throws NetError(InvalidArgument) on an unusable option or a device address that is not numeric.
  SocketEngine(std::vector<SocketDevice> devices, SocketEngineOptions options);
  ~SocketEngine() override;
  SocketEngine(const SocketEngine&) = delete;
  SocketEngine& operator=(const SocketEngine&) = delete;

  const char* name() const override { return "socket"; }
  int deviceCount() override { return static_cast<int>(devices_.size()); }
  DeviceProperties properties(int dev) override;
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
  // The transport knows physical devices only; the plugin's device table does the fusion.
  int makeVirtualDevice(std::span<const int> members, size_t maxMembers) override;

  const SocketEngineOptions& options() const { return options_; }

  ConnectionFacts describe(void* comm) const override;
  void attach(void* comm, const Attachments& attachments) override;
  void* userOf(void* comm) const override;

 private:
  const SocketDevice& device(int dev) const;

  std::vector<SocketDevice> devices_;
  SocketEngineOptions options_;
  // Connections being set up, by the listener's nonce (random per listen, so one per connection)
  // and the local device. Setup only: the data path never takes this lock.
  std::mutex connectMutex_;
  std::map<std::pair<uint64_t, int>, std::unique_ptr<tcp_setup::PendingConnect>> pendingConnects_;
  // Every comm handed out. A closed comm releases its sockets and request slots at once but stays
  // as a small shell, so that a call on it after close is a clear error rather than a crash.
  std::mutex commsMutex_;
  std::vector<std::unique_ptr<SocketSendComm>> sendComms_;
  std::vector<std::unique_ptr<SocketRecvComm>> recvComms_;
  std::vector<std::unique_ptr<SocketListenComm>> listenComms_;
  // Host memory needs no registration for sockets: every registration returns this one region.
  struct HostRegion {
    int unused = 0;
  } hostRegion_;
};

}  // namespace railtune::net::socket
