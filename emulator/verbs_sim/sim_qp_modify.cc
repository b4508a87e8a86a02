// The RC QP's state machine: ibv_modify_qp(3) with the kernel's required and optional attribute masks and
// its checks of the values, what each transition does to the queues, and ibv_query_qp(3).
#include <cerrno>
#include <cstring>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

constexpr unsigned kQpAccessBits =
    ib::kIbvAccessLocalWrite | ib::kIbvAccessRemoteWrite | ib::kIbvAccessRemoteRead | ib::kIbvAccessRemoteAtomic;
constexpr int kKnownMask = (1 << 21) - 1;  // STATE .. DEST_QPN; RATE_LIMIT and above: no

struct Transition {
  bool valid = false;
  int required = 0;
  int optional = 0;
};

// The RC column of the kernel's qp_state_table (drivers/infiniband/core/verbs.c), less SQD/SQE, which the
// simulator refuses (EINVAL) because no transport uses them.
const Transition& transition(int from, int to) {
  using namespace ib;
  static const Transition none{};
  static const Transition stateOnly{true, 0, 0};
  static const Transition resetToInit{true, kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags, 0};
  static const Transition initToInit{true, 0, kIbvQpPkeyIndex | kIbvQpPort | kIbvQpAccessFlags};
  static const Transition initToRtr{
      true, kIbvQpAv | kIbvQpPathMtu | kIbvQpDestQpn | kIbvQpRqPsn | kIbvQpMaxDestRdAtomic | kIbvQpMinRnrTimer,
      kIbvQpAltPath | kIbvQpAccessFlags | kIbvQpPkeyIndex};
  static const Transition rtrToRts{
      true, kIbvQpTimeout | kIbvQpRetryCnt | kIbvQpRnrRetry | kIbvQpSqPsn | kIbvQpMaxQpRdAtomic,
      kIbvQpCurState | kIbvQpAltPath | kIbvQpAccessFlags | kIbvQpMinRnrTimer | kIbvQpPathMigState};
  static const Transition rtsToRts{
      true, 0, kIbvQpCurState | kIbvQpAccessFlags | kIbvQpAltPath | kIbvQpPathMigState | kIbvQpMinRnrTimer};
  if (to == kIbvQpsReset) return from <= kIbvQpsErr ? stateOnly : none;
  if (to == kIbvQpsErr) return from != kIbvQpsReset ? stateOnly : none;
  if (from == kIbvQpsReset && to == kIbvQpsInit) return resetToInit;
  if (from == kIbvQpsInit && to == kIbvQpsInit) return initToInit;
  if (from == kIbvQpsInit && to == kIbvQpsRtr) return initToRtr;
  if (from == kIbvQpsRtr && to == kIbvQpsRts) return rtrToRts;
  if (from == kIbvQpsRts && to == kIbvQpsRts) return rtsToRts;
  return none;
}

// The device whose port has this GID (RoCE, or IB with a GRH) or this LID (IB), anywhere in the fabric.
uint64_t resolvePeer(const Sim& s, const ib::IbvAhAttr& ah) {
  for (const SimHostDesc& host : s.fabric.hosts) {
    for (const SimDeviceDesc& dev : host.devices) {
      for (const SimPortDesc& port : dev.ports) {
        if (ah.isGlobal != 0) {
          for (const SimGid& gid : port.gids) {
            if (std::memcmp(gid.raw, ah.grh.dgid.raw, 16) == 0) return dev.nodeGuid;
          }
        } else if (!port.ethernet && port.lid == ah.dlid && ah.dlid != 0) {
          return dev.nodeGuid;
        }
      }
    }
  }
  return 0;
}

// mlx5 on ->RESET: the QP's completions leave its CQs and the queues start empty; outstanding WRs vanish.
void resetQueues(Qp* qp) {
  purgeCompletions(qp->sendCq, qp);
  if (qp->recvCq != qp->sendCq) purgeCompletions(qp->recvCq, qp);
  qp->sqHead = qp->sqRetired = qp->ackNext = qp->sendNext = qp->sentHigh = qp->psnBase = 0;
  qp->rqHead = qp->rqConsumed = qp->rqRetired = 0;
  qp->peerGuid = 0;
  qp->peerSocket.clear();
  qp->port = 0;
  qp->access = 0;
  qp->pathMtu = 0;
  qp->destQpn = qp->rqPsn = qp->sqPsn = qp->expectedPsn = 0;
  qp->ah = {};
}

int checkAttributes(Sim& s, Qp* qp, const ib::IbvQpAttr& a, int mask) {
  const Device& dev = *qp->context->device;
  int port = (mask & ib::kIbvQpPort) != 0 ? a.portNum : qp->port;
  if ((mask & ib::kIbvQpPort) != 0 && portOf(dev, a.portNum) == nullptr) return EINVAL;
  const SimPortDesc* p = portOf(dev, port);
  if ((mask & ib::kIbvQpPkeyIndex) != 0 && a.pkeyIndex != 0) return EINVAL;  // only index 0 holds a P_Key
  if ((mask & ib::kIbvQpAccessFlags) != 0 && (a.qpAccessFlags & ~kQpAccessBits) != 0) return EINVAL;
  if ((mask & ib::kIbvQpPathMtu) != 0 &&
      (a.pathMtu < ib::kIbvMtu256 || a.pathMtu > ib::kIbvMtu4096 || p == nullptr || a.pathMtu > p->activeMtu)) {
    return EINVAL;
  }
  if ((mask & ib::kIbvQpDestQpn) != 0 && a.destQpNum > 0xffffff) return EINVAL;
  if ((mask & ib::kIbvQpAv) != 0) {
    const SimPortDesc* avPort = portOf(dev, a.ahAttr.portNum);
    if (avPort == nullptr) return EINVAL;
    // rdma_check_ah_attr: RoCE needs a GRH; a GRH needs a source GID that exists.
    if (avPort->ethernet && a.ahAttr.isGlobal == 0) return EINVAL;
    if (a.ahAttr.isGlobal != 0 && a.ahAttr.grh.sgidIndex >= avPort->gids.size()) return EINVAL;
  }
  if ((mask & ib::kIbvQpMaxDestRdAtomic) != 0 && a.maxDestRdAtomic > 16) return EINVAL;
  if ((mask & ib::kIbvQpMaxQpRdAtomic) != 0 && a.maxRdAtomic > 16) return EINVAL;
  if ((mask & ib::kIbvQpMinRnrTimer) != 0 && a.minRnrTimer > 31) return EINVAL;
  if ((mask & ib::kIbvQpTimeout) != 0 && a.timeout > 31) return EINVAL;
  if ((mask & ib::kIbvQpRetryCnt) != 0 && a.retryCnt > 7) return EINVAL;
  if ((mask & ib::kIbvQpRnrRetry) != 0 && a.rnrRetry > 7) return EINVAL;
  if ((mask & ib::kIbvQpCurState) != 0 && a.curQpState != qp->state) return EINVAL;
  (void)s;
  return 0;
}

}  // namespace

int modifyQp(ib::IbvQp* qpAbi, ib::IbvQpAttr* attr, int mask) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr || attr == nullptr || (mask & ~kKnownMask) != 0) return EINVAL;
  int from = qp->state;
  int to = (mask & ib::kIbvQpState) != 0 ? attr->qpState : from;
  if (to < ib::kIbvQpsReset || to > ib::kIbvQpsErr) return EINVAL;
  // A move to ERR the simulator made (a CQE error, qp_fatal) is what the caller's QP is in now, whatever it
  // last set; the kernel checks against the real state too.
  const Transition& t = transition(from, to);
  if (!t.valid) return EINVAL;
  int given = mask & ~ib::kIbvQpState;
  if ((given & t.required) != t.required || (given & ~(t.required | t.optional)) != 0) return EINVAL;
  if (int error = checkAttributes(s, qp, *attr, mask)) return error;

  if ((mask & ib::kIbvQpPort) != 0) qp->port = attr->portNum;
  if ((mask & ib::kIbvQpPkeyIndex) != 0) qp->pkeyIndex = attr->pkeyIndex;
  if ((mask & ib::kIbvQpAccessFlags) != 0) qp->access = attr->qpAccessFlags;
  if ((mask & ib::kIbvQpPathMtu) != 0) qp->pathMtu = attr->pathMtu;
  if ((mask & ib::kIbvQpDestQpn) != 0) qp->destQpn = attr->destQpNum;
  if ((mask & ib::kIbvQpRqPsn) != 0) qp->rqPsn = attr->rqPsn & 0xffffff;
  if ((mask & ib::kIbvQpSqPsn) != 0) qp->sqPsn = attr->sqPsn & 0xffffff;
  if ((mask & ib::kIbvQpAv) != 0) qp->ah = attr->ahAttr;
  if ((mask & ib::kIbvQpMaxDestRdAtomic) != 0) qp->maxDestRdAtomic = attr->maxDestRdAtomic;
  if ((mask & ib::kIbvQpMaxQpRdAtomic) != 0) qp->maxRdAtomic = attr->maxRdAtomic;
  if ((mask & ib::kIbvQpMinRnrTimer) != 0) qp->minRnrTimer = attr->minRnrTimer;
  if ((mask & ib::kIbvQpTimeout) != 0) qp->timeout = attr->timeout;
  if ((mask & ib::kIbvQpRetryCnt) != 0) qp->retryCnt = attr->retryCnt;
  if ((mask & ib::kIbvQpRnrRetry) != 0) qp->rnrRetry = attr->rnrRetry;

  if (to == ib::kIbvQpsReset) {
    resetQueues(qp);
    qp->state = ib::kIbvQpsReset;
  } else if (to == ib::kIbvQpsErr) {
    moveToError(s, qp, ib::kIbvWcWrFlushErr);
  } else if (from == ib::kIbvQpsInit && to == ib::kIbvQpsRtr) {
    qp->expectedPsn = qp->rqPsn;
    qp->peerGuid = resolvePeer(s, qp->ah);
    qp->peerSocket.clear();
    qp->state = to;
  } else if (from == ib::kIbvQpsRtr && to == ib::kIbvQpsRts) {
    qp->psnBase = qp->sqHead;
    qp->ackNext = qp->sendNext = qp->sentHigh = qp->sqHead;
    qp->retriesLeft = qp->retryCnt;
    qp->rnrLeft = qp->rnrRetry;
    qp->state = to;
  } else {
    qp->state = to;
  }
  if ((mask & ib::kIbvQpState) != 0) qpAbi->state = to;
  return 0;
}

int queryQp(ib::IbvQp* qpAbi, ib::IbvQpAttr* attr, int mask, ib::IbvQpInitAttr* init) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr || attr == nullptr || (mask & ib::kIbvQpRateLimit) != 0) return EINVAL;
  std::memset(attr, 0, sizeof *attr);  // 136 bytes: never rate_limit
  attr->qpState = qp->state;
  attr->curQpState = qp->state;
  attr->pathMtu = qp->pathMtu;
  attr->rqPsn = qp->rqPsn;
  attr->sqPsn = qp->sqPsn;
  attr->destQpNum = qp->destQpn;
  attr->qpAccessFlags = qp->access;
  attr->cap = qp->cap;
  attr->ahAttr = qp->ah;
  attr->pkeyIndex = qp->pkeyIndex;
  attr->maxRdAtomic = qp->maxRdAtomic;
  attr->maxDestRdAtomic = qp->maxDestRdAtomic;
  attr->minRnrTimer = qp->minRnrTimer;
  attr->portNum = static_cast<uint8_t>(qp->port);
  attr->timeout = qp->timeout;
  attr->retryCnt = qp->retryCnt;
  attr->rnrRetry = qp->rnrRetry;
  if (init != nullptr) {
    std::memset(init, 0, sizeof *init);  // 64 bytes
    init->qpContext = qp->abi.qpContext;
    init->sendCq = &qp->sendCq->abi;
    init->recvCq = &qp->recvCq->abi;
    init->cap = qp->cap;
    init->qpType = ib::kIbvQptRc;
    init->sqSigAll = qp->sigAll ? 1 : 0;
  }
  if ((mask & ib::kIbvQpState) != 0) qpAbi->state = qp->state;  // as rdma-core's wrapper does
  return 0;
}

}  // namespace railtune::verbs_sim
