// RC QP creation and the state transitions. See ib_qp.h.
#include "net_plugin/transports/ib/ib_qp.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace railtune::net::ib {
namespace {

std::runtime_error verbsFailure(const std::string& what, int result) {
  const int error = result > 0 ? result : errno;
  return std::runtime_error(what + " failed: " + (error != 0 ? std::strerror(error) : "no reason given"));
}

// NCCL's constants for RTR/RTS (connect.cc@v2.30.7): a responder accepts one outstanding RDMA read (the flush),
// waits 12 (0.64 ms) before an RNR retry, and the requester retries RNR forever (7).
constexpr uint8_t kMaxRdAtomic = 1;
constexpr uint8_t kMinRnrTimer = 12;
constexpr uint8_t kRnrRetryInfinite = 7;
constexpr uint8_t kHopLimit = 255;

}  // namespace

QpOptions qpOptionsFrom(const ncclib::NcclIbEnv& env, const qp::QpPolicy& policy) {
  QpOptions options;
  options.timeout = static_cast<int>(env.timeout.value);
  options.retryCnt = static_cast<int>(env.retryCount.value);
  options.pkey = static_cast<int>(env.pkeyIndex.value);
  options.sl = policy.serviceLevel;
  options.tc = policy.trafficClass;
  options.fifoTc = static_cast<int>(env.fifoTrafficClass.value);
  options.useInline = env.useInline.value != 0;
  return options;
}

IbvCq* createCq(const VerbsTable& verbs, IbPort& port, int entries, void* cqContext) {
  errno = 0;
  IbvCq* cq = verbs.createCq(port.context, entries, cqContext, nullptr, 0);
  if (cq == nullptr) throw verbsFailure("ibv_create_cq(" + std::to_string(entries) + ") on " + port.where(), 0);
  return cq;
}

IbvQp* createQp(const VerbsTable& verbs, IbPort& port, IbvCq* cq, int maxSendWr, int maxRecvWr, bool useInline,
                void* qpContext) {
  IbvQpInitAttr init{};
  init.qpContext = qpContext;
  init.sendCq = cq;
  init.recvCq = cq;
  init.qpType = kIbvQptRc;
  init.cap.maxSendWr = static_cast<uint32_t>(maxSendWr);
  init.cap.maxRecvWr = static_cast<uint32_t>(maxRecvWr);
  init.cap.maxSendSge = 1;
  init.cap.maxRecvSge = 1;
  init.cap.maxInlineData = useInline ? static_cast<uint32_t>(kFifoElementBytes) : 0;
  errno = 0;
  IbvQp* qp = verbs.createQp(port.pd, &init);
  if (qp == nullptr) throw verbsFailure("ibv_create_qp on " + port.where(), 0);
  return qp;
}

void qpToInit(const VerbsTable& verbs, const IbPort& port, IbvQp* qp, int access, int pkeyIndex) {
  IbvQpAttr attr{};
  attr.qpState = kIbvQpsInit;
  attr.pkeyIndex = static_cast<uint16_t>(pkeyIndex);
  attr.portNum = static_cast<uint8_t>(port.port);
  attr.qpAccessFlags = static_cast<unsigned>(access);
  const int rc = verbs.modifyQp(qp, &attr, kIbvQpState | kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags);
  if (rc != 0) throw verbsFailure("ibv_modify_qp(INIT) of QP " + std::to_string(qp->qpNum) + " on " + port.where(), rc);
}

void qpToRtr(const VerbsTable& verbs, const IbPort& port, IbvQp* qp, const RemoteQp& remote, int sl, int tc) {
  IbvQpAttr attr{};
  attr.qpState = kIbvQpsRtr;
  attr.pathMtu = pathMtu(port.attr.activeMtu, remote.mtu);
  attr.destQpNum = remote.qpn;
  attr.rqPsn = 0;
  attr.maxDestRdAtomic = kMaxRdAtomic;
  attr.minRnrTimer = kMinRnrTimer;
  IbvAhAttr& ah = attr.ahAttr;
  ah.sl = static_cast<uint8_t>(sl);
  ah.srcPathBits = 0;
  ah.portNum = static_cast<uint8_t>(port.port);
  const bool grhRequired = (port.attr.flags & 1) != 0;  // IBV_QPF_GRH_REQUIRED
  const bool otherSubnet = port.attr.linkLayer == kIbvLinkLayerInfiniband &&
                           (port.gid.gid.raw[6] != remote.gid.raw[6] || port.gid.gid.raw[7] != remote.gid.raw[7]);
  if (port.attr.linkLayer == kIbvLinkLayerEthernet || grhRequired || otherSubnet) {
    ah.isGlobal = 1;
    ah.grh.dgid = remote.gid;
    ah.grh.sgidIndex = static_cast<uint8_t>(port.gid.index);
    ah.grh.hopLimit = kHopLimit;
    ah.grh.flowLabel = 0;
    ah.grh.trafficClass = static_cast<uint8_t>(tc);
  }
  if (port.attr.linkLayer == kIbvLinkLayerInfiniband) {
    // Across subnets NCCL routes to the peer's FLID (GID bytes 4-5) when it has one (connect.cc:425-435).
    const uint16_t flid = static_cast<uint16_t>((remote.gid.raw[4] << 8) | remote.gid.raw[5]);
    ah.dlid = otherSubnet && flid != 0 ? flid : remote.lid;
  }
  const int mask =
      kIbvQpState | kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic | kIbvQpMinRnrTimer;
  const int rc = verbs.modifyQp(qp, &attr, mask);
  if (rc != 0)
    throw verbsFailure("ibv_modify_qp(RTR) of QP " + std::to_string(qp->qpNum) + " on " + port.where() + " to QP " +
                           std::to_string(remote.qpn),
                       rc);
}

void qpToRts(const VerbsTable& verbs, IbvQp* qp, const QpOptions& options) {
  IbvQpAttr attr{};
  attr.qpState = kIbvQpsRts;
  attr.timeout = static_cast<uint8_t>(options.timeout);
  attr.retryCnt = static_cast<uint8_t>(options.retryCnt);
  attr.rnrRetry = kRnrRetryInfinite;
  attr.sqPsn = 0;
  attr.maxRdAtomic = kMaxRdAtomic;
  const int rc = verbs.modifyQp(
      qp, &attr, kIbvQpState | kIbvQpTimeout | kIbvQpRetryCnt | kIbvQpRnrRetry | kIbvQpSqPsn | kIbvQpMaxQpRdAtomic);
  if (rc != 0) throw verbsFailure("ibv_modify_qp(RTS) of QP " + std::to_string(qp->qpNum), rc);
}

}  // namespace railtune::net::ib
