// PluginEngine: setup (devices, preambles), the connection checks and the path log records, and
// the data path handed to the transport. See plugin_engine.h.
#include "net_plugin/plugin_engine.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "formats/handshake.h"
#include "net_plugin/plugin_connection.h"
#include "net_plugin/served_gpu.h"

namespace railtune::net {
namespace {

constexpr int kWarningsBeforeQuiet = 4;  // per kind of finding; the path log keeps every one

TransportLimits socketLimits(const socket::SocketEngineOptions& options) {
  TransportLimits limits;
  limits.pointerSupport = kPointerHost;
  limits.maxComms = 65536;
  limits.maxRecvs = kMaxRecvs;
  limits.maxP2pBytes = options.maxMessageBytes;
  limits.maxCollBytes = options.maxMessageBytes;
  return limits;
}

std::vector<std::byte> preambleFor(const NetDevice& device, int index, const PluginOptions& options) {
  formats::path_log::HandshakeHeader header;
  header.host = options.identity.host;
  header.pid = options.identity.pid;
  header.device = index;
  header.hca = device.name;
  header.rail = device.rail;
  header.plane = device.plane;
  header.digest = options.digest;
  const formats::path_log::HandshakeBytes bytes = formats::path_log::encodeHandshake(header);
  return std::vector<std::byte>(bytes.begin(), bytes.end());
}

std::vector<socket::SocketDevice> socketDevices(std::span<const NetDevice> devices, const PluginOptions& options) {
  std::vector<socket::SocketDevice> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    const NetDevice& d = devices[i];
    out.push_back(socket::SocketDevice{d.name, d.netdev, d.ipv4, d.speedMbps, d.rail, d.plane, d.pciPath,
                                       preambleFor(d, static_cast<int>(i), options)});
  }
  return out;
}

std::vector<ib::IbDevice> ibDevices(std::span<const NetDevice> devices, const PluginOptions& options) {
  std::vector<ib::IbDevice> out;
  for (size_t i = 0; i < devices.size(); ++i) {
    const NetDevice& d = devices[i];
    out.push_back(
        ib::IbDevice{d.name, d.port, d.ipv4, d.pciPath, d.rail, d.plane, preambleFor(d, static_cast<int>(i), options)});
  }
  return out;
}

}  // namespace

std::unique_ptr<Transport> PluginEngine::makeTransport(std::vector<NetDevice>& devices, PluginOptions& options,
                                                       TransportLimits& limits) {
  if (!options.ib) {
    limits = socketLimits(options.socket);
    return std::make_unique<socket::SocketEngine>(socketDevices(devices, options), options.socket);
  }
  auto engine = std::make_unique<ib::IbEngine>(std::move(options.ib->verbs), ibDevices(devices, options),
                                               std::move(options.ib->options));
  options.ib.reset();
  limits = TransportLimits{};
  limits.maxRecvs = kMaxRecvs;
  limits.maxComms = 1 << 20;
  limits.regIsGlobal = true;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceProperties p = engine->properties(static_cast<int>(i));
    devices[i].speedMbps = p.speedMbps;  // what the port reports, as NCCL's IB transport offers it
    devices[i].guid = p.guid;
    devices[i].linkLayer =
        engine->port(static_cast<int>(i)).attr.linkLayer == ib::kIbvLinkLayerEthernet ? "Ethernet" : "InfiniBand";
    // The table offers one set of limits: what every port allows.
    limits.pointerSupport = i == 0 ? p.pointerSupport : (limits.pointerSupport & p.pointerSupport);
    limits.maxComms = std::min(limits.maxComms, p.maxComms);
    limits.maxP2pBytes = p.maxP2pBytes;
    limits.maxCollBytes = p.maxCollBytes;
  }
  return engine;
}

PluginEngine::PluginEngine(std::vector<NetDevice> devices, PluginOptions options, const Log& log)
    : log_(log),
      options_(std::move(options)),
      transport_(makeTransport(devices, options_, limits_)),
      table_(devices, limits_) {
  if (options_.railMap) host_ = options_.railMap->findHost(options_.railMapHost);
}

PluginEngine::~PluginEngine() {
  if (options_.pathLog) options_.pathLog->shutdown();  // final snapshots of what NCCL left open
}

int PluginEngine::makeVirtualDevice(std::span<const int> members, size_t maxMembers) {
  try {
    return table_.makeVirtual(members, maxMembers);
  } catch (const VirtualDeviceError& e) {
    throw NetError(ErrorKind::InvalidArgument, "unknown", -1, std::string("makeVDevice: ") + e.what());
  }
}

int PluginEngine::physicalOf(int vdev) const {
  // properties() throws NetError(InvalidArgument) naming an unknown index. A fused device travels on
  // its first member.
  const int first = table_.properties(vdev).physicalDevices[0];
  if (options_.misbind && options_.misbind->first == first) return options_.misbind->second;
  return first;
}

ListenComm* PluginEngine::listen(int dev, const CommConfig& config, std::span<std::byte, kHandleBytes> handle) {
  ListenComm* listener = transport_->listen(physicalOf(dev), config, handle);
  std::lock_guard lock(setupMutex_);
  listeners_[listener] = ListenerInfo{dev, config.commId};
  return listener;
}

SendComm* PluginEngine::connect(int dev, const CommConfig& config, std::span<const std::byte, kHandleBytes> handle) {
  SendComm* comm = transport_->connect(physicalOf(dev), config, handle);
  if (comm == nullptr) return nullptr;
  return static_cast<SendComm*>(adopt(comm, dev, true, config.commId));
}

RecvComm* PluginEngine::accept(ListenComm* listener) {
  ListenerInfo info;
  {
    std::lock_guard lock(setupMutex_);
    const auto it = listeners_.find(listener);
    if (it != listeners_.end()) info = it->second;
  }
  RecvComm* comm = transport_->accept(listener);  // an unknown listener is the transport's error
  if (comm == nullptr) return nullptr;
  return static_cast<RecvComm*>(adopt(comm, info.vdev, false, info.commId));
}

bool PluginEngine::limitWarning(std::atomic<int>& count, const char* what) {
  const int seen = count.fetch_add(1, std::memory_order_relaxed);
  if (seen == kWarningsBeforeQuiet) {
    RT_WARN(log_, NCCL_NET, "more %s: not warned about again; every connection is in the path log", what);
  }
  return seen < kWarningsBeforeQuiet;
}

}  // namespace railtune::net
