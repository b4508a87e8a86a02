// Opening the HCA ports the transport uses. See ib_devices.h.
#include "net_plugin/transports/ib/ib_devices.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "net_plugin/transports/ib/ib_mr_cache.h"

namespace railtune::net::ib {
namespace {

// ibv_close_device returns -1 with errno; the others return the errno itself.
std::string errnoText(int error) {
  return error > 0 ? std::string(std::strerror(error)) : "error " + std::to_string(error);
}

std::string verbsError(const std::string& call, int result) {
  const int error = result > 0 ? result : errno;
  return call + " failed: " + (error != 0 ? std::strerror(error) : "no reason given");
}

struct DeviceListGuard {
  const VerbsTable& verbs;
  IbvDevice** list = nullptr;
  ~DeviceListGuard() {
    if (list != nullptr) verbs.freeDeviceList(list);
  }
};

void openOne(const VerbsTable& verbs, IbvDevice* device, IbPort& port, const PortOpenOptions& options) {
  port.context = verbs.openDevice(device);
  if (port.context == nullptr) throw std::runtime_error(verbsError("ibv_open_device", 0));
  IbvDeviceAttr deviceAttr{};
  if (const int rc = verbs.queryDevice(port.context, &deviceAttr); rc != 0)
    throw std::runtime_error(verbsError("ibv_query_device", rc));
  if (port.port < 1 || port.port > deviceAttr.physPortCnt)
    throw std::runtime_error("it has no port " + std::to_string(port.port) + " (" +
                             std::to_string(deviceAttr.physPortCnt) + " ports)");
  port.guid = deviceAttr.sysImageGuid;
  port.maxQp = deviceAttr.maxQp;
  // Zeroed first: an rdma-core before 49 writes 52 of the 56 bytes, the exported compat call 48.
  std::memset(&port.attr, 0, sizeof port.attr);
  if (const int rc = verbs.queryPort(port.context, static_cast<uint8_t>(port.port), &port.attr); rc != 0)
    throw std::runtime_error(verbsError("ibv_query_port", rc));
  if (port.attr.state != kIbvPortActive)
    throw std::runtime_error("port " + std::to_string(port.port) + " is not ACTIVE (state " +
                             std::to_string(port.attr.state) + ")");
  if (port.attr.linkLayer != kIbvLinkLayerInfiniband && port.attr.linkLayer != kIbvLinkLayerEthernet)
    throw std::runtime_error("port " + std::to_string(port.port) + " has link layer " +
                             std::to_string(port.attr.linkLayer) + ", neither InfiniBand nor Ethernet");
  uint64_t speed100Mbps = 0;
  // NCCL prefers ibv_query_port_speed (IBVERBS_1.16, units of 100 Mb/s) where it resolves (init.cc:405-411).
  if (verbs.queryPortSpeed != nullptr &&
      verbs.queryPortSpeed(port.context, static_cast<uint32_t>(port.port), &speed100Mbps) == 0 && speed100Mbps > 0) {
    port.speedMbps = static_cast<int>(speed100Mbps * 100);
  } else {
    port.speedMbps = portSpeedMbps(port.attr);
  }
  const VerbsTable* table = &verbs;
  IbvContext* context = port.context;
  const uint8_t number = static_cast<uint8_t>(port.port);
  port.gid = chooseGid(
      port.attr, options.gid,
      [table, context, number](int index, IbvGid& gid) { return table->queryGid(context, number, index, &gid) == 0; },
      sysfsGidTypes(options.sysfsRoot, port.name, port.port));
  port.pd = verbs.allocPd(port.context);
  if (port.pd == nullptr) throw std::runtime_error(verbsError("ibv_alloc_pd", 0));
  port.mrCache = std::make_unique<MrCache>(verbs, port.pd, options.relaxedOrdering && verbs.regMrIova2 != nullptr);
}

}  // namespace

void FatalState::set(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (failed_.load(std::memory_order_relaxed)) return;  // the first reason is the one to tell
  reason_ = reason;
  failed_.store(true, std::memory_order_release);
}

std::string FatalState::reason() const {
  std::lock_guard lock(mutex_);
  return reason_;
}

std::vector<std::unique_ptr<IbPort>> openPorts(const VerbsTable& verbs, const std::vector<WantedPort>& wanted,
                                               const PortOpenOptions& options) {
  DeviceListGuard guard{verbs};
  int count = 0;
  guard.list = verbs.getDeviceList(&count);
  if (guard.list == nullptr) throw std::runtime_error(verbsError("ibv_get_device_list", 0));
  std::vector<std::unique_ptr<IbPort>> ports;
  try {
    for (const WantedPort& want : wanted) {
      IbvDevice* found = nullptr;
      for (int i = 0; i < count && found == nullptr; ++i) {
        const char* name = verbs.getDeviceName(guard.list[i]);
        if (name != nullptr && want.name == name) found = guard.list[i];
      }
      if (found == nullptr) throw std::runtime_error(want.name + ": not among libibverbs' devices");
      auto port = std::make_unique<IbPort>();
      port->name = want.name;
      port->port = want.port;
      try {
        openOne(verbs, found, *port, options);
      } catch (const std::exception& e) {
        std::vector<std::unique_ptr<IbPort>> partial;
        partial.push_back(std::move(port));
        closePorts(verbs, partial);
        throw std::runtime_error(want.name + ": " + e.what());
      }
      ports.push_back(std::move(port));
    }
  } catch (...) {
    closePorts(verbs, ports);
    throw;
  }
  return ports;
}

uint64_t steadyMs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::string IbPort::linkNote() const {
  const uint64_t since = downSinceMs.load(std::memory_order_acquire);
  if (since == 0) return "";
  const std::string ago = std::to_string(steadyMs() - since) + " ms ago";
  if (down.load(std::memory_order_acquire)) return " (the port is down since IBV_EVENT_PORT_ERR " + ago + ")";
  return " (the port went down " + std::to_string(downEvents.load(std::memory_order_relaxed)) + " time(s), last " +
         ago + ", and is active again)";
}

std::string closePorts(const VerbsTable& verbs, std::vector<std::unique_ptr<IbPort>>& ports) {
  std::string failures;
  for (auto& port : ports) {
    std::string failed;
    if (port->mrCache) failed += port->mrCache->clear();
    if (port->pd != nullptr) {
      if (const int rc = verbs.deallocPd(port->pd); rc != 0) failed += "ibv_dealloc_pd: " + errnoText(rc) + "; ";
    }
    if (port->context != nullptr) {
      if (const int rc = verbs.closeDevice(port->context); rc != 0)
        failed += "ibv_close_device: " + errnoText(rc != -1 ? rc : errno) + "; ";
    }
    if (!failed.empty()) failures += port->where() + ": " + failed;
    port->pd = nullptr;
    port->context = nullptr;
  }
  ports.clear();
  return failures;
}

}  // namespace railtune::net::ib
