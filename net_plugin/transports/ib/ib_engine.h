// The verbs transport: a Transport (transports/transport.h) carrying NCCL's traffic over RDMA on HCA ports,
// through libibverbs opened with dlopen (verbs_table.h), so that the same code runs on a real HCA and on the
// strict verbs simulator (emulator/verbs_sim). Devices come from the plugin's device list; each is one
// ACTIVE port (ib_devices.h). Connections: ib_setup.h; data path: ib_comm.h. See docs/net-ib.md.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "net_plugin/transports/ib/ib_async.h"
#include "net_plugin/transports/ib/ib_setup.h"
#include "net_plugin/transports/transport.h"

namespace railtune::net::ib {

struct IbDevice {
  std::string name;  // the HCA, "mlx5_0"
  int port = 1;
  std::string oobAddress;  // numeric address the out-of-band TCP stream binds to
  std::string pciPath;     // "" = unknown
  int railId = -1;
  int planeId = -1;
  std::vector<std::byte> preamble;  // kPreambleBytes: the plugin's handshake header for this device
};

struct IbEngineOptions {
  ConnectionOptions connection;
  PortOpenOptions open;
  bool peerMemory = false;  // nv_peer_mem / nvidia_peermem present: GPU pointers, and flush when NCCL asks
  bool gdrFlush = true;     // NCCL_GDR_FLUSH_DISABLE=0
  size_t maxMessageBytes = size_t{1} << 30;
  AsyncWatcher::Note note;  // INFO/WARN lines of the async watcher; empty: none
};

// What the plugin engine needs to make the verbs transport (plugin_engine.h).
struct IbTransportSetup {
  LoadedVerbs verbs;
  IbEngineOptions options;
};

// NCCL's check for peer memory (src/transport/net_ib/gdr.cc@v2.30.7): any of the nv_mem, nv_mem_nc or
// nvidia_peermem version files under the sysfs root.
bool peerMemoryPresent(const std::string& sysfsRoot);

class IbEngine final : public Transport {
 public:
  // Opens the ports. Throws std::runtime_error naming the device and the reason when one cannot be used.
  IbEngine(LoadedVerbs verbs, std::vector<IbDevice> devices, IbEngineOptions options);
  ~IbEngine() override;
  IbEngine(const IbEngine&) = delete;
  IbEngine& operator=(const IbEngine&) = delete;

  const char* name() const override { return "ib"; }
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
  int makeVirtualDevice(std::span<const int> members, size_t maxMembers) override;

  ConnectionFacts describe(void* comm) const override;
  void attach(void* comm, const Attachments& attachments) override;
  void* userOf(void* comm) const override;

  const IbPort& port(int dev) const;

 private:
  void start();  // the constructor's work: ports, DMA-BUF probes, the async watcher
  IbPort& portOf(int dev) const;
  void note(bool warn, const std::string& line) const;  // options_.note, when set
  IbCommBase& liveComm(void* comm, const char* call) const;

  LoadedVerbs verbs_;
  std::vector<IbDevice> devices_;
  IbEngineOptions options_;
  std::vector<std::unique_ptr<IbPort>> ports_;
  std::vector<bool> dmabuf_;
  std::unique_ptr<AsyncWatcher> watcher_;
  std::mutex connectMutex_;  // setup only
  std::map<std::pair<uint64_t, int>, std::unique_ptr<IbConnecting>> connecting_;
  std::mutex commsMutex_;
  std::vector<std::unique_ptr<IbSendComm>> sendComms_;
  std::vector<std::unique_ptr<IbRecvComm>> recvComms_;
  std::vector<std::unique_ptr<IbListenComm>> listenComms_;
  std::mutex regionsMutex_;
  std::set<IbRegion*> regions_;
};

}  // namespace railtune::net::ib
