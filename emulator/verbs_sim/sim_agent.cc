// The per-process agent: one thread that moves WRs between QPs over Unix-domain stream sockets in the
// rendezvous directory, plays the responder for this process's QPs, and keeps the requester's timers
// (ACK timeout and retries, RNR waits) on the scaled protocol clock (protocolNow: the steady clock, or one a
// test stops and steps). QPs of one process talk through the agent's
// connection to itself, so there is one code path whatever the processes.
//
// Wire: a fixed header (WireHeader) and a payload, both in host order (the processes share one machine).
// Requests carry a PSN; the responder accepts only the PSN it expects (ahead: dropped, behind: a duplicate
// it ACKs again), so a lost or refused packet is recovered by the requester's go-back-N retransmission, or
// ends in RETRY_EXC_ERR, as on a real link.
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "emulator/verbs_sim/sim_state.h"

namespace railtune::verbs_sim {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kMagic = 0x52564d53;  // "RVMS"
constexpr size_t kMaxPendingOut = 1u << 20;
constexpr uint64_t kMaxMessage = 0x40000000;  // max_msg_sz

enum WireType : uint8_t { kReq = 1, kAck, kNakRnr, kNakAccess, kNakInvalid, kNakOperation, kReadResponse };

struct WireHeader {
  uint32_t magic;
  uint8_t type;
  uint8_t opcode;
  uint8_t rnrTimer;
  uint8_t pathMtu;
  uint64_t srcGuid;
  uint64_t dstGuid;
  uint32_t srcQpn;
  uint32_t dstQpn;
  uint32_t psn;
  uint32_t imm;
  uint64_t remoteAddr;
  uint32_t rkey;
  uint32_t length;
  uint32_t payloadLength;
  uint32_t reserved;
};

struct Conn {
  int fd = -1;
  std::string peer;  // the socket connected to; "" for an accepted connection
  std::vector<uint8_t> in;
  size_t inUsed = 0;
  std::vector<uint8_t> out;
  size_t outSent = 0;
  bool dead = false;
  size_t pendingOut() const { return out.size() - outSent; }
};

// The IB encoding of min_rnr_timer (IBTA table 45), in microseconds.
constexpr double kRnrMicros[32] = {655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
                                   480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
                                   20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};

}  // namespace

struct Agent {
  std::string socketPath;
  int listenFd = -1;
  int wakeFd = -1;
  pid_t pid = 0;
  std::thread thread;
  std::atomic<bool> stop{false};
  bool sleeping = false;
  std::vector<std::unique_ptr<Conn>> conns;
  std::vector<size_t> offsets;
};

namespace {

Clock::duration scaled(const Sim& s, double micros) {
  return std::chrono::nanoseconds(static_cast<int64_t>(micros * 1000.0 * s.timeScale));
}

// Local ACK timeout: 4.096 us x 2^timeout, scaled, never below 1 ms so that a busy machine (sanitizers, two
// cores) rarely fakes a dead link (a test that must never see one stops the clock); 0 is "infinite" (IBTA).
Clock::duration ackTimeout(const Sim& s, const Qp* qp) {
  auto t = scaled(s, 4.096 * std::ldexp(1.0, qp->timeout));
  return std::max<Clock::duration>(t, std::chrono::milliseconds(1));
}

Clock::duration rnrDelay(const Sim& s, uint8_t timer) {
  return std::max<Clock::duration>(scaled(s, kRnrMicros[timer & 31]), std::chrono::microseconds(20));
}

Mr* findMr(Sim& s, uint32_t key, const Pd* pd) {
  auto it = s.mrByKey.find(key);
  if (it == s.mrByKey.end() || it->second->pd != pd) return nullptr;
  return it->second;
}

// Where [addr, addr+length) of the MR's iova space is in this process, or nullptr when outside it (or when
// there is no MR: callers that checked the key before pass findMr's answer straight in).
uint8_t* translate(const Mr* mr, uint64_t addr, uint64_t length) {
  if (mr == nullptr || addr < mr->iova || length > mr->length || addr - mr->iova > mr->length - length) return nullptr;
  return mr->host + (addr - mr->iova);
}

// Bytes land in relaxed atomic stores (8 bytes where aligned): a reader spinning on the memory while the
// agent writes it (NCCL's CTS FIFO) is then not a data race under TSan, and an aligned 8-byte word never
// tears.
void placeBytes(uint8_t* dst, const uint8_t* src, size_t length) {
  size_t i = 0;
  while (i < length && (reinterpret_cast<uintptr_t>(dst + i) & 7) != 0) {
    __atomic_store_n(dst + i, src[i], __ATOMIC_RELAXED);
    ++i;
  }
  for (; i + 8 <= length; i += 8) {
    uint64_t word;
    std::memcpy(&word, src + i, 8);
    __atomic_store_n(reinterpret_cast<uint64_t*>(static_cast<void*>(dst + i)), word, __ATOMIC_RELAXED);
  }
  for (; i < length; ++i) __atomic_store_n(dst + i, src[i], __ATOMIC_RELAXED);
}

// Adversarial placement: the 64-byte-aligned pieces of the target in a random order with short pauses, so
// a reader that trusts the last byte of a buffer as a flag sees it before the rest.
void placeAdversarially(Sim& s, uint8_t* dst, const uint8_t* src, size_t length) {
  std::vector<std::pair<size_t, size_t>> pieces;
  size_t at = 0;
  while (at < length) {
    size_t toBoundary = 64 - (reinterpret_cast<uintptr_t>(dst + at) & 63);
    size_t n = std::min(toBoundary, length - at);
    pieces.emplace_back(at, n);
    at += n;
  }
  std::shuffle(pieces.begin(), pieces.end(), s.rng);
  for (size_t i = 0; i < pieces.size(); ++i) {
    placeBytes(dst + pieces[i].first, src + pieces[i].first, pieces[i].second);
    if (i < 64) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void place(Sim& s, uint8_t* dst, const uint8_t* src, size_t length) {
  if (s.adversarial && length > 64) {
    placeAdversarially(s, dst, src, length);
  } else {
    placeBytes(dst, src, length);
  }
}

void closeConn(Conn* c) {
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
  c->dead = true;
}

Conn* connTo(Agent& a, const std::string& path) {
  for (auto& c : a.conns) {
    if (!c->dead && c->peer == path) return c.get();
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);  // the peer process is gone: its packets are lost, the requester's timer does the rest
    return nullptr;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  auto c = std::make_unique<Conn>();
  c->fd = fd;
  c->peer = path;
  a.conns.push_back(std::move(c));
  return a.conns.back().get();
}

// Makes room at the end of the output buffer: drops what was sent, so that under steady traffic (never fully
// drained) the buffer does not grow without end.
void compactOut(Conn* c) {
  if (c->outSent == c->out.size()) {
    c->out.clear();
    c->outSent = 0;
  } else if (c->outSent > (256u << 10)) {
    c->out.erase(c->out.begin(), c->out.begin() + static_cast<std::ptrdiff_t>(c->outSent));
    c->outSent = 0;
  }
}

void queueMessage(Conn* c, const WireHeader& h, const uint8_t* payload) {
  if (c == nullptr || c->dead) return;
  compactOut(c);
  const auto* hb = reinterpret_cast<const uint8_t*>(&h);
  c->out.insert(c->out.end(), hb, hb + sizeof h);
  if (h.payloadLength > 0) c->out.insert(c->out.end(), payload, payload + h.payloadLength);
}

void flushConn(Conn* c) {
  while (!c->dead && c->outSent < c->out.size()) {
    ssize_t n = send(c->fd, c->out.data() + c->outSent, c->out.size() - c->outSent, MSG_NOSIGNAL);
    if (n > 0) {
      c->outSent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      closeConn(c);
    }
  }
}

WireHeader replyTo(const WireHeader& req, uint8_t type) {
  WireHeader r{};
  r.magic = kMagic;
  r.type = type;
  r.opcode = req.opcode;
  r.srcGuid = req.dstGuid;
  r.srcQpn = req.dstQpn;
  r.dstGuid = req.srcGuid;
  r.dstQpn = req.srcQpn;
  r.psn = req.psn;
  return r;
}

// The peer agent's connection, resolving the peer QP's registry file on first use.
Conn* peerConn(Sim& s, Qp* qp) {
  if (qp->peerGuid == 0) return nullptr;
  if (qp->peerSocket.empty()) {
    std::ifstream in(registryPath(s, qp->peerGuid, qp->destQpn));
    std::string path;
    if (!in || !std::getline(in, path) || path.empty()) return nullptr;
    qp->peerSocket = path;
  }
  return connTo(*s.agent, qp->peerSocket);
}

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
    case ib::kIbvWrRdmaWriteWithImm: {
      uint8_t* dst = remoteTarget(s, qp, h, ib::kIbvAccessRemoteWrite);
      if (dst == nullptr) {
        responderFails(s, qp, c, h, kNakAccess, ib::kIbvEventQpAccessErr);
        return;
      }
      bool withImm = h.opcode == ib::kIbvWrRdmaWriteWithImm;
      if (withImm && takeReceive(qp, c, h) == nullptr) return;
      if (h.length > 0) place(s, dst, payload, h.length);
      qp->stats.bytesReceived += h.length;
      // The receive completes only after all of this WRITE's bytes (and every earlier one's) have landed.
      if (withImm) completeReceive(s, qp, h, ib::kIbvWcSuccess, ib::kIbvWcRecvRdmaWithImm, h.length, true);
      break;
    }
    case ib::kIbvWrSend:
    case ib::kIbvWrSendWithImm: {
      RecvSlot* slot = takeReceive(qp, c, h);
      if (slot == nullptr) return;
      const ib::IbvSge* sges =
          &qp->rqSges[(qp->rqConsumed % qp->rq.size()) * std::max<uint32_t>(qp->cap.maxRecvSge, 1)];
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
        return;
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
      break;
    }
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
  size_t at = index % qp->sq.size();
  SendSlot& slot = qp->sq[at];
  switch (h.type) {
    case kAck:
      if (slot.opcode == ib::kIbvWrRdmaRead) return;  // a READ completes with its data only
      qp->rnrLeft = qp->rnrRetry;
      completeSend(s, qp, index, ib::kIbvWcSuccess, slot.length);
      break;
    case kReadResponse: {
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
      break;
    }
    case kNakRnr:
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

void dispatch(Sim& s, Conn* c, const WireHeader& h, const uint8_t* payload, Clock::time_point now) {
  if (h.type == kReq) {
    handleRequest(s, c, h, payload);
  } else {
    handleReply(s, h, payload, now);
  }
}

// Reads what arrived, without the simulator's lock: connections are the agent thread's alone.
bool receive(Conn* c) {
  bool got = false;
  for (;;) {
    if (c->in.size() - c->inUsed < 65536) c->in.resize(c->inUsed + 65536);
    ssize_t n = recv(c->fd, c->in.data() + c->inUsed, c->in.size() - c->inUsed, 0);
    if (n > 0) {
      c->inUsed += static_cast<size_t>(n);
      got = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    closeConn(c);  // the peer process is gone
    break;
  }
  return got;
}

// Handles every complete message received. In adversarial mode the messages of one read are handled in a
// random interleaving that keeps each QP's own order, so completions of different QPs on a shared CQ come
// out in no particular order.
void handleReceived(Sim& s, Conn* c, Clock::time_point now) {
  std::vector<size_t>& offsets = s.agent->offsets;  // reused: no allocation per read
  offsets.clear();
  size_t at = 0;
  while (c->inUsed - at >= sizeof(WireHeader)) {
    WireHeader h;
    std::memcpy(&h, c->in.data() + at, sizeof h);
    if (h.magic != kMagic) {
      closeConn(c);
      return;
    }
    if (c->inUsed - at < sizeof h + h.payloadLength) break;
    offsets.push_back(at);
    at += sizeof h + h.payloadLength;
  }
  if (s.adversarial && offsets.size() > 1) {
    std::map<std::pair<uint64_t, uint32_t>, std::deque<size_t>> perQp;
    for (size_t off : offsets) {
      WireHeader h;
      std::memcpy(&h, c->in.data() + off, sizeof h);
      perQp[{h.dstGuid, h.dstQpn}].push_back(off);
    }
    offsets.clear();
    while (!perQp.empty()) {
      auto pick = perQp.begin();
      std::advance(pick, static_cast<long>(s.rng() % perQp.size()));
      offsets.push_back(pick->second.front());
      pick->second.pop_front();
      if (pick->second.empty()) perQp.erase(pick);
    }
  }
  for (size_t off : offsets) {
    WireHeader h;
    std::memcpy(&h, c->in.data() + off, sizeof h);
    dispatch(s, c, h, c->in.data() + off + sizeof h, now);
  }
  if (at > 0) {
    std::memmove(c->in.data(), c->in.data() + at, c->inUsed - at);
    c->inUsed -= at;
  }
}

void applyDueFaults(Sim& s, Clock::time_point now) {
  for (auto it = s.faults.begin(); it != s.faults.end();) {
    if (it->at > now) {
      ++it;
      continue;
    }
    std::string error = applyControl(s, it->command);
    if (!error.empty())
      std::fprintf(stderr, "railtune verbs sim: fault '%s': %s\n", it->command.c_str(), error.c_str());
    it = s.faults.erase(it);
  }
}

// How long the agent may sleep: until the next fault (real time) or protocol timer. A stopped clock fires no
// timer until a `clock step`, which wakes the agent.
Clock::duration nextWait(Sim& s, Clock::time_point realNow, Clock::time_point now) {
  Clock::duration wait = std::chrono::milliseconds(100);
  for (const ScheduledFault& f : s.faults) wait = std::min(wait, f.at - realNow);
  if (s.clockStopped) return std::max<Clock::duration>(wait, Clock::duration::zero());
  for (const Qp* qp : s.qpList) {
    if (qp->state != ib::kIbvQpsRts) continue;
    if (qp->rnrResume > now) wait = std::min(wait, qp->rnrResume - now);
    if (qp->ackNext < qp->sendNext && qp->timeout != 0) {
      wait = std::min(wait, qp->lastProgress + ackTimeout(s, qp) - now + std::chrono::microseconds(50));
    }
  }
  return std::max<Clock::duration>(wait, Clock::duration::zero());
}

// The loop: under the lock, apply due faults and move every QP's queue onto the connections; without it,
// write and read the sockets (connections are the agent's alone) and sleep; under it again, handle what
// arrived. Posters therefore wait for the lock only while the agent handles messages, never during its
// system calls.
void agentMain(Sim& s) {
  Agent& a = *s.agent;
  std::vector<pollfd> fds;
  std::vector<Qp*> order;
  std::vector<Conn*> arrived;
  std::unique_lock lock(s.mu);
  while (!a.stop.load()) {
    const Clock::time_point realNow = Clock::now();
    applyDueFaults(s, realNow);
    Clock::time_point now = protocolNow(s);
    order = s.qpList;
    if (s.adversarial) std::shuffle(order.begin(), order.end(), s.rng);
    for (Qp* qp : order) progressQp(s, qp, now);
    if (s.clockStepsSeen != s.clockSteps) {  // the timers ran at the stepped time: `clock step` may return
      s.clockStepsSeen = s.clockSteps;
      s.clockSeen.notify_all();
    }
    uint64_t postsSeen = s.posts;
    auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(nextWait(s, realNow, now));
    lock.unlock();

    for (auto& c : a.conns) flushConn(c.get());
    a.conns.erase(std::remove_if(a.conns.begin(), a.conns.end(), [](const auto& c) { return c->dead; }), a.conns.end());
    fds.clear();
    fds.push_back({a.wakeFd, POLLIN, 0});
    fds.push_back({a.listenFd, POLLIN, 0});
    for (auto& c : a.conns) {
      fds.push_back({c->fd, static_cast<short>(POLLIN | (c->pendingOut() > 0 ? POLLOUT : 0)), 0});
    }
    lock.lock();
    if (s.posts != postsSeen) wait = std::chrono::nanoseconds::zero();  // posted while the lock was free
    a.sleeping = true;  // from here on a poster wakes the agent (wakeAgent)
    lock.unlock();

    timespec ts{static_cast<time_t>(wait.count() / 1000000000), static_cast<long>(wait.count() % 1000000000)};
    ppoll(fds.data(), fds.size(), &ts, nullptr);
    if ((fds[0].revents & POLLIN) != 0) {
      uint64_t value;
      ssize_t ignored = read(a.wakeFd, &value, sizeof value);
      (void)ignored;
    }
    if ((fds[1].revents & POLLIN) != 0) {
      for (;;) {
        int fd = accept4(a.listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        auto c = std::make_unique<Conn>();
        c->fd = fd;
        a.conns.push_back(std::move(c));
      }
    }
    arrived.clear();
    for (size_t i = 2; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      for (auto& c : a.conns) {
        if (c->fd == fds[i].fd && !c->dead) {
          if (receive(c.get())) arrived.push_back(c.get());
          break;
        }
      }
    }

    lock.lock();
    a.sleeping = false;
    now = protocolNow(s);
    for (Conn* c : arrived) handleReceived(s, c, now);
  }
}

void stopAgentAtExit() {
  Sim& s = sim();
  Agent* a = nullptr;
  {
    std::lock_guard lock(s.mu);
    a = s.agent;
    if (a == nullptr || a->pid != getpid()) return;  // a forked child has no agent thread
    a->stop = true;
    uint64_t one = 1;
    ssize_t ignored = write(a->wakeFd, &one, sizeof one);
    (void)ignored;
  }
  if (a->thread.joinable()) a->thread.join();
  std::lock_guard lock(s.mu);
  for (Qp* qp : s.qpList) {
    if (!qp->registryFile.empty()) unlink(qp->registryFile.c_str());
  }
  unlink(a->socketPath.c_str());
}

}  // namespace

void forgetAgentInChild(Sim& s) {
  Agent* a = s.agent;
  if (a == nullptr) return;
  close(a->listenFd);
  close(a->wakeFd);
  for (auto& c : a->conns) {
    if (c->fd >= 0) close(c->fd);
  }
  // The thread object is a copy of the parent's and refers to no thread of this process: it is leaked with
  // the agent, never joined or destroyed.
  s.agent = nullptr;
  for (Qp* qp : s.qpList) qp->registryFile.clear();
}

std::string agentSocketPath(Sim& s) {
  return s.agent != nullptr ? s.agent->socketPath : std::string();
}

bool ensureAgent(Sim& s) {
  if (s.agent != nullptr) return true;
  if (s.dir.empty()) {
    std::fprintf(stderr, "railtune verbs sim: RAILTUNE_VERBS_SIM_DIR is not set: no QP can be created\n");
    errno = EINVAL;
    return false;
  }
  auto* a = new Agent;
  a->pid = getpid();
  char name[96];
  std::snprintf(name, sizeof name, "/agent-%d-%llx.sock", static_cast<int>(a->pid),
                static_cast<unsigned long long>(s.rng() & 0xffffff));
  a->socketPath = s.dir + name;
  sockaddr_un addr{};
  if (a->socketPath.size() >= sizeof addr.sun_path) {
    std::fprintf(stderr, "railtune verbs sim: socket path %s is too long\n", a->socketPath.c_str());
    delete a;
    errno = ENAMETOOLONG;
    return false;
  }
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", a->socketPath.c_str());
  a->listenFd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  a->wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (a->listenFd < 0 || a->wakeFd < 0 || bind(a->listenFd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(a->listenFd, 128) != 0) {
    int error = errno;
    std::fprintf(stderr, "railtune verbs sim: cannot listen on %s: %s\n", a->socketPath.c_str(), std::strerror(error));
    if (a->listenFd >= 0) close(a->listenFd);
    if (a->wakeFd >= 0) close(a->wakeFd);
    delete a;
    errno = error;
    return false;
  }
  s.agent = a;
  a->thread = std::thread([&s] { agentMain(s); });
  static const bool stopsAtExit = std::atexit(stopAgentAtExit) == 0;  // once, whatever agent runs then
  (void)stopsAtExit;
  return true;
}

void stopAgent(Sim& s, std::unique_lock<std::mutex>& lock) {
  Agent* a = s.agent;
  if (a == nullptr) return;
  a->stop = true;
  uint64_t one = 1;
  ssize_t ignored = write(a->wakeFd, &one, sizeof one);
  (void)ignored;
  lock.unlock();
  if (a->thread.joinable()) a->thread.join();
  lock.lock();
  close(a->listenFd);
  close(a->wakeFd);
  for (auto& c : a->conns) closeConn(c.get());
  unlink(a->socketPath.c_str());
  s.agent = nullptr;
  delete a;
}

Clock::time_point protocolNow(const Sim& s) {
  return s.clockStopped ? s.clockStoppedAt : Clock::now() - s.clockBehind;
}

void wakeAgent(Sim& s) {
  ++s.posts;
  if (s.agent == nullptr || !s.agent->sleeping) return;  // awake: it scans the queues before it sleeps
  s.agent->sleeping = false;
  uint64_t one = 1;
  ssize_t ignored = write(s.agent->wakeFd, &one, sizeof one);
  (void)ignored;
}

}  // namespace railtune::verbs_sim
