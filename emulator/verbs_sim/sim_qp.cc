// RC queue pairs: creation with its limits, the state machine of ibv_modify_qp(3) with the kernel's
// required and optional attribute masks, posting, and the completion rules (in order per QP, errors always
// complete, ERR flushes). Moving the WRs between QPs is the agent's (sim_agent.cc).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

constexpr uint32_t kMaxQpWr = 32768;
constexpr uint32_t kMaxSge = 30;
constexpr uint32_t kMaxInline = 256;
constexpr unsigned kQpAccessBits =
    ib::kIbvAccessLocalWrite | ib::kIbvAccessRemoteWrite | ib::kIbvAccessRemoteRead | ib::kIbvAccessRemoteAtomic;
constexpr unsigned kSendFlagBits = ib::kIbvSendFence | ib::kIbvSendSignaled | ib::kIbvSendSolicited |
                                   ib::kIbvSendInline | 16u;  // 16: IBV_SEND_IP_CSUM
constexpr int kKnownMask = (1 << 21) - 1;                     // STATE .. DEST_QPN; RATE_LIMIT and above: no

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

int wcOpcodeOf(int wrOpcode) {
  switch (wrOpcode) {
    case ib::kIbvWrRdmaWrite:
    case ib::kIbvWrRdmaWriteWithImm:
      return ib::kIbvWcRdmaWrite;
    case ib::kIbvWrRdmaRead:
      return ib::kIbvWcRdmaRead;
    default:
      return ib::kIbvWcSend;
  }
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

void purgeCompletions(Cq* cq, const Qp* qp) {
  if (cq == nullptr || cq->count == 0) return;
  std::vector<CqEntry> kept;
  for (size_t i = 0; i < cq->count; ++i) {
    const CqEntry& e = cq->ring[(cq->head + i) % cq->ring.size()];
    if (e.qp != qp) kept.push_back(e);
  }
  cq->head = 0;
  cq->count = kept.size();
  if (!cq->overrun) cq->available.store(cq->count, std::memory_order_release);
  std::copy(kept.begin(), kept.end(), cq->ring.begin());
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

uint32_t psnOf(const Qp* qp, uint64_t index) {
  return static_cast<uint32_t>((qp->sqPsn + (index - qp->psnBase)) & 0xffffff);
}

std::string registryPath(const Sim& s, uint64_t guid, uint32_t qpn) {
  char name[64];
  std::snprintf(name, sizeof name, "/qp-%016llx-%u", static_cast<unsigned long long>(guid), qpn);
  return s.dir + name;
}

void completeSend(Sim& s, Qp* qp, uint64_t index, int status, uint32_t byteLen) {
  SendSlot& slot = qp->sq[index % qp->sq.size()];
  slot.done = true;
  ++qp->stats.wrsCompleted;
  qp->ackNext = std::max(qp->ackNext, index + 1);
  // IBTA 10.7.3.1: a WR that completes in error always makes a completion, signaled or not.
  if (status == ib::kIbvWcSuccess && !slot.signaled) return;
  CqEntry e{};
  e.wc.wrId = slot.wrId;
  e.wc.status = status;
  // ibv_poll_cq(3): an error completion's opcode and byte_len are undefined; poison them so that nobody
  // relies on them.
  e.wc.opcode = status == ib::kIbvWcSuccess ? wcOpcodeOf(slot.opcode) : 0xff;
  e.wc.byteLen = status == ib::kIbvWcSuccess ? byteLen : 0xffffffffu;
  e.wc.qpNum = qp->abi.qpNum;
  e.qp = qp;
  e.wrIndex = index;
  e.recv = false;
  pushCompletion(s, qp->sendCq, e);
}

void moveToError(Sim& s, Qp* qp, int firstStatus) {
  if (qp->state == ib::kIbvQpsErr) return;
  qp->state = ib::kIbvQpsErr;
  const uint64_t first = qp->ackNext;
  for (uint64_t i = first; i < qp->sqHead; ++i) {
    completeSend(s, qp, i, i == first ? firstStatus : ib::kIbvWcWrFlushErr, 0);
  }
  qp->ackNext = qp->sendNext = qp->sentHigh = qp->sqHead;
  flushReceives(s, qp);
}

void flushReceives(Sim& s, Qp* qp) {
  for (uint64_t i = qp->rqConsumed; i < qp->rqHead; ++i) {
    CqEntry e{};
    e.wc.wrId = qp->rq[i % qp->rq.size()].wrId;
    e.wc.status = ib::kIbvWcWrFlushErr;
    e.wc.opcode = 0xff;
    e.wc.byteLen = 0xffffffffu;
    e.wc.qpNum = qp->abi.qpNum;
    e.qp = qp;
    e.recv = true;
    pushCompletion(s, qp->recvCq, e);
  }
  qp->rqConsumed = qp->rqHead;
}

ib::IbvQp* createQp(ib::IbvPd* pdAbi, ib::IbvQpInitAttr* init) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Pd* pd = live<Pd>(s.pds, pdAbi);
  auto failWith = [](int error) -> ib::IbvQp* {
    errno = error;
    return nullptr;
  };
  if (pd == nullptr || init == nullptr) return failWith(EINVAL);
  if (init->qpType != ib::kIbvQptRc || init->srq != nullptr) return failWith(EOPNOTSUPP);  // RC only, no SRQ
  Cq* sendCq = live<Cq>(s.cqs, init->sendCq);
  Cq* recvCq = live<Cq>(s.cqs, init->recvCq);
  if (sendCq == nullptr || recvCq == nullptr || sendCq->context != pd->context || recvCq->context != pd->context) {
    return failWith(EINVAL);
  }
  const ib::IbvQpCap& c = init->cap;
  if (c.maxSendWr > kMaxQpWr || c.maxRecvWr > kMaxQpWr || c.maxSendSge > kMaxSge || c.maxRecvSge > kMaxSge ||
      c.maxInlineData > kMaxInline) {
    return failWith(EINVAL);
  }
  if (!ensureAgent(s)) return nullptr;  // errno set
  uint64_t guid = pd->context->device->desc->nodeGuid;
  // A QPN unique on the device across the processes: the registry file's O_EXCL creation claims it.
  uint32_t& next = s.nextQpn[guid];
  if (next == 0) next = 0x100 + ((static_cast<uint32_t>(getpid()) & 0xfff) << 8);
  uint32_t qpn = 0;
  std::string path;
  for (int tries = 0; tries < 100000; ++tries) {
    uint32_t candidate = next;
    next = next >= 0xfffffe ? 0x100 : next + 1;
    path = registryPath(s, guid, candidate);
    int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return nullptr;  // errno from open: the directory is unusable
    }
    std::string socket = agentSocketPath(s);
    ssize_t written = write(fd, socket.data(), socket.size());
    close(fd);
    if (written != static_cast<ssize_t>(socket.size())) {
      unlink(path.c_str());
      return failWith(EIO);
    }
    qpn = candidate;
    break;
  }
  if (qpn == 0) return failWith(ENOMEM);
  auto* qp = new Qp;
  qp->context = pd->context;
  qp->pd = pd;
  qp->sendCq = sendCq;
  qp->recvCq = recvCq;
  qp->cap = c;
  qp->sigAll = init->sqSigAll != 0;
  qp->guid = guid;
  qp->registryFile = path;
  qp->sq.resize(std::max<uint32_t>(c.maxSendWr, 1));
  qp->sqSges.resize(static_cast<size_t>(std::max<uint32_t>(c.maxSendWr, 1)) * std::max<uint32_t>(c.maxSendSge, 1));
  qp->sqInline.resize(static_cast<size_t>(std::max<uint32_t>(c.maxSendWr, 1)) * c.maxInlineData);
  qp->rq.resize(std::max<uint32_t>(c.maxRecvWr, 1));
  qp->rqSges.resize(static_cast<size_t>(std::max<uint32_t>(c.maxRecvWr, 1)) * std::max<uint32_t>(c.maxRecvSge, 1));
  qp->abi.context = &pd->context->abi;
  qp->abi.qpContext = init->qpContext;
  qp->abi.pd = &pd->abi;
  qp->abi.sendCq = &sendCq->abi;
  qp->abi.recvCq = &recvCq->abi;
  qp->abi.srq = nullptr;
  qp->abi.handle = s.nextKey++;
  qp->abi.qpNum = qpn;
  qp->abi.state = ib::kIbvQpsReset;
  qp->abi.qpType = ib::kIbvQptRc;
  pthread_mutex_init(&qp->abi.mutex, nullptr);
  pthread_cond_init(&qp->abi.cond, nullptr);
  ++pd->qps;
  ++sendCq->users;
  ++recvCq->users;
  s.qps.insert(qp);
  s.qpByAddress[{guid, qpn}] = qp;
  s.qpList.push_back(qp);
  return &qp->abi;  // init->cap already holds the actual sizes: exactly those asked for
}

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

int destroyQp(ib::IbvQp* qpAbi) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr) return EINVAL;
  if (qp->eventsReported != qp->abi.eventsCompleted) {
    std::fprintf(stderr, "railtune verbs sim: ibv_destroy_qp(qpn 0x%x): %u async event(s) not acked: EBUSY\n",
                 qp->abi.qpNum, qp->eventsReported - qp->abi.eventsCompleted);
    return EBUSY;
  }
  auto& events = qp->context->events;
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const ib::IbvAsyncEvent& e) {
                                return e.eventType >= ib::kIbvEventQpFatal && e.eventType <= ib::kIbvEventCommEst &&
                                       e.element.qp == &qp->abi;
                              }),
               events.end());
  purgeCompletions(qp->sendCq, qp);
  if (qp->recvCq != qp->sendCq) purgeCompletions(qp->recvCq, qp);
  if (!qp->registryFile.empty()) unlink(qp->registryFile.c_str());
  --qp->pd->qps;
  --qp->sendCq->users;
  --qp->recvCq->users;
  s.qps.erase(qp);
  s.qpByAddress.erase({qp->guid, qp->abi.qpNum});
  s.qpList.erase(std::find(s.qpList.begin(), s.qpList.end(), qp));
  pthread_mutex_destroy(&qp->abi.mutex);
  pthread_cond_destroy(&qp->abi.cond);
  delete qp;
  return 0;
}

namespace {
// One send WR onto the queue, or the errno with which ibv_post_send(3) refuses it.
int postOneSend(Sim& s, Qp* qp, const ib::IbvSendWr& wr) {
  // mlx5: before RTS the send queue admits no scatter/gather entry at all, so any WR fails with ENOMEM.
  if (qp->state != ib::kIbvQpsRts && qp->state != ib::kIbvQpsErr) return ENOMEM;
  if (wr.opcode < ib::kIbvWrRdmaWrite || wr.opcode > ib::kIbvWrRdmaRead) return EINVAL;  // no atomics
  if ((wr.sendFlags & ~kSendFlagBits) != 0) return EINVAL;
  if (wr.numSge < 0 || static_cast<uint32_t>(wr.numSge) > qp->cap.maxSendSge) return ENOMEM;
  if (wr.numSge > 0 && wr.sgList == nullptr) return EINVAL;
  if (qp->sqHead - qp->sqRetired >= qp->cap.maxSendWr) return ENOMEM;
  bool isInline = (wr.sendFlags & ib::kIbvSendInline) != 0;
  uint64_t total = 0;
  for (int i = 0; i < wr.numSge; ++i) total += wr.sgList[i].length;
  if (isInline) {
    if (wr.opcode == ib::kIbvWrRdmaRead) return EINVAL;
    if (total > qp->cap.maxInlineData) return ENOMEM;
  }
  if (total > 0x80000000ULL) return EINVAL;
  uint64_t index = qp->sqHead;
  size_t at = index % qp->sq.size();
  SendSlot& slot = qp->sq[at];
  slot.wrId = wr.wrId;
  slot.opcode = wr.opcode;
  slot.flags = wr.sendFlags;
  slot.signaled = qp->sigAll || (wr.sendFlags & ib::kIbvSendSignaled) != 0;
  slot.imm = wr.immData;
  slot.remoteAddr = wr.wr.rdma.remoteAddr;
  slot.rkey = wr.wr.rdma.rkey;
  slot.length = static_cast<uint32_t>(total);
  slot.numSge = wr.numSge;
  slot.isInline = isInline;
  slot.done = false;
  if (isInline) {
    // The data is copied now: the caller may reuse its buffer as soon as the call returns.
    uint8_t* dst = &qp->sqInline[at * qp->cap.maxInlineData];
    for (int i = 0; i < wr.numSge; ++i) {
      const ib::IbvSge& sge = wr.sgList[i];
      if (sge.length == 0) continue;
      if (sge.addr == 0) return EINVAL;
      std::memcpy(dst, reinterpret_cast<const void*>(sge.addr), sge.length);
      dst += sge.length;
    }
  } else {
    ib::IbvSge* sges = &qp->sqSges[at * std::max<uint32_t>(qp->cap.maxSendSge, 1)];
    for (int i = 0; i < wr.numSge; ++i) sges[i] = wr.sgList[i];
  }
  ++qp->sqHead;
  ++qp->stats.wrsPosted;
  if (qp->state == ib::kIbvQpsErr) {
    // Posting in ERR is allowed and flushes at once, as hardware does.
    completeSend(s, qp, index, ib::kIbvWcWrFlushErr, 0);
    qp->sendNext = qp->sentHigh = qp->sqHead;
  }
  return 0;
}
}  // namespace

int postSend(ib::IbvQp* qpAbi, ib::IbvSendWr* wr, ib::IbvSendWr** badWr) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr) {
    if (badWr != nullptr) *badWr = wr;
    return EINVAL;
  }
  int rc = 0;
  bool posted = false;
  for (ib::IbvSendWr* w = wr; w != nullptr; w = w->next) {
    rc = postOneSend(s, qp, *w);
    if (rc != 0) {
      if (badWr != nullptr) *badWr = w;  // earlier WRs of the chain stay posted
      break;
    }
    posted = true;
  }
  if (posted && qp->state == ib::kIbvQpsRts) wakeAgent(s);
  return rc;
}

int postRecv(ib::IbvQp* qpAbi, ib::IbvRecvWr* wr, ib::IbvRecvWr** badWr) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr) {
    if (badWr != nullptr) *badWr = wr;
    return EINVAL;
  }
  for (ib::IbvRecvWr* w = wr; w != nullptr; w = w->next) {
    int rc = 0;
    if (qp->state == ib::kIbvQpsReset) {
      rc = EINVAL;
    } else if (w->numSge < 0 || static_cast<uint32_t>(w->numSge) > qp->cap.maxRecvSge ||
               (w->numSge > 0 && w->sgList == nullptr)) {
      rc = EINVAL;
    } else if (qp->rqHead - qp->rqRetired >= qp->cap.maxRecvWr) {
      rc = ENOMEM;
    }
    if (rc != 0) {
      if (badWr != nullptr) *badWr = w;
      return rc;
    }
    size_t at = qp->rqHead % qp->rq.size();
    qp->rq[at] = {w->wrId, w->numSge};
    ib::IbvSge* sges = &qp->rqSges[at * std::max<uint32_t>(qp->cap.maxRecvSge, 1)];
    for (int i = 0; i < w->numSge; ++i) sges[i] = w->sgList[i];
    ++qp->rqHead;
    if (qp->state == ib::kIbvQpsErr) flushReceives(s, qp);  // as posting sends in ERR does
  }
  return 0;
}

}  // namespace railtune::verbs_sim
