// Connection setup of the verbs transport. See ib_setup.h.
#include "net_plugin/transports/ib/ib_setup.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace railtune::net::ib {
namespace {

constexpr uint32_t kReadyWord = 0x59445452;  // "RTDY"

// NCCL's queue sizes (connect.cc:649-651, 1158-1164, 1286@v2.30.7): the sender's data QPs take 512 send WRs
// and no receives; the receiver's take 512 and 256 receives; the flush QP 256 sends. NCCL sizes its CQs for
// the completions of the success path (connect.cc:900, 1501); railtune sizes them for an error flush, which
// completes every outstanding WR, unsignaled ones too (ib_comm.h cqEntriesFor).
constexpr int kFlushQueueDepth = 256;

ConnectionMeta localMeta(const IbPort& port, const QpSet& set, uint64_t controlAddr, uint32_t controlRkey) {
  ConnectionMeta meta;
  meta.qpCount = set.count;
  for (int q = 0; q < set.count; ++q) meta.qpn[q] = set.qps[static_cast<size_t>(q)]->qpNum;
  meta.linkLayer = port.attr.linkLayer;
  meta.port = static_cast<uint8_t>(port.port);
  meta.mtu = static_cast<uint8_t>(port.attr.activeMtu);
  meta.gidIndex = static_cast<uint8_t>(port.gid.index);
  meta.lid = port.attr.lid;
  meta.gid = port.gid.gid;
  meta.controlAddr = controlAddr;
  meta.controlRkey = controlRkey;
  return meta;
}

ConnectionMeta decodeOrThrow(const MetaBytes& bytes, const std::string& peer, int device) {
  std::string error;
  std::optional<ConnectionMeta> meta = decodeMeta(bytes, error);
  if (!meta) throw NetError(ErrorKind::Remote, peer, device, error);
  return *meta;
}

RemoteQp remoteQp(const ConnectionMeta& meta, int q) {
  RemoteQp remote;
  remote.qpn = meta.qpn[q];
  remote.lid = meta.lid;
  remote.gid = meta.gid;
  remote.linkLayer = meta.linkLayer;
  remote.mtu = meta.mtu;
  return remote;
}

void checkLinkLayers(const IbPort& port, const ConnectionMeta& remote, const std::string& peer, int device) {
  // NCCL refuses to connect an InfiniBand port to an Ethernet one (connect.cc, "link layers differ").
  if (remote.linkLayer != port.attr.linkLayer) {
    throw NetError(ErrorKind::InvalidUsage, peer, device,
                   port.where() + " is " + port.linkLayerName() + " but the peer's port is " +
                       (remote.linkLayer == kIbvLinkLayerEthernet ? "RoCE" : "InfiniBand") +
                       ": the two ends cannot be connected");
  }
}

}  // namespace

bool moveBytes(int fd, bool sending, std::byte* data, size_t total, size_t& done, const std::string& peer, int device,
               const char* what) {
  while (done < total) {
    const long result = sending ? tcp_setup::sendSome(fd, data + done, total - done, nullptr, 0)
                                : tcp_setup::receiveSome(fd, data + done, total - done);
    if (result == tcp_setup::kWouldBlock) return false;
    if (result < 0) {
      throw NetError(ErrorKind::Remote, peer, device,
                     std::string(sending ? "sending " : "reading ") + what + ": " +
                         (result == tcp_setup::kClosed ? "the peer closed the connection"
                                                       : tcp_setup::errorText(static_cast<int>(-result))));
    }
    done += static_cast<size_t>(result);
  }
  return true;
}

std::string qpList(const QpSet& set) {
  std::string list;
  char text[24];
  for (int q = 0; q < set.count; ++q) {
    std::snprintf(text, sizeof text, "%s0x%x", q == 0 ? "" : ",",
                  set.qps[static_cast<size_t>(q)] != nullptr ? set.qps[static_cast<size_t>(q)]->qpNum : 0u);
    list += text;
  }
  return list;
}

// --- connector ---------------------------------------------------------------------------------------------

IbConnecting::IbConnecting(const VerbsTable& verbs, IbPort& port, int device,
                           std::unique_ptr<tcp_setup::PendingConnect> oob, const ConnectionOptions& options)
    : verbs_(verbs), port_(port), device_(device), options_(options), oob_(std::move(oob)) {}

IbConnecting::~IbConnecting() {
  if (comm_) comm_->close();  // a connection abandoned mid-setup gives its verbs objects back
}

void IbConnecting::createQps() {
  comm_ = std::make_unique<IbSendComm>(verbs_);
  comm_->base.device = device_;
  comm_->base.object = comm_.get();
  comm_->base.peer = oob_->peer();
  comm_->base.peerPreamble = oob_->peerPreamble();
  QpSet& set = comm_->set;
  set.port = &port_;
  // The one QP count of the connection: the policy's (1..128, as NCCL_IB_QPS_PER_CONNECTION), decided here
  // once; the receiver builds as many from the metadata, and every message is cut for this count.
  set.count = std::clamp(options_.layout.qpsPerConnection, 1, kMaxQps);
  set.perMessage = options_.layout.splitDataOnQps ? set.count : 1;
  set.splitMinBytes = options_.layout.splitMinBytes;
  set.adaptiveRouting = options_.layout.adaptiveRouting;
  set.arThresholdBytes = options_.layout.arThresholdBytes;
  set.sqDepth = kSendQueueDepth;
  comm_->base.qps = set.count;
  try {
    set.cq = createCq(verbs_, port_, cqEntriesFor(set.count, kSendQueueDepth, 0, 0), &set.fatal);
    for (int q = 0; q < set.count; ++q) {
      set.qps[static_cast<size_t>(q)] =
          createQp(verbs_, port_, set.cq, kSendQueueDepth, 0, options_.qp.useInline, &set.fatal);
      qpToInit(verbs_, port_, set.qps[static_cast<size_t>(q)], kIbvAccessRemoteWrite, options_.qp.pkey);
    }
    // The FIFO the receiver writes clear-to-send elements into, then the sizes records' source.
    comm_->control.allocate(verbs_, port_, kFifoDepth * kMaxRecvs * kFifoElementBytes + kFifoDepth * kSizeRecordBytes,
                            kIbvAccessLocalWrite | kIbvAccessRemoteWrite | kIbvAccessRemoteRead);
  } catch (const std::runtime_error& e) {
    throw NetError(ErrorKind::System, comm_->base.peer, device_, e.what());
  }
  ConnectionMeta meta = localMeta(port_, set, reinterpret_cast<uint64_t>(comm_->control.data), comm_->control.mr->rkey);
  meta.serviceLevel = static_cast<uint8_t>(options_.qp.sl >= 0          ? options_.qp.sl
                                           : options_.trafficClass >= 0 ? options_.trafficClass
                                                                        : 0);
  meta.trafficClass = static_cast<uint8_t>(options_.qp.tc >= 0          ? options_.qp.tc
                                           : options_.trafficClass >= 0 ? options_.trafficClass
                                                                        : 0);
  meta.flags = (options_.layout.adaptiveRouting ? kMetaAdaptiveRouting : 0) | (set.perMessage > 1 ? kMetaSplitData : 0);
  sl_ = meta.serviceLevel;
  tc_ = meta.trafficClass;
  out_ = encodeMeta(meta);
}

void IbConnecting::connectQps(const ConnectionMeta& remote) {
  const std::string& peer = comm_->base.peer;
  checkLinkLayers(port_, remote, peer, device_);
  QpSet& set = comm_->set;
  if (remote.qpCount != set.count) {
    throw NetError(ErrorKind::Remote, peer, device_,
                   "the peer created " + std::to_string(remote.qpCount) + " QPs for " + std::to_string(set.count));
  }
  try {
    for (int q = 0; q < set.count; ++q) {
      set.remoteQpn[q] = remote.qpn[q];
      qpToRtr(verbs_, port_, set.qps[static_cast<size_t>(q)], remoteQp(remote, q), sl_, tc_);
      qpToRts(verbs_, set.qps[static_cast<size_t>(q)], options_.qp);
    }
  } catch (const std::runtime_error& e) {
    throw NetError(ErrorKind::System, peer, device_, e.what());
  }
  set.pathMtu = pathMtu(port_.attr.activeMtu, remote.mtu);
  comm_->remoteRecordsAddr = remote.controlAddr;
  comm_->remoteRecordsRkey = remote.controlRkey;
}

std::unique_ptr<IbSendComm> IbConnecting::progress() {
  if (step_ == Step::Oob) {
    if (!oob_->progress()) return nullptr;
    stream_ = oob_->takeStreams();
    createQps();
    step_ = Step::SendMeta;
    moved_ = 0;
  }
  const int fd = stream_.fds[0].get();
  const std::string& peer = comm_->base.peer;
  if (step_ == Step::SendMeta) {
    if (!moveBytes(fd, true, out_.data(), out_.size(), moved_, peer, device_, "the connection metadata"))
      return nullptr;
    step_ = Step::RecvMeta;
    moved_ = 0;
  }
  if (step_ == Step::RecvMeta) {
    // A peer that refuses the connection (a check of its accept failed) closes the stream: its WARN says why.
    if (!moveBytes(fd, false, in_.data(), in_.size(), moved_, peer, device_,
                   "the peer's connection metadata (a peer that refuses the connection closes it; its log names the "
                   "check that failed)"))
      return nullptr;
    connectQps(decodeOrThrow(in_, peer, device_));
    const uint32_t word = htole32(kReadyWord);
    std::memcpy(ready_.data(), &word, 4);
    step_ = Step::SendReady;
    moved_ = 0;
  }
  if (!moveBytes(fd, true, ready_.data(), ready_.size(), moved_, peer, device_, "ready")) return nullptr;
  // The out-of-band stream stays open: RDMA tells a waiting side nothing when its peer dies, the kernel
  // closing the dead process's socket does (ib_comm.h, watchPeer).
  comm_->set.oob = std::move(stream_.fds[0]);
  return std::move(comm_);
}

// --- acceptor ----------------------------------------------------------------------------------------------

IbAccepting::IbAccepting(const VerbsTable& verbs, IbPort& port, int device, tcp_setup::SetupListener::Accepted accepted,
                         const ConnectionOptions& options, bool flush)
    : verbs_(verbs),
      port_(port),
      device_(device),
      options_(options),
      flush_(flush),
      stream_(std::move(accepted.streams)),
      peer_(std::move(accepted.peer)),
      peerPreamble_(accepted.peerPreamble) {}

IbAccepting::~IbAccepting() {
  if (comm_) comm_->close();
}

void IbAccepting::build(const ConnectionMeta& remote) {
  checkLinkLayers(port_, remote, peer_, device_);
  comm_ = std::make_unique<IbRecvComm>(verbs_);
  comm_->base.device = device_;
  comm_->base.object = comm_.get();
  comm_->base.peer = peer_;
  comm_->base.peerPreamble = peerPreamble_;
  QpSet& set = comm_->set;
  set.port = &port_;
  set.count = remote.qpCount;  // the sender's policy decides; the receiver follows
  set.perMessage = (remote.flags & kMetaSplitData) != 0 ? set.count : 1;
  set.pathMtu = pathMtu(port_.attr.activeMtu, remote.mtu);
  set.sqDepth = kSendQueueDepth;
  comm_->base.qps = set.count;
  // Receiver QPs carry the clear-to-send writes: NCCL_IB_FIFO_TC when set, else the sender's class.
  const int tc = options_.qp.fifoTc >= 0 ? options_.qp.fifoTc : remote.trafficClass;
  try {
    set.cq =
        createCq(verbs_, port_,
                 cqEntriesFor(set.count, kSendQueueDepth, kRecvQueueDepth, flush_ ? kFlushQueueDepth : 0), &set.fatal);
    for (int q = 0; q < set.count; ++q) {
      IbvQp*& qp = set.qps[static_cast<size_t>(q)];
      qp = createQp(verbs_, port_, set.cq, kSendQueueDepth, kRecvQueueDepth, options_.qp.useInline, &set.fatal);
      qpToInit(verbs_, port_, qp, kIbvAccessRemoteWrite | kIbvAccessRemoteRead | kIbvAccessRemoteAtomic,
               options_.qp.pkey);
      qpToRtr(verbs_, port_, qp, remoteQp(remote, q), remote.serviceLevel, tc);
      qpToRts(verbs_, qp, options_.qp);
      set.remoteQpn[q] = remote.qpn[q];
    }
    // The clear-to-send shadow (the source of those writes), then the size records the sender writes.
    comm_->control.allocate(verbs_, port_, IbRecvComm::shadowBytes() + kFifoDepth * kSizeRecordBytes,
                            kIbvAccessLocalWrite | kIbvAccessRemoteWrite | kIbvAccessRemoteRead);
    if (flush_) {
      comm_->flushTarget.allocate(verbs_, port_, sizeof(int), kIbvAccessLocalWrite);
      comm_->flushQp = createQp(verbs_, port_, set.cq, kFlushQueueDepth, 0, false, &set.fatal);
      qpToInit(verbs_, port_, comm_->flushQp, kIbvAccessLocalWrite | kIbvAccessRemoteRead, options_.qp.pkey);
      RemoteQp self;  // the flush QP is connected to itself
      self.qpn = comm_->flushQp->qpNum;
      self.lid = port_.attr.lid;
      self.gid = port_.gid.gid;
      self.linkLayer = port_.attr.linkLayer;
      self.mtu = port_.attr.activeMtu;
      qpToRtr(verbs_, port_, comm_->flushQp, self, remote.serviceLevel, tc);
      qpToRts(verbs_, comm_->flushQp, options_.qp);
    }
  } catch (const std::runtime_error& e) {
    throw NetError(ErrorKind::System, peer_, device_, e.what());
  }
  comm_->remoteFifoAddr = remote.controlAddr;
  comm_->remoteFifoRkey = remote.controlRkey;
  ConnectionMeta meta = localMeta(
      port_, set, reinterpret_cast<uint64_t>(comm_->control.data + IbRecvComm::shadowBytes()), comm_->control.mr->rkey);
  meta.serviceLevel = remote.serviceLevel;  // echoed, as NCCL does
  meta.trafficClass = remote.trafficClass;
  out_ = encodeMeta(meta);
}

std::unique_ptr<IbRecvComm> IbAccepting::progress() {
  const int fd = stream_.fds[0].get();
  if (step_ == Step::RecvMeta) {
    if (!moveBytes(fd, false, in_.data(), in_.size(), moved_, peer_, device_, "the peer's connection metadata"))
      return nullptr;
    build(decodeOrThrow(in_, peer_, device_));
    step_ = Step::SendMeta;
    moved_ = 0;
  }
  if (step_ == Step::SendMeta) {
    if (!moveBytes(fd, true, out_.data(), out_.size(), moved_, peer_, device_, "the connection metadata"))
      return nullptr;
    step_ = Step::RecvReady;
    moved_ = 0;
  }
  if (!moveBytes(fd, false, ready_.data(), ready_.size(), moved_, peer_, device_, "the peer's ready")) return nullptr;
  uint32_t word = 0;
  std::memcpy(&word, ready_.data(), 4);
  if (le32toh(word) != kReadyWord) {
    char text[96];
    std::snprintf(text, sizeof text, "the peer's ready word is 0x%08x, expected 0x%08x", le32toh(word), kReadyWord);
    throw NetError(ErrorKind::Remote, peer_, device_, text);
  }
  comm_->set.oob = std::move(stream_.fds[0]);
  return std::move(comm_);
}

}  // namespace railtune::net::ib
