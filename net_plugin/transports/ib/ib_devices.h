// The HCA ports the verbs transport carries traffic on: each device the plugin's device list names (the rail
// map's HCA or a discovered one, already filtered by NCCL_IB_HCA) opened through libibverbs, its port queried
// and kept only when ACTIVE on InfiniBand or Ethernet (RoCE), as NCCL's ncclIbInitDevices keeps ports
// (src/transport/net_ib/init.cc@v2.30.7). One protection domain per port, shared by every connection on it,
// so a registration made on one comm serves them all (regIsGlobal, as NCCL). A port also carries the
// fatal state its async-event thread (ib_async.h) sets.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net_plugin/transports/ib/ib_mr_cache.h"
#include "net_plugin/transports/ib/ib_port.h"
#include "net_plugin/transports/ib/verbs_table.h"

namespace railtune::net::ib {

// Set once by whoever sees the failure first (the async thread, a completion); read on the data path.
class FatalState {
 public:
  void set(const std::string& reason);
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  std::string reason() const;

 private:
  std::atomic<bool> failed_{false};
  mutable std::mutex mutex_;
  std::string reason_;
};

struct IbPort {
  std::string name;  // "mlx5_0"
  int port = 1;
  IbvContext* context = nullptr;
  IbvPd* pd = nullptr;
  IbvPortAttr attr{};
  uint64_t guid = 0;  // sys_image_guid
  int maxQp = 0;
  int speedMbps = 0;
  GidChoice gid;
  FatalState fatal;  // IBV_EVENT_DEVICE_FATAL: the device is gone for good
  // The link as the async events report it: PORT_ERR sets `down`, PORT_ACTIVE clears it. Not fatal, as in NCCL
  // (common.cc:168-178@v2.30.7): connections on the port go on, their QPs retrying, until a completion fails.
  std::atomic<bool> down{false};
  std::atomic<uint64_t> downSinceMs{0};  // monotonic ms of the last PORT_ERR; 0: never
  std::atomic<uint32_t> downEvents{0};   // PORT_ERR events seen
  std::string linkNote() const;          // " (the port is down since IBV_EVENT_PORT_ERR 1200 ms ago)", or ""
  std::unique_ptr<MrCache> mrCache;
  const char* linkLayerName() const { return attr.linkLayer == kIbvLinkLayerEthernet ? "RoCE" : "InfiniBand"; }
  std::string where() const { return name + " port " + std::to_string(port); }
};

struct WantedPort {
  std::string name;
  int port = 1;
};

struct PortOpenOptions {
  std::string sysfsRoot = "/";  // for the RoCE GID types
  GidOptions gid;
  // NCCL_IB_PCI_RELAXED_ORDERING decided (ncclib::relaxedOrderingEnabled): registrations ask for
  // IBV_ACCESS_RELAXED_ORDERING through ibv_reg_mr_iova2, as NCCL's reg.cc:30-43, where libibverbs has it.
  bool relaxedOrdering = true;
};

// Opens every wanted port. Throws std::runtime_error naming the device and why when one cannot be used (not
// in libibverbs' list, not ACTIVE, unknown link layer, a verbs call failing): the plugin then steps aside.
std::vector<std::unique_ptr<IbPort>> openPorts(const VerbsTable& verbs, const std::vector<WantedPort>& wanted,
                                               const PortOpenOptions& options);
// Deregisters, deallocates and closes what openPorts opened. Returns the calls that failed ("mlx5_0 port 1:
// ibv_dealloc_pd: Device or resource busy; "), "" when none: the caller logs them once.
// Monotonic milliseconds (the port's link state is stamped with them).
uint64_t steadyMs();

std::string closePorts(const VerbsTable& verbs, std::vector<std::unique_ptr<IbPort>>& ports);

}  // namespace railtune::net::ib
