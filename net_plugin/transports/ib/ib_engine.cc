// IbEngine: devices, setup and ownership of the comms. The data path is in ib_engine_data.cc.
#include "net_plugin/transports/ib/ib_engine.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "net_plugin/devices/sysfs.h"
#include "net_plugin/transports/tcp_setup/tcp_setup.h"

namespace railtune::net::ib {
namespace {

[[noreturn]] void invalidArgument(int device, const std::string& reason) {
  throw NetError(ErrorKind::InvalidArgument, "unknown", device, reason);
}

Preamble preambleOf(const IbDevice& device) {
  Preamble out{};
  std::copy_n(device.preamble.begin(), std::min(device.preamble.size(), out.size()), out.begin());
  return out;
}

// NCCL's DMA-BUF probe (gdr.cc@v2.30.7): register fd -1; "not supported" errnos mean no, anything else
// (EBADF) means the kernel and the provider know DMA-BUF.
bool probeDmaBuf(const VerbsTable& verbs, IbPort& port) {
  if (verbs.regDmabufMr == nullptr) return false;
  errno = 0;
  IbvMr* mr = verbs.regDmabufMr(port.pd, 0, 0, 0, -1, 0);
  const int error = errno;
  if (mr != nullptr) {
    verbs.deregMr(mr);
    return true;
  }
  return error != EOPNOTSUPP && error != EPROTONOSUPPORT;
}

}  // namespace

bool peerMemoryPresent(const std::string& sysfsRoot) {
  for (const char* path : {"/sys/kernel/mm/memory_peers/nv_mem/version",
                           "/sys/kernel/mm/memory_peers/nv_mem_nc/version", "/sys/module/nvidia_peermem/version"}) {
    if (readSysfsLine(underRoot(sysfsRoot, path))) return true;
  }
  return false;
}

IbEngine::IbEngine(LoadedVerbs verbs, std::vector<IbDevice> devices, IbEngineOptions options)
    : verbs_(std::move(verbs)), devices_(std::move(devices)), options_(std::move(options)) {
  if (!verbs_.ok()) throw std::runtime_error("libibverbs is not loaded: " + verbs_.reason);
  try {
    start();
  } catch (...) {
    // The destructor does not run for a constructor that throws: what start() opened, and the library, go here.
    watcher_.reset();
    (void)closePorts(verbs_.table, ports_);
    unloadVerbs(verbs_);
    throw;
  }
}

void IbEngine::start() {
  std::vector<WantedPort> wanted;
  for (const IbDevice& d : devices_) {
    sockaddr_storage address{};
    if (!tcp_setup::parseAddress(d.oobAddress, address))
      throw std::runtime_error(d.name + ": out-of-band address '" + d.oobAddress + "' is not a numeric IP address");
    wanted.push_back(WantedPort{d.name, d.port});
  }
  if (verbs_.table.forkInit != nullptr) verbs_.table.forkInit();  // as NCCL: registered memory survives a fork
  ports_ = openPorts(verbs_.table, wanted, options_.open);
  std::vector<IbPort*> watched;
  for (auto& port : ports_) {
    dmabuf_.push_back(probeDmaBuf(verbs_.table, *port));
    watched.push_back(port.get());
  }
  AsyncWatcher::Note watcherNote = options_.note ? options_.note : [](bool, const std::string&) {};
  watcher_ = std::make_unique<AsyncWatcher>(verbs_.table, std::move(watched), std::move(watcherNote));
}

IbEngine::~IbEngine() {
  watcher_.reset();
  {
    std::lock_guard lock(connectMutex_);
    connecting_.clear();
  }
  std::string failures;
  for (auto& comm : sendComms_)
    if (!comm->base.closed) failures += comm->close();
  for (auto& comm : recvComms_)
    if (!comm->base.closed) failures += comm->close();
  if (!failures.empty()) note(true, "teardown of the connections NCCL left open: " + failures);
  for (auto& listener : listenComms_) {
    listener->accepting.clear();
    if (listener->oob) listener->oob->close();
  }
  for (IbRegion* region : regions_) delete region;
  regions_.clear();
  failures = closePorts(verbs_.table, ports_);
  if (!failures.empty()) note(true, "closing the HCA ports: " + failures);
  unloadVerbs(verbs_);
}

IbPort& IbEngine::portOf(int dev) const {
  if (dev < 0 || static_cast<size_t>(dev) >= ports_.size())
    invalidArgument(dev,
                    "device " + std::to_string(dev) + " out of range (" + std::to_string(ports_.size()) + " devices)");
  return *ports_[static_cast<size_t>(dev)];
}

const IbPort& IbEngine::port(int dev) const {
  return portOf(dev);
}

DeviceProperties IbEngine::properties(int dev) {
  const IbPort& p = portOf(dev);
  const IbDevice& d = devices_[static_cast<size_t>(dev)];
  DeviceProperties out;
  out.name = d.name.c_str();
  out.pciPath = d.pciPath.empty() ? nullptr : d.pciPath.c_str();
  out.guid = p.guid;
  out.pointerSupport = kPointerHost | (options_.peerMemory ? kPointerCuda : 0u) |
                       (dmabuf_[static_cast<size_t>(dev)] ? kPointerDmaBuf : 0u);
  out.regIsGlobal = true;  // one PD and one registration cache per port, shared by its comms
  out.speedMbps = p.speedMbps;
  out.port = p.port;
  out.maxComms = p.maxQp > 0 ? p.maxQp : 65536;
  out.maxRecvs = kMaxRecvs;
  out.nPhysicalDevices = 1;
  out.physicalDevices[0] = dev;
  out.maxP2pBytes = options_.maxMessageBytes;
  out.maxCollBytes = options_.maxMessageBytes;
  out.railId = d.railId;
  out.planeId = d.planeId;
  return out;
}

ListenComm* IbEngine::listen(int dev, const CommConfig& /*config: the sender's class applies*/,
                             std::span<std::byte, kHandleBytes> handle) {
  portOf(dev);
  const IbDevice& d = devices_[static_cast<size_t>(dev)];
  tcp_setup::Listening listening = tcp_setup::openListener(d.oobAddress, dev);
  tcp_setup::encodeHandle(listening.handle, handle, kHandleMagic);
  auto comm = std::make_unique<IbListenComm>(
      dev,
      std::make_unique<tcp_setup::SetupListener>(dev, std::move(listening.fd), listening.handle.nonce, preambleOf(d)));
  IbCommBase* base = &comm->base;
  std::lock_guard lock(commsMutex_);
  listenComms_.push_back(std::move(comm));
  return reinterpret_cast<ListenComm*>(base);
}

SendComm* IbEngine::connect(int dev, const CommConfig& config, std::span<const std::byte, kHandleBytes> handle) {
  IbPort& p = portOf(dev);
  // A device that reported IBV_EVENT_DEVICE_FATAL takes no new connections. A port that is down (PORT_ERR) does,
  // as NCCL's: its QPs retry until it is ACTIVE again or their retries run out (ib_async.h).
  if (p.fatal.failed()) throw NetError(ErrorKind::System, "unknown", dev, p.fatal.reason());
  const IbDevice& d = devices_[static_cast<size_t>(dev)];
  const tcp_setup::ListenHandle remote =
      tcp_setup::decodeHandle(handle, kHandleMagic, "bad magic (not a handle of this railtune transport)");
  sockaddr_storage local{};
  tcp_setup::parseAddress(d.oobAddress, local);
  if (local.ss_family != remote.address.ss_family)
    invalidArgument(dev, "device " + d.name + " (" + d.oobAddress + ") cannot reach " +
                             tcp_setup::describeAddress(remote.address) + ": different address families");
  std::unique_ptr<IbSendComm> done;
  {
    std::lock_guard lock(connectMutex_);
    const auto key = std::make_pair(remote.nonce, dev);
    auto it = connecting_.find(key);
    if (it == connecting_.end()) {
      ConnectionOptions connection = options_.connection;
      connection.trafficClass = config.trafficClass;
      auto oob = std::make_unique<tcp_setup::PendingConnect>(dev, local, remote, 1, 4096u, preambleOf(d));
      it = connecting_.emplace(key, std::make_unique<IbConnecting>(verbs_.table, p, dev, std::move(oob), connection))
               .first;
    }
    try {
      done = it->second->progress();
    } catch (...) {
      connecting_.erase(it);  // NCCL fails the connection; a retry starts afresh
      throw;
    }
    if (!done) return nullptr;
    connecting_.erase(it);
  }
  IbCommBase* base = &done->base;
  std::lock_guard lock(commsMutex_);
  sendComms_.push_back(std::move(done));
  return reinterpret_cast<SendComm*>(base);
}

RecvComm* IbEngine::accept(ListenComm* listener) {
  auto* base = reinterpret_cast<IbCommBase*>(listener);
  if (base == nullptr || base->kind != IbCommKind::Listen) invalidArgument(-1, "accept: not a verbs listen comm");
  if (base->closed) throw NetError(ErrorKind::InvalidUsage, "unknown", base->device, "accept on a closed listen comm");
  auto* listen = static_cast<IbListenComm*>(base->object);
  const int dev = base->device;
  IbPort& p = portOf(dev);
  while (std::optional<tcp_setup::SetupListener::Accepted> accepted = listen->oob->acceptStreams()) {
    ConnectionOptions connection = options_.connection;
    listen->accepting.push_back(std::make_unique<IbAccepting>(verbs_.table, p, dev, std::move(*accepted), connection,
                                                              options_.peerMemory && options_.gdrFlush));
  }
  for (auto it = listen->accepting.begin(); it != listen->accepting.end(); ++it) {
    std::unique_ptr<IbRecvComm> comm;
    try {
      comm = (*it)->progress();
    } catch (const NetError& e) {
      const std::string peer = (*it)->peer();
      listen->accepting.erase(it);
      // What the peer sent failed a check (or it went away mid-setup): its connect fails on its side, and this
      // side says which check, so that the two logs together tell why. A verbs failure here is ours to report.
      if (e.kind() != ErrorKind::Remote) throw;
      note(true, "accept on " + p.where() + ": refused the connection from " + peer + ": " + e.what());
      return nullptr;
    }
    if (!comm) continue;
    listen->accepting.erase(it);
    IbCommBase* handed = &comm->base;
    std::lock_guard lock(commsMutex_);
    recvComms_.push_back(std::move(comm));
    return reinterpret_cast<RecvComm*>(handed);
  }
  return nullptr;
}

void IbEngine::note(bool warn, const std::string& line) const {
  if (options_.note) options_.note(warn, line);
}

IbCommBase& IbEngine::liveComm(void* comm, const char* call) const {
  auto* base = static_cast<IbCommBase*>(comm);
  if (base == nullptr || (base->kind != IbCommKind::Send && base->kind != IbCommKind::Recv))
    invalidArgument(-1, std::string(call) + ": not a verbs send or receive comm");
  if (base->closed)
    throw NetError(ErrorKind::InvalidUsage, base->peer, base->device, std::string(call) + " on a closed comm");
  return *base;
}

Transport::ConnectionFacts IbEngine::describe(void* comm) const {
  auto* base = static_cast<IbCommBase*>(comm);
  if (base == nullptr || (base->kind != IbCommKind::Send && base->kind != IbCommKind::Recv))
    invalidArgument(-1, "describe: not a verbs send or receive comm");
  ConnectionFacts facts{base->peer, base->qps, base->peerPreamble, {}};
  const QpSet& set = base->kind == IbCommKind::Send ? static_cast<IbSendComm*>(base->object)->set
                                                    : static_cast<IbRecvComm*>(base->object)->set;
  const IbPort& p = portOf(base->device);
  formats::path_log::VerbsFacts& verbs = facts.verbs;
  verbs.present = set.count <= formats::path_log::kMaxQpsRecorded;
  verbs.port = p.port;
  verbs.gid.assign(gidText(p.gid.gid));
  verbs.gidIndex = p.gid.index;
  verbs.linkLayer.assign(p.attr.linkLayer == kIbvLinkLayerEthernet ? "RoCE" : "InfiniBand");
  verbs.mtu = mtuBytes(set.pathMtu);
  verbs.qpCount = set.count;
  verbs.adaptiveRouting = options_.connection.layout.adaptiveRouting;
  for (int q = 0; q < set.count && q < formats::path_log::kMaxQpsRecorded; ++q) {
    verbs.localQpn[q] = set.qps[static_cast<size_t>(q)] != nullptr ? set.qps[static_cast<size_t>(q)]->qpNum : 0;
    verbs.remoteQpn[q] = set.remoteQpn[q];
  }
  return facts;
}

void IbEngine::attach(void* comm, const Attachments& attachments) {
  auto* base = static_cast<IbCommBase*>(comm);
  if (base == nullptr || (base->kind != IbCommKind::Send && base->kind != IbCommKind::Recv))
    invalidArgument(-1, "attach: not a verbs send or receive comm");
  base->attached = attachments;
}

void* IbEngine::userOf(void* comm) const {
  auto* base = static_cast<IbCommBase*>(comm);
  if (base == nullptr || (base->kind != IbCommKind::Send && base->kind != IbCommKind::Recv))
    invalidArgument(-1, "not a verbs send or receive comm");
  return base->closed ? nullptr : base->attached.user;
}

// The hints do not change how a QP is driven yet; the QP count is the policy's (common/qp_policy.h).
void IbEngine::setNetAttributes(std::optional<uint64_t> /*commId*/, const NetAttributes& /*attributes*/) {}

int IbEngine::makeVirtualDevice(std::span<const int> /*members*/, size_t /*maxMembers*/) {
  throw NetError(ErrorKind::InvalidUsage, "unknown", -1,
                 "the verbs transport has physical devices only; NIC fusion belongs to the plugin's device table");
}

}  // namespace railtune::net::ib
