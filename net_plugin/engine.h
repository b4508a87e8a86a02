// The net engine interface, in railtune's own types: the transports (sockets, ibverbs; issue 5)
// implement it; the adapters and the boundary translate NCCL's v6..v12 calls onto it. The engine is
// process-wide (devices and connections outlive any one communicator); each communicator gets a
// context with its own id and configuration.
// isend/irecv/test/iflush run on NCCL's proxy threads: no allocation, no process-wide lock, no I/O
// that can block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "common/log.h"
#include "nccl/common.h"

namespace railtune::net {

inline constexpr size_t kHandleBytes = 128;  // what listen fills and NCCL exchanges through bootstrap
inline constexpr int kMaxRecvs = 8;          // largest grouped receive we accept (we report maxRecvs <= this)
inline constexpr int kMaxVirtualDevices = 8;

enum PointerSupport : unsigned { kPointerHost = 1u << 0, kPointerCuda = 1u << 1, kPointerDmaBuf = 1u << 2 };

struct DeviceProperties {
  const char* name = nullptr;     // must stay valid for the engine's lifetime, unique per device
  const char* pciPath = nullptr;  // NULL: a virtual NIC on the first CPU
  uint64_t guid = 0;
  unsigned pointerSupport = kPointerHost;
  bool regIsGlobal = false;
  bool forceFlush = false;
  int speedMbps = 0;
  int port = 0;
  float latencyUs = 0.0f;
  int maxComms = 0;
  int maxRecvs = 1;
  int nPhysicalDevices = 0;  // physical devices fused into this one
  int physicalDevices[kMaxVirtualDevices] = {};
  size_t maxP2pBytes = 0;
  size_t maxCollBytes = 0;
  int maxMultiRequestSize = 1;
  int railId = -1;  // -1: unknown
  int planeId = -1;
};

struct CommConfig {
  int trafficClass = -1;           // -1: not set
  std::optional<uint64_t> commId;  // NCCL's communicator (net v11+, where each has its own context)
};

struct NetAttributes {
  struct Side {
    int32_t maxConcurrentPeers = -1, minConcurrentPeers = -1, maxFlowsPerPeer = -1, minFlowsPerPeer = -1;
  };
  Side send, recv;
  uint32_t collectives = 0, algorithms = 0, protocols = 0;  // bitmasks
};

enum class MemoryType { Host, Cuda };

// Defined by the transports; the boundary hands them to NCCL as opaque pointers.
class ListenComm;
class SendComm;
class RecvComm;
class MemoryRegion;
class Request;

struct RecvBuffer {
  void* data = nullptr;
  size_t size = 0;
  int tag = 0;
  MemoryRegion* region = nullptr;
  void* profilerHandle = nullptr;
};

struct Completion {
  bool done = false;
  int nSizes = 0;
  size_t sizes[kMaxRecvs] = {};
};

// How a transport reports a failure: the boundary turns it into the NCCL code and one WARN naming
// the peer, the device and the reason.
enum class ErrorKind { System, Remote, InvalidArgument, InvalidUsage, Internal };
class NetError : public std::runtime_error {
 public:
  NetError(ErrorKind kind, std::string peer, int device, const std::string& reason)
      : std::runtime_error(reason), kind_(kind), peer_(std::move(peer)), device_(device) {}
  ErrorKind kind() const { return kind_; }
  const std::string& peer() const { return peer_; }  // "10.0.0.7:43122", "rank 5", or "unknown"
  int device() const { return device_; }             // -1: unknown

 private:
  ErrorKind kind_;
  std::string peer_;
  int device_;
};

// Thrown by makeEngine when railtune should not carry this job's traffic (no transport usable);
// init then fails so that NCCL moves on to its next transport.
class StepAside : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  virtual int deviceCount() = 0;
  virtual DeviceProperties properties(int dev) = 0;
  virtual ListenComm* listen(int dev, const CommConfig& config, std::span<std::byte, kHandleBytes> handle) = 0;
  // NULL: not connected yet, NCCL calls again. Neither call may block.
  virtual SendComm* connect(int dev, const CommConfig& config, std::span<const std::byte, kHandleBytes> handle) = 0;
  virtual RecvComm* accept(ListenComm* listener) = 0;
  virtual MemoryRegion* registerMemory(void* comm, void* data, size_t size, MemoryType type) = 0;
  virtual MemoryRegion* registerDmaBuf(void* comm, void* data, size_t size, uint64_t offset, int fd) = 0;
  virtual void deregisterMemory(void* comm, MemoryRegion* region) = 0;
  // NULL: cannot post now, NCCL retries.
  virtual Request* isend(SendComm* comm, void* data, size_t size, int tag, MemoryRegion* region,
                         void* profilerHandle) = 0;
  virtual Request* irecv(RecvComm* comm, std::span<const RecvBuffer> buffers) = 0;
  virtual Request* iflush(RecvComm* comm, std::span<const RecvBuffer> buffers) = 0;
  virtual Completion test(Request* request) = 0;
  virtual void closeSend(SendComm* comm) = 0;
  virtual void closeRecv(RecvComm* comm) = 0;
  virtual void closeListen(ListenComm* listener) = 0;
  // Hints for one communicator's connections (peers, flows, which collectives/algorithms use them).
  virtual void setNetAttributes(std::optional<uint64_t> commId, const NetAttributes& attributes) = 0;
  // NIC fusion (net v9+ makeVDevice): a new virtual device made of `members` (physical device
  // indexes); returns its index. `maxMembers` is the ABI's limit. Throws NetError when refused.
  virtual int makeVirtualDevice(std::span<const int> members, size_t maxMembers) = 0;
};

// What NCCL's profiler callback (net v10+) is, in the engine's terms: the boundary hands it over
// unchanged. Start (type 0) and stop (type 1) of a network event; see docs/net.md, "Profiler events".
using ProfilerCallback = ncclProfilerCallback_t;

struct EngineOptions {
  std::optional<uint64_t> commId;  // the first communicator's, for logs
  CommConfig config;
  ProfilerCallback profiler = nullptr;  // NULL: NCCL gave none (net v6..v9, or profiling off)
};

// The process's engine. Throws StepAside when no transport can carry the traffic.
std::unique_ptr<Engine> makeEngine(const EngineOptions& options, const Log& log);

}  // namespace railtune::net
