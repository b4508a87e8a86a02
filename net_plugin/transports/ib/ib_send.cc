// The send side of a verbs connection: matching clear-to-send elements, posting the write chains, completions.
// See ib_comm.h for the protocol.
#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net_plugin/transports/ib/ib_comm.h"

namespace railtune::net::ib {

IbSendComm::IbSendComm(const VerbsTable& verbs)
    : verbs_(verbs), slots_(new Slot[kFifoDepth]), requests_(new IbSendRequest[kFifoDepth * kMaxRecvs]) {
  for (size_t i = 0; i < kFifoDepth * kMaxRecvs; ++i) {
    requests_[i].kind = IbRequestKind::Send;
    requests_[i].owner = this;
  }
}

std::byte* IbSendComm::fifoElement(int slot, int index) const {
  return control.data + (static_cast<size_t>(slot) * kMaxRecvs + static_cast<size_t>(index)) * kFifoElementBytes;
}

int32_t* IbSendComm::sizesOf(int slot) const {
  return reinterpret_cast<int32_t*>(control.data + kFifoDepth * kMaxRecvs * kFifoElementBytes) +
         static_cast<size_t>(slot) * kMaxRecvs;
}

bool IbSendComm::roomForChain() {
  for (int attempt = 0; attempt < 2; ++attempt) {
    bool room = true;
    size_t q = set.firstQpOf(head_);
    for (int i = 0; i < set.perMessage && room; ++i, q = set.nextQp(q)) room = set.sqUsed[q] + kChainMax <= set.sqDepth;
    if (room) return true;
    progress();
  }
  return false;
}

IbSendRequest* IbSendComm::post(const void* data, size_t size, int tag, const IbRegion* region, void* profilerHandle) {
  throwIfFailed(base, set);
  const int slot = static_cast<int>(head_ % kFifoDepth);
  Slot& s = slots_[static_cast<size_t>(slot)];
  if (s.posted) {  // the round 256 requests ago still runs in this slot
    progress();
    return nullptr;
  }
  if (s.matched == 0) {
    // The receiver's elements for this slot: all whole and numbered for this round, else not yet. A waiting poll
    // reads one word, the first element's index, as NCCL's sender polls its FIFO's idx.
    const std::optional<FifoElement> first = decodeFifoElement(fifoElement(slot, 0), head_ + 1);
    if (!first) {
      watchPeer(base, set);
      return nullptr;
    }
    const int nreqs = static_cast<int>(first->nreqs);
    if (nreqs < 1 || nreqs > kMaxRecvs)
      throw connectionError(base, set, ErrorKind::Internal, "the peer posted " + std::to_string(nreqs) + " buffers");
    elements_[0] = *first;
    for (int r = 1; r < nreqs; ++r) {
      const std::optional<FifoElement> e = decodeFifoElement(fifoElement(slot, r), head_ + 1);
      if (!e) return nullptr;
      elements_[static_cast<size_t>(r)] = *e;
    }
    s.nreqs = nreqs;
  }
  int index = -1;
  for (int r = 0; r < s.nreqs && index < 0; ++r) {
    const IbSendRequest& candidate = requests_[static_cast<size_t>(slot) * kMaxRecvs + static_cast<size_t>(r)];
    if (!candidate.matched && elements_[static_cast<size_t>(r)].tag == tag) index = r;
  }
  if (index < 0) return nullptr;  // no buffer of this tag posted (yet)
  if (s.matched + 1 == s.nreqs && !roomForChain()) return nullptr;
  IbSendRequest* request = &requests_[static_cast<size_t>(slot) * kMaxRecvs + static_cast<size_t>(index)];
  request->index = index;
  const FifoElement& element = elements_[static_cast<size_t>(index)];
  // NCCL clamps a send larger than the posted buffer to the buffer (p2p.cc, ncclIbIsend); so does railtune.
  const size_t sent = std::min<size_t>(size, element.size);
  request->id = head_;
  request->slot = slot;
  request->data = static_cast<const std::byte*>(data);
  request->size = sent;
  request->dataQps = set.dataQpsFor(sent);  // once per message, from the QPs the connection has
  request->chunk = qp::chunkBytesFor(sent, request->dataQps);
  request->lkey = region != nullptr && region->mr != nullptr ? region->mr->lkey : 0;
  request->matched = true;
  request->posted = true;
  request->event = nullptr;
  request->profilerHandle = profilerHandle;
  request->qpEventCount = 0;
  if (profilerHandle != nullptr && base.attached.observer != nullptr)
    request->event = base.attached.observer->started(profilerHandle, sent);
  sizesOf(slot)[request->index] = static_cast<int32_t>(htole32(static_cast<uint32_t>(sent)));
  if (++s.matched == s.nreqs) {
    postSlot(slot);
    ++head_;
  }
  return request;
}

// One QP's chain for a slot: its share of each buffer, then the signaled write with immediate (ib_comm.h).
// Returns the number of WRs in wrs[].
int IbSendComm::buildChain(int slot, int i, size_t q, IbvSendWr* wrs, IbvSge* sges) {
  const Slot& s = slots_[static_cast<size_t>(slot)];
  int n = 0;
  uint32_t written = 0;  // this QP's data bytes for the slot (mod 2^32, as the immediate carries them)
  for (int r = 0; r < s.nreqs; ++r) {
    const IbSendRequest& request = requests_[static_cast<size_t>(slot) * kMaxRecvs + static_cast<size_t>(r)];
    const FifoElement& element = elements_[static_cast<size_t>(r)];
    // This QP's 128-byte aligned share of the buffer (common/qp_policy.h): the i-th chunk, if there is one.
    if (i >= request.dataQps || request.size == 0) continue;
    const size_t offset = static_cast<size_t>(i) * request.chunk;
    if (offset >= request.size) continue;
    const size_t length = std::min(request.chunk, request.size - offset);
    sges[n] = IbvSge{reinterpret_cast<uint64_t>(request.data + offset), static_cast<uint32_t>(length), request.lkey};
    wrs[n] = IbvSendWr{};
    wrs[n].wrId = encodeWrId({.slot = slot});  // unsignaled: seen only in an error flush
    wrs[n].sgList = &sges[n];
    wrs[n].numSge = 1;
    wrs[n].opcode = kIbvWrRdmaWrite;
    wrs[n].wr.rdma.remoteAddr = element.addr + offset;
    wrs[n].wr.rdma.rkey = element.rkey;
    written += static_cast<uint32_t>(length);
    if (base.attached.counters != nullptr) base.attached.counters->countQpBytes(static_cast<int>(q), length);
    ++n;
  }
  const IbSendRequest& first = requests_[static_cast<size_t>(slot) * kMaxRecvs];
  // NCCL's choice of the last WR (p2p.cc:121-135@v2.30.7): a single buffer's last data write carries the
  // immediate itself, unless adaptive routing is on and the message is above the threshold; a grouped
  // receive's sizes record is written (on QP 0) by the write with immediate.
  const bool ownWrite = s.nreqs > 1 || n == 0 || (set.adaptiveRouting && first.size > set.arThresholdBytes);
  if (ownWrite) {
    wrs[n] = IbvSendWr{};
    wrs[n].numSge = 0;
    wrs[n].wr.rdma.remoteAddr = elements_[0].addr;  // a zero-length write checks no address or key (IBTA C9-88)
    wrs[n].wr.rdma.rkey = elements_[0].rkey;
    if (i == 0 && s.nreqs > 1) {
      sges[n] = IbvSge{reinterpret_cast<uint64_t>(sizesOf(slot)),
                       static_cast<uint32_t>(sizeof(int32_t) * static_cast<size_t>(s.nreqs)), control.mr->lkey};
      wrs[n].sgList = &sges[n];
      wrs[n].numSge = 1;
      wrs[n].wr.rdma.remoteAddr = remoteRecordsAddr + static_cast<uint64_t>(slot) * kSizeRecordBytes;
      wrs[n].wr.rdma.rkey = remoteRecordsRkey;
    }
    ++n;
  }
  IbvSendWr& last = wrs[n - 1];
  last.wrId = encodeWrId({.slot = slot, .qp = static_cast<int>(q)});
  last.opcode = kIbvWrRdmaWriteWithImm;
  last.sendFlags = kIbvSendSignaled;
  last.immData = htonl(written);
  for (int k = 0; k + 1 < n; ++k) wrs[k].next = &wrs[k + 1];
  return n;
}

void IbSendComm::postSlot(int slot) {
  Slot& s = slots_[static_cast<size_t>(slot)];
  const uint64_t id = head_;
  IbvSendWr wrs[kChainMax];
  IbvSge sges[kChainMax];
  size_t q = set.firstQpOf(id);
  for (int i = 0; i < set.perMessage; ++i, q = set.nextQp(q)) {
    const int n = buildChain(slot, i, q, wrs, sges);
    IbvQp* qp = set.qps[q];
    if (base.attached.observer != nullptr) startQpEvents(slot, i, wrs[n - 1].wrId, qp->qpNum);
    IbvSendWr* bad = nullptr;
    const int rc = qp->context->ops.postSend(qp, wrs, &bad);
    if (rc != 0) {
      const std::string what = "ibv_post_send on QP " + std::to_string(qp->qpNum) + " failed: " + std::strerror(rc);
      set.fatal.set(what);
      throw connectionError(base, set, ErrorKind::System, what);
    }
    set.sqUsed[q] += n;
    s.wrs[q] = static_cast<uint8_t>(n);
  }
  s.pending = set.perMessage;
  s.posted = true;
}

// NCCL's "send start" (p2p.cc@v2.30.7, ncclIbMultiSend): per QP, once per request of the chain, with this
// QP's share of that request as the length.
void IbSendComm::startQpEvents(int slot, int i, uint64_t wrId, uint32_t qpNum) {
  Slot& s = slots_[static_cast<size_t>(slot)];
  for (int r = 0; r < s.nreqs; ++r) {
    IbSendRequest& request = requests_[static_cast<size_t>(slot) * kMaxRecvs + static_cast<size_t>(r)];
    if (request.profilerHandle == nullptr || request.qpEventCount >= kMaxRecvs) continue;
    const size_t offset = static_cast<size_t>(i) * request.chunk;
    const size_t length =
        i < request.dataQps && offset < request.size ? std::min(request.chunk, request.size - offset) : 0;
    request.qpEvents[static_cast<size_t>(request.qpEventCount++)] = base.attached.observer->startedQp(
        request.profilerHandle, base.device, wrId, kIbvWrRdmaWriteWithImm, static_cast<int>(qpNum), length);
  }
}

void IbSendComm::progress() {
  pollCompletions(verbs_, base, set, [this](const IbvWc& wc) {
    if (wc.opcode != kIbvWcRdmaWrite) return;  // nothing else is signaled on a sender
    const WrId id = decodeWrId(wc.wrId);
    Slot& s = slots_[static_cast<size_t>(id.slot)];
    if (id.qp < set.count) set.sqUsed[static_cast<size_t>(id.qp)] -= s.wrs[static_cast<size_t>(id.qp)];
    --s.pending;
  });
}

Completion IbSendComm::test(IbSendRequest& request) {
  throwIfFailed(base, set);
  Slot& s = slots_[static_cast<size_t>(request.slot)];
  if (s.posted && s.pending > 0) progress();
  Completion done;
  if (!s.posted || s.pending > 0) {
    watchPeer(base, set);
    return done;
  }
  done.done = true;
  done.nSizes = 1;
  done.sizes[0] = request.size;
  if (base.attached.counters != nullptr) base.attached.counters->countSent(request.size);
  if (request.event != nullptr) base.attached.observer->stopped(request.event);
  if (request.qpEventCount > 0) stopQpEvents(base.attached.observer, request.qpEvents, request.qpEventCount);
  request.posted = false;
  request.matched = false;
  if (++s.reported == s.nreqs) s = Slot{};
  return done;
}

std::string IbSendComm::close() {
  base.closed = true;
  std::string failures;
  releaseQpSet(verbs_, set, failures);
  control.release(verbs_, failures);
  return failures;
}

}  // namespace railtune::net::ib
