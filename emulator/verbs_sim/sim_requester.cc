// The requester's side of a QP (sim_agent.h): its send queue onto the wire in order, its timers on the
// protocol clock (ACK timeout and go-back-N retries, RNR waits), and the replies that complete its WRs.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "emulator/verbs_sim/sim_agent.h"

namespace railtune::verbs_sim {
namespace {

// The IB encoding of min_rnr_timer (IBTA table 45), in microseconds.
constexpr double kRnrMicros[32] = {655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
                                   480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
                                   20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};

Clock::duration scaled(const Sim& s, double micros) {
  return std::chrono::nanoseconds(static_cast<int64_t>(micros * 1000.0 * s.timeScale));
}

Clock::duration rnrDelay(const Sim& s, uint8_t timer) {
  return std::max<Clock::duration>(scaled(s, kRnrMicros[timer & 31]), std::chrono::microseconds(20));
}

}  // namespace

// Local ACK timeout: 4.096 us x 2^timeout, scaled, never below 1 ms so that a busy machine (sanitizers, two
// cores) rarely fakes a dead link (a test that must never see one stops the clock); 0 is "infinite" (IBTA).
Clock::duration ackTimeout(const Sim& s, const Qp* qp) {
  auto t = scaled(s, 4.096 * std::ldexp(1.0, qp->timeout));
  return std::max<Clock::duration>(t, std::chrono::milliseconds(1));
}

namespace {

// LOC_PROT_ERR for an lkey of another PD, out of its MR's bounds, or an RDMA READ into memory without
// LOCAL_WRITE; LOC_LEN_ERR over max_msg_sz; else success.
int checkLocal(Sim& s, Qp* qp, const SendSlot& slot, size_t at) {
  if (slot.length > kMaxMessage) return ib::kIbvWcLocLenErr;
  if (slot.isInline) return ib::kIbvWcSuccess;
  const ib::IbvSge* sges = &qp->sqSges[at * std::max<uint32_t>(qp->cap.maxSendSge, 1)];
  for (int i = 0; i < slot.numSge; ++i) {
    if (sges[i].length == 0) continue;
    Mr* mr = findMr(s, sges[i].lkey, qp->pd);
    if (mr == nullptr || translate(mr, sges[i].addr, sges[i].length) == nullptr) return ib::kIbvWcLocProtErr;
    if (slot.opcode == ib::kIbvWrRdmaRead && (mr->access & ib::kIbvAccessLocalWrite) == 0) {
      return ib::kIbvWcLocProtErr;
    }
  }
  return ib::kIbvWcSuccess;
}

void transmit(Sim& s, Qp* qp, uint64_t index) {
  size_t at = index % qp->sq.size();
  const SendSlot& slot = qp->sq[at];
  ++qp->stats.packetsSent;
  if (!portIsUp(s, *qp->context->device, qp->port)) return;  // lost on a down link
  Conn* c = peerConn(s, qp);
  if (c == nullptr) return;
  WireHeader h{};
  h.magic = kMagic;
  h.type = kReq;
  h.opcode = static_cast<uint8_t>(slot.opcode);
  h.pathMtu = static_cast<uint8_t>(qp->pathMtu);
  h.srcGuid = qp->guid;
  h.srcQpn = qp->abi.qpNum;
  h.dstGuid = qp->peerGuid;
  h.dstQpn = qp->destQpn;
  h.psn = psnOf(qp, index);
  h.imm = slot.imm;
  h.remoteAddr = slot.remoteAddr;
  h.rkey = slot.rkey;
  h.length = slot.length;
  h.payloadLength = slot.opcode == ib::kIbvWrRdmaRead ? 0 : slot.length;
  if (h.payloadLength == 0) {
    queueMessage(c, h, nullptr);
    return;
  }
  // Gather straight into the connection's buffer: no allocation once it has grown.
  compactOut(c);
  const auto* hb = reinterpret_cast<const uint8_t*>(&h);
  c->out.insert(c->out.end(), hb, hb + sizeof h);
  if (slot.isInline) {
    const uint8_t* data = &qp->sqInline[at * qp->cap.maxInlineData];
    c->out.insert(c->out.end(), data, data + slot.length);
  } else {
    const ib::IbvSge* sges = &qp->sqSges[at * std::max<uint32_t>(qp->cap.maxSendSge, 1)];
    for (int i = 0; i < slot.numSge; ++i) {
      if (sges[i].length == 0) continue;
      const uint8_t* src = translate(findMr(s, sges[i].lkey, qp->pd), sges[i].addr, sges[i].length);
      c->out.insert(c->out.end(), src, src + sges[i].length);
    }
  }
  qp->stats.bytesSent += slot.length;
}

}  // namespace

void progressQp(Sim& s, Qp* qp, Clock::time_point now) {
  if (qp->state != ib::kIbvQpsRts) return;
  if (qp->ackNext < qp->sendNext && qp->timeout != 0 && now - qp->lastProgress > ackTimeout(s, qp)) {
    ++qp->stats.retries;
    if (qp->retriesLeft == 0) {
      moveToError(s, qp, ib::kIbvWcRetryExcErr);
      return;
    }
    --qp->retriesLeft;
    qp->sendNext = qp->ackNext;  // go back N
    qp->peerSocket.clear();      // the registry may name a new agent by now
    qp->lastProgress = now;
  }
  if (now < qp->rnrResume) return;
  while (qp->sendNext < qp->sqHead) {
    uint64_t index = qp->sendNext;
    size_t at = index % qp->sq.size();
    int local = checkLocal(s, qp, qp->sq[at], at);
    if (local != ib::kIbvWcSuccess) {
      // The WR fails when it reaches the head: earlier ones complete first, in order.
      if (index == qp->ackNext) moveToError(s, qp, local);
      return;
    }
    Conn* c = qp->peerSocket.empty() ? nullptr : connTo(*s.agent, qp->peerSocket);
    if (c != nullptr && c->pendingOut() > kMaxPendingOut) return;  // back-pressure
    if (qp->ackNext == qp->sendNext) qp->lastProgress = now;
    transmit(s, qp, index);
    ++qp->sendNext;
    qp->sentHigh = std::max(qp->sentHigh, qp->sendNext);
  }
}

namespace {

// A READ's response: its data into the WR's scatter list, then the WR's completion.
void completeRead(Sim& s, Qp* qp, uint64_t index, const WireHeader& h, const uint8_t* payload) {
  size_t at = index % qp->sq.size();
  SendSlot& slot = qp->sq[at];
  if (slot.opcode != ib::kIbvWrRdmaRead || h.payloadLength != slot.length) return;
  const ib::IbvSge* sges = &qp->sqSges[at * std::max<uint32_t>(qp->cap.maxSendSge, 1)];
  uint64_t done = 0;
  for (int i = 0; i < slot.numSge; ++i) {
    if (sges[i].length == 0) continue;
    Mr* mr = findMr(s, sges[i].lkey, qp->pd);
    uint8_t* dst = mr == nullptr ? nullptr : translate(mr, sges[i].addr, sges[i].length);
    if (dst == nullptr) {
      moveToError(s, qp, ib::kIbvWcLocProtErr);  // deregistered meanwhile
      return;
    }
    place(s, dst, payload + done, sges[i].length);
    done += sges[i].length;
  }
  qp->stats.bytesReceived += slot.length;
  qp->rnrLeft = qp->rnrRetry;
  completeSend(s, qp, index, ib::kIbvWcSuccess, slot.length);
}

// An RNR NAK: the WR goes again once the responder's RNR timer has run, unless the RNR retries are spent.
void awaitReceiver(Sim& s, Qp* qp, uint64_t index, const WireHeader& h, Clock::time_point now) {
  ++qp->stats.rnrNaks;
  if (qp->rnrRetry != 7) {  // 7: retry for ever
    if (qp->rnrLeft == 0) {
      moveToError(s, qp, ib::kIbvWcRnrRetryExcErr);
      return;
    }
    --qp->rnrLeft;
  }
  qp->sendNext = index;
  qp->rnrResume = now + rnrDelay(s, h.rnrTimer);
}

}  // namespace

void handleReply(Sim& s, const WireHeader& h, const uint8_t* payload, Clock::time_point now) {
  if (s.dropAcks) return;  // a dead link: the responder did the work, the requester never hears of it
  auto it = s.qpByAddress.find({h.dstGuid, h.dstQpn});
  if (it == s.qpByAddress.end()) return;
  Qp* qp = it->second;
  if (qp->state != ib::kIbvQpsRts || qp->peerGuid != h.srcGuid || qp->destQpn != h.srcQpn) return;
  if (!portIsUp(s, *qp->context->device, qp->port)) return;
  uint64_t index = qp->ackNext + ((h.psn - psnOf(qp, qp->ackNext)) & 0xffffff);
  if (index >= qp->sentHigh) return;  // stale, from before a go-back
  // A reply to WR n acknowledges every earlier WR, except a READ that has had no response yet: then a
  // response was lost and the requester goes back to it.
  while (qp->ackNext < index) {
    const SendSlot& slot = qp->sq[qp->ackNext % qp->sq.size()];
    if (slot.opcode == ib::kIbvWrRdmaRead) {
      qp->sendNext = qp->ackNext;
      return;
    }
    completeSend(s, qp, qp->ackNext, ib::kIbvWcSuccess, slot.length);
  }
  if (qp->state != ib::kIbvQpsRts) return;  // a CQ overrun moved it to ERR meanwhile
  qp->lastProgress = now;
  qp->retriesLeft = qp->retryCnt;
  const SendSlot& slot = qp->sq[index % qp->sq.size()];
  switch (h.type) {
    case kAck:
      if (slot.opcode == ib::kIbvWrRdmaRead) return;  // a READ completes with its data only
      qp->rnrLeft = qp->rnrRetry;
      completeSend(s, qp, index, ib::kIbvWcSuccess, slot.length);
      break;
    case kReadResponse:
      completeRead(s, qp, index, h, payload);
      break;
    case kNakRnr:
      awaitReceiver(s, qp, index, h, now);
      break;
    case kNakAccess:
      moveToError(s, qp, ib::kIbvWcRemAccessErr);
      break;
    case kNakInvalid:
      moveToError(s, qp, ib::kIbvWcRemInvReqErr);
      break;
    case kNakOperation:
      moveToError(s, qp, ib::kIbvWcRemOpErr);
      break;
    default:
      break;
  }
}

}  // namespace railtune::verbs_sim
