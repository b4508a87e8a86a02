// The receive side of a verbs connection: posting receives and clear-to-send elements, completions, flush.
// See ib_comm.h for the protocol.
#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "net_plugin/transports/ib/ib_comm.h"

namespace railtune::net::ib {

IbRecvComm::IbRecvComm(const VerbsTable& verbs) : verbs_(verbs), requests_(new IbRecvRequest[kFifoDepth]) {
  for (size_t i = 0; i < kFifoDepth; ++i) {
    requests_[i].kind = IbRequestKind::Recv;
    requests_[i].owner = this;
  }
  for (IbFlushRequest& f : flushes_) {
    f.kind = IbRequestKind::Flush;
    f.owner = this;
  }
}

IbRecvRequest* IbRecvComm::post(std::span<const RecvBuffer> buffers) {
  throwIfFailed(base, set);
  const int slot = static_cast<int>(head_ % kFifoDepth);
  IbRecvRequest& request = requests_[static_cast<size_t>(slot)];
  if (inFlight_ >= kMaxInFlight || request.posted) return nullptr;
  if (set.sqUsed[0] + 1 > set.sqDepth) {
    progress();
    if (set.sqUsed[0] + 1 > set.sqDepth) return nullptr;
  }
  postReceives(request, slot, buffers);
  const int n = static_cast<int>(buffers.size());
  std::byte* shadow = control.data + static_cast<size_t>(slot) * kMaxRecvs * kFifoElementBytes;
  for (int i = 0; i < n; ++i) {
    const RecvBuffer& buffer = buffers[static_cast<size_t>(i)];
    const auto* region = reinterpret_cast<const IbRegion*>(buffer.region);
    FifoElement e;
    e.addr = reinterpret_cast<uint64_t>(buffer.data);
    e.size = buffer.size;
    e.rkey = region != nullptr && region->mr != nullptr ? region->mr->rkey : 0;
    e.tag = buffer.tag;
    e.nreqs = static_cast<uint32_t>(n);
    e.idx = head_ + 1;
    encodeFifoElement(e, shadow + static_cast<size_t>(i) * kFifoElementBytes);
    request.capacity[static_cast<size_t>(i)] = buffer.size;
    request.events[static_cast<size_t>(i)] = buffer.profilerHandle != nullptr && base.attached.observer != nullptr
                                                 ? base.attached.observer->started(buffer.profilerHandle, buffer.size)
                                                 : nullptr;
  }
  std::memset(control.data + shadowBytes() + static_cast<size_t>(slot) * kSizeRecordBytes, 0, kSizeRecordBytes);
  postClearToSend(slot, n);
  request.id = head_;
  request.slot = slot;
  request.count = n;
  request.pending = set.perMessage;
  request.written = 0;
  request.posted = true;
  ++head_;
  ++inFlight_;
  return &request;
}

// One receive on each of the request's QPs: that QP's write-with-immediate of this request consumes it, in
// posting order.
void IbRecvComm::postReceives(IbRecvRequest& request, int slot, std::span<const RecvBuffer> buffers) {
  IbvRecvWr recv{};
  recv.numSge = 0;
  request.qpEventCount = 0;
  size_t q = set.firstQpOf(head_);
  for (int i = 0; i < set.perMessage; ++i, q = set.nextQp(q)) {
    IbvRecvWr* bad = nullptr;
    IbvQp* qp = set.qps[q];
    recv.wrId = encodeWrId({.slot = slot, .qp = static_cast<int>(q)});
    // NCCL's "receive start": per QP per receive, device, wr_id (the slot) and QP number, no opcode or length.
    if (base.attached.observer != nullptr) {
      for (const RecvBuffer& buffer : buffers) {
        if (buffer.profilerHandle == nullptr || request.qpEventCount >= kMaxRecvs) continue;
        request.qpEvents[static_cast<size_t>(request.qpEventCount++)] = base.attached.observer->startedQp(
            buffer.profilerHandle, base.device, static_cast<uint64_t>(slot), -1, static_cast<int>(qp->qpNum), 0);
      }
    }
    const int rc = qp->context->ops.postRecv(qp, &recv, &bad);
    if (rc != 0) {
      const std::string what = "ibv_post_recv on QP " + std::to_string(qp->qpNum) + " failed: " + std::strerror(rc);
      set.fatal.set(what);
      throw connectionError(base, set, ErrorKind::System, what);
    }
  }
}

// The clear-to-send: one RDMA write of the slot's `count` elements into the sender's FIFO, on QP 0. One in
// kCtsSignalEvery is signaled so that the send queue's slots are freed as its completions are polled.
void IbRecvComm::postClearToSend(int slot, int count) {
  std::byte* shadow = control.data + static_cast<size_t>(slot) * kMaxRecvs * kFifoElementBytes;
  IbvSge sge{reinterpret_cast<uint64_t>(shadow), static_cast<uint32_t>(static_cast<size_t>(count) * kFifoElementBytes),
             control.mr->lkey};
  IbvSendWr cts{};
  const bool signaled = ++ctsUnsignaled_ == kCtsSignalEvery;
  cts.wrId = encodeWrId({.kind = WrKind::ClearToSend, .freed = signaled ? ctsUnsignaled_ : 0});
  cts.sgList = &sge;
  cts.numSge = 1;
  cts.opcode = kIbvWrRdmaWrite;
  cts.sendFlags = signaled ? kIbvSendSignaled : 0u;
  cts.wr.rdma.remoteAddr = remoteFifoAddr + static_cast<uint64_t>(slot) * kMaxRecvs * kFifoElementBytes;
  cts.wr.rdma.rkey = remoteFifoRkey;
  if (signaled) ctsUnsignaled_ = 0;
  IbvSendWr* bad = nullptr;
  IbvQp* qp0 = set.qps[0];
  const int rc = qp0->context->ops.postSend(qp0, &cts, &bad);
  if (rc != 0) {
    const std::string what =
        "ibv_post_send (clear-to-send) on QP " + std::to_string(qp0->qpNum) + " failed: " + std::strerror(rc);
    set.fatal.set(what);
    throw connectionError(base, set, ErrorKind::System, what);
  }
  ++set.sqUsed[0];
}

void IbRecvComm::progress() {
  pollCompletions(verbs_, base, set, [this](const IbvWc& wc) {
    const WrId id = decodeWrId(wc.wrId);
    if (wc.opcode == kIbvWcRecvRdmaWithImm) {
      IbRecvRequest& request = requests_[static_cast<size_t>(id.slot)];
      const uint32_t bytes = ntohl(wc.immData);  // what the sender wrote on this QP for the request
      request.written += bytes;
      if (base.attached.counters != nullptr) base.attached.counters->countQpBytes(id.qp, bytes);
      --request.pending;
    } else if (wc.opcode == kIbvWcRdmaWrite && id.kind == WrKind::ClearToSend) {
      set.sqUsed[0] -= id.freed;  // this signaled write and the unsignaled ones before it
    } else if (wc.opcode == kIbvWcRdmaRead && id.kind == WrKind::Flush) {
      const size_t index = static_cast<size_t>(id.slot);
      if (index < flushes_.size()) --flushes_[index].pending;
    }
  });
}

Completion IbRecvComm::test(IbRecvRequest& request) {
  throwIfFailed(base, set);
  if (request.pending > 0) progress();
  Completion done;
  if (request.pending > 0) {
    watchPeer(base, set);
    return done;
  }
  done.done = true;
  done.nSizes = request.count;
  if (request.count == 1) {
    done.sizes[0] = static_cast<size_t>(request.written);  // what the sender's QPs wrote, not what it claims
  } else {
    const size_t total = groupedSizes(request, done);
    if (static_cast<uint32_t>(total) != static_cast<uint32_t>(request.written)) {
      throw connectionError(base, set, ErrorKind::Remote,
                            "the peer wrote " + std::to_string(request.written) +
                                " bytes for a grouped receive whose sizes record adds up to " + std::to_string(total));
    }
  }
  for (int i = 0; i < request.count; ++i) {
    if (done.sizes[i] > request.capacity[static_cast<size_t>(i)]) {
      throw connectionError(base, set, ErrorKind::Remote,
                            "the peer reports " + std::to_string(done.sizes[i]) + " bytes for a buffer of " +
                                std::to_string(request.capacity[static_cast<size_t>(i)]));
    }
    if (base.attached.counters != nullptr) base.attached.counters->countReceived(done.sizes[i]);
    if (request.events[static_cast<size_t>(i)] != nullptr)
      base.attached.observer->stopped(request.events[static_cast<size_t>(i)]);
  }
  if (request.qpEventCount > 0) stopQpEvents(base.attached.observer, request.qpEvents, request.qpEventCount);
  request.posted = false;
  --inFlight_;
  return done;
}

// The sizes of a grouped receive from the record the sender wrote before its write with immediate on QP 0;
// returns their sum.
size_t IbRecvComm::groupedSizes(const IbRecvRequest& request, Completion& done) const {
  const std::byte* record = control.data + shadowBytes() + static_cast<size_t>(request.slot) * kSizeRecordBytes;
  size_t total = 0;
  for (int i = 0; i < request.count; ++i) {
    uint32_t size = 0;
    std::memcpy(&size, record + 4 * static_cast<size_t>(i), 4);
    done.sizes[i] = le32toh(size);
    total += done.sizes[i];
  }
  return total;
}

IbFlushRequest* IbRecvComm::flush(std::span<const RecvBuffer> buffers) {
  throwIfFailed(base, set);
  // NCCL's iflush (p2p.cc@v2.30.7): nothing to flush without GPU memory, or when every buffer is empty;
  // otherwise one signaled 1-byte RDMA read from the last non-empty buffer on the loopback QP.
  const RecvBuffer* last = nullptr;
  for (const RecvBuffer& buffer : buffers)
    if (buffer.size > 0) last = &buffer;
  if (flushQp == nullptr || last == nullptr) return &doneFlush;
  IbFlushRequest* request = nullptr;
  size_t index = 0;
  for (; index < flushes_.size() && request == nullptr; ++index)
    if (!flushes_[index].posted) request = &flushes_[index];
  if (request == nullptr) return nullptr;
  --index;
  const auto* region = reinterpret_cast<const IbRegion*>(last->region);
  IbvSge sge{reinterpret_cast<uint64_t>(flushTarget.data), 1, flushTarget.mr->lkey};
  IbvSendWr read{};
  read.wrId = encodeWrId({.kind = WrKind::Flush, .slot = static_cast<int>(index)});
  read.sgList = &sge;
  read.numSge = 1;
  read.opcode = kIbvWrRdmaRead;
  read.sendFlags = kIbvSendSignaled;
  read.wr.rdma.remoteAddr = reinterpret_cast<uint64_t>(last->data);
  read.wr.rdma.rkey = region != nullptr && region->mr != nullptr ? region->mr->rkey : 0;
  IbvSendWr* bad = nullptr;
  const int rc = flushQp->context->ops.postSend(flushQp, &read, &bad);
  if (rc != 0) {
    const std::string what = "ibv_post_send (flush read) failed: " + std::string(std::strerror(rc));
    set.fatal.set(what);
    throw connectionError(base, set, ErrorKind::System, what);
  }
  request->pending = 1;
  request->posted = true;
  return request;
}

Completion IbRecvComm::testFlush(IbFlushRequest& request) {
  Completion done;
  if (&request == &doneFlush) {
    done.done = true;
    return done;
  }
  throwIfFailed(base, set);
  if (request.pending > 0) progress();
  if (request.pending > 0) return done;
  request.posted = false;
  done.done = true;
  return done;
}

std::string IbRecvComm::close() {
  base.closed = true;
  std::string failures;
  if (flushQp != nullptr) {               // it shares the set's CQ: gone before it
    const uint32_t qpn = flushQp->qpNum;  // read before the call: a library may free it and still report failure
    if (const int rc = verbs_.destroyQp(flushQp); rc != 0)
      failures += "ibv_destroy_qp(flush QP " + std::to_string(qpn) + "): " + std::strerror(rc) + "; ";
  }
  flushQp = nullptr;
  releaseQpSet(verbs_, set, failures);
  control.release(verbs_, failures);
  flushTarget.release(verbs_, failures);
  return failures;
}

}  // namespace railtune::net::ib
