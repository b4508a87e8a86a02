// Posting on an RC QP and the completion rules: ibv_post_send(3) and ibv_post_recv(3) with their limits,
// completions in order per QP, errors always completing, ERR flushing what is outstanding.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

constexpr unsigned kSendFlagBits = ib::kIbvSendFence | ib::kIbvSendSignaled | ib::kIbvSendSolicited |
                                   ib::kIbvSendInline | 16u;  // 16: IBV_SEND_IP_CSUM

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

}  // namespace

uint32_t psnOf(const Qp* qp, uint64_t index) {
  return static_cast<uint32_t>((qp->sqPsn + (index - qp->psnBase)) & 0xffffff);
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
// The live QP QP_ABI names; nullptr, with the whole chain WR refused (*BAD_WR), for one destroyed or unknown.
template <class Wr>
Qp* liveQpOrRefuse(Sim& s, ib::IbvQp* qpAbi, Wr* wr, Wr** badWr) {
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr && badWr != nullptr) *badWr = wr;
  return qp;
}

}  // namespace

int postSend(ib::IbvQp* qpAbi, ib::IbvSendWr* wr, ib::IbvSendWr** badWr) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = liveQpOrRefuse(s, qpAbi, wr, badWr);
  if (qp == nullptr) return EINVAL;
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
  Qp* qp = liveQpOrRefuse(s, qpAbi, wr, badWr);
  if (qp == nullptr) return EINVAL;
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
