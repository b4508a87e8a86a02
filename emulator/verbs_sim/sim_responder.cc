// The responder's side of a QP (sim_agent.h): a request is accepted only at the PSN the QP expects, checked
// against the QP's access flags and the target MR's key and bounds (IBTA class C errors NAK it and move the
// QP to ERR), applied (WRITE, SEND into a posted receive, READ served), and ACKed.
#include <algorithm>
#include <cstdint>

#include "emulator/verbs_sim/sim_agent.h"

namespace railtune::verbs_sim {
namespace {

// The responder QP fails a request it cannot serve (IBTA class C: remote access error).
void responderFails(Sim& s, Qp* qp, Conn* c, const WireHeader& h, uint8_t nak, int eventType) {
  queueMessage(c, replyTo(h, nak), nullptr);
  moveToError(s, qp, ib::kIbvWcWrFlushErr);
  ib::IbvAsyncEvent event{};
  event.element.qp = &qp->abi;
  event.eventType = eventType;
  queueEvent(qp->context, event);
}

// The receive the request consumes, or nullptr (then an RNR NAK went out).
RecvSlot* takeReceive(Qp* qp, Conn* c, const WireHeader& h) {
  if (qp->rqConsumed == qp->rqHead) {
    WireHeader r = replyTo(h, kNakRnr);
    r.rnrTimer = qp->minRnrTimer;
    queueMessage(c, r, nullptr);
    return nullptr;
  }
  return &qp->rq[qp->rqConsumed % qp->rq.size()];
}

void completeReceive(Sim& s, Qp* qp, const WireHeader& h, int status, int opcode, uint32_t byteLen, bool withImm) {
  const RecvSlot& slot = qp->rq[qp->rqConsumed % qp->rq.size()];
  CqEntry e{};
  e.wc.wrId = slot.wrId;
  e.wc.status = status;
  e.wc.opcode = status == ib::kIbvWcSuccess ? opcode : 0xff;
  e.wc.byteLen = status == ib::kIbvWcSuccess ? byteLen : 0xffffffffu;
  e.wc.immData = withImm ? h.imm : 0;  // network order, untouched
  e.wc.qpNum = qp->abi.qpNum;
  e.wc.srcQp = h.srcQpn;
  e.wc.wcFlags = withImm ? static_cast<unsigned>(ib::kIbvWcWithImm) : 0u;
  e.qp = qp;
  e.recv = true;
  ++qp->rqConsumed;
  pushCompletion(s, qp->recvCq, e);
}

// Remote access check for WRITE and READ; zero-length operations check no key (IBTA C9-88).
uint8_t* remoteTarget(Sim& s, Qp* qp, const WireHeader& h, unsigned need) {
  if ((qp->access & need) == 0) return nullptr;
  if (h.length == 0) return reinterpret_cast<uint8_t*>(1);  // nothing to touch
  Mr* mr = findMr(s, h.rkey, qp->pd);
  if (mr == nullptr || (mr->access & need) == 0) return nullptr;
  return translate(mr, h.remoteAddr, h.length);
}

void sendReadResponse(Sim& s, Qp* qp, Conn* c, const WireHeader& h) {
  uint8_t* src = remoteTarget(s, qp, h, ib::kIbvAccessRemoteRead);
  if (src == nullptr) {
    responderFails(s, qp, c, h, kNakAccess, ib::kIbvEventQpAccessErr);
    return;
  }
  WireHeader r = replyTo(h, kReadResponse);
  r.length = h.length;
  r.payloadLength = h.length;
  queueMessage(c, r, h.length == 0 ? nullptr : src);
  qp->stats.bytesSent += h.length;
}

// RDMA WRITE, with immediate data also a receive, which completes once every byte has landed. False when the
// request failed or waits for a receive (an RNR NAK went out): then nothing is ACKed.
bool applyWrite(Sim& s, Qp* qp, Conn* c, const WireHeader& h, const uint8_t* payload) {
  uint8_t* dst = remoteTarget(s, qp, h, ib::kIbvAccessRemoteWrite);
  if (dst == nullptr) {
    responderFails(s, qp, c, h, kNakAccess, ib::kIbvEventQpAccessErr);
    return false;
  }
  bool withImm = h.opcode == ib::kIbvWrRdmaWriteWithImm;
  if (withImm && takeReceive(qp, c, h) == nullptr) return false;
  if (h.length > 0) place(s, dst, payload, h.length);
  qp->stats.bytesReceived += h.length;
  // The receive completes only after all of this WRITE's bytes (and every earlier one's) have landed.
  if (withImm) completeReceive(s, qp, h, ib::kIbvWcSuccess, ib::kIbvWcRecvRdmaWithImm, h.length, true);
  return true;
}

// SEND: into the next posted receive, whose scatter list must hold it (else LOC_LEN_ERR) in memory the QP may
// write (else LOC_PROT_ERR). False when the request failed or waits for a receive: then nothing is ACKed.
bool applySend(Sim& s, Qp* qp, Conn* c, const WireHeader& h, const uint8_t* payload) {
  RecvSlot* slot = takeReceive(qp, c, h);
  if (slot == nullptr) return false;
  const ib::IbvSge* sges = &qp->rqSges[(qp->rqConsumed % qp->rq.size()) * std::max<uint32_t>(qp->cap.maxRecvSge, 1)];
  uint64_t room = 0;
  bool keysOk = true;
  for (int i = 0; i < slot->numSge; ++i) {
    room += sges[i].length;
    if (sges[i].length == 0) continue;
    Mr* mr = findMr(s, sges[i].lkey, qp->pd);
    if (mr == nullptr || (mr->access & ib::kIbvAccessLocalWrite) == 0 ||
        translate(mr, sges[i].addr, sges[i].length) == nullptr) {
      keysOk = false;
    }
  }
  bool withImm = h.opcode == ib::kIbvWrSendWithImm;
  if (room < h.length || !keysOk) {
    completeReceive(s, qp, h, room < h.length ? ib::kIbvWcLocLenErr : ib::kIbvWcLocProtErr, 0, 0, false);
    responderFails(s, qp, c, h, room < h.length ? kNakInvalid : kNakOperation, ib::kIbvEventQpReqErr);
    return false;
  }
  uint64_t done = 0;
  for (int i = 0; i < slot->numSge && done < h.length; ++i) {
    uint64_t n = std::min<uint64_t>(sges[i].length, h.length - done);
    if (n == 0) continue;
    place(s, translate(findMr(s, sges[i].lkey, qp->pd), sges[i].addr, n), payload + done, n);
    done += n;
  }
  qp->stats.bytesReceived += h.length;
  completeReceive(s, qp, h, ib::kIbvWcSuccess, ib::kIbvWcRecv, h.length, withImm);
  return true;
}

}  // namespace

void handleRequest(Sim& s, Conn* c, const WireHeader& h, const uint8_t* payload) {
  auto it = s.qpByAddress.find({h.dstGuid, h.dstQpn});
  if (it == s.qpByAddress.end()) return;  // no such QP: dropped, no ACK
  Qp* qp = it->second;
  // Only a QP ready to receive, pointing back at the sender with the same path MTU, accepts the packet.
  if (qp->state != ib::kIbvQpsRtr && qp->state != ib::kIbvQpsRts) return;
  if (qp->peerGuid != h.srcGuid || qp->destQpn != h.srcQpn || qp->pathMtu != h.pathMtu) return;
  if (!portIsUp(s, *qp->context->device, qp->port)) return;
  ++qp->stats.packetsReceived;
  uint32_t diff = (h.psn - qp->expectedPsn) & 0xffffff;
  if (diff != 0) {
    if (diff < 0x800000) return;  // ahead of a NAKed or lost packet: the requester will go back
    if (h.opcode == ib::kIbvWrRdmaRead) {
      sendReadResponse(s, qp, c, h);  // a duplicate READ is served again
    } else {
      queueMessage(c, replyTo(h, kAck), nullptr);  // a duplicate is ACKed, not applied twice
    }
    return;
  }
  switch (h.opcode) {
    case ib::kIbvWrRdmaWrite:
    case ib::kIbvWrRdmaWriteWithImm:
      if (!applyWrite(s, qp, c, h, payload)) return;
      break;
    case ib::kIbvWrSend:
    case ib::kIbvWrSendWithImm:
      if (!applySend(s, qp, c, h, payload)) return;
      break;
    case ib::kIbvWrRdmaRead:
      sendReadResponse(s, qp, c, h);
      if (qp->state == ib::kIbvQpsErr) return;
      qp->expectedPsn = (qp->expectedPsn + 1) & 0xffffff;
      return;
    default:
      responderFails(s, qp, c, h, kNakInvalid, ib::kIbvEventQpReqErr);
      return;
  }
  qp->expectedPsn = (qp->expectedPsn + 1) & 0xffffff;
  queueMessage(c, replyTo(h, kAck), nullptr);
}

}  // namespace railtune::verbs_sim
