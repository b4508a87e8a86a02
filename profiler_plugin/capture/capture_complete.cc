// See capture_engine.h: building records, completion by overtaking, and the watchdog's view. All of
// it runs under the communicator's mutex, once per operation (or per watchdog scan), never per step.
#include <time.h>

#include <algorithm>

#include "profiler_plugin/capture/capture_engine.h"

namespace railtune::profiler {

using capture::ChildKind;
using capture::kNoSlot;
using capture::SlotState;

namespace {

int64_t clockNs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Monotonic to realtime, with the offset of now: records made at completion are seconds old at most,
// so a clock step in between shifts them by no more than the step.
Timestamp bothClocks(int64_t monotonicNs, int64_t offsetNs) {
  return Timestamp{monotonicNs + offsetNs, monotonicNs};
}

bool flowBefore(const NetFlow& a, const NetFlow& b) {
  if (a.channel != b.channel) return a.channel < b.channel;
  if (a.send != b.send) return a.send;
  return a.peer < b.peer;
}

}  // namespace

CaptureEngine::~CaptureEngine() {
  // NCCL has finalized the communicator: no more events. An operation that waits only for children
  // that never started (no KernelCh for symmetric-memory kernels, dropped events) is as done as it
  // will get; one with open events never finished and is left out.
  std::lock_guard<std::mutex> lock(mutex_);
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    OperationSlot& op = operations_[i];
    if (op.state.load(std::memory_order_acquire) != SlotState::Open) continue;
    uint64_t word = op.pending.load(std::memory_order_acquire);
    if (word != 0 && capture::liveParts(word) == 0 && op.pending.compare_exchange_strong(word, 0)) completeLocked(op);
  }
}

void CaptureEngine::complete(OperationSlot& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Earlier operations first, so records come in the communicator's order. With no other operation
  // open (the common case: one collective at a time) there is nothing to scan the pool for.
  if (openOperations_.load() > 1) overtakeLocked(op.ticket);
  completeLocked(op);
}

// NCCL runs a communicator's kernels in order, so when one operation completes, every operation
// enqueued before it started (its Coll/P2p event stopped before the completing one's started) that has
// no open ProxyOp or KernelCh is done too, even if it still waits for children: those never started (a
// kernel without KernelCh events, events dropped for a full pool, an operation without network or kernel
// events at all). Operations of one group (NCCL starts all of a group's events, then stops them) run in
// one kernel in no particular order, so they never overtake each other.
void CaptureEngine::overtakeLocked(uint64_t ticket) {
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    OperationSlot& op = operations_[i];
    if (op.state.load(std::memory_order_acquire) != SlotState::Open || op.ticket >= ticket) continue;
    uint64_t word = op.pending.load(std::memory_order_acquire);
    const uint64_t stoppedBefore = op.stopTicket.load(std::memory_order_relaxed);
    if (stoppedBefore == 0 || stoppedBefore > ticket) continue;
    while (word != 0 && capture::liveParts(word) == 0) {
      if (op.pending.compare_exchange_weak(word, 0, std::memory_order_acq_rel, std::memory_order_acquire)) {
        completeLocked(op);
        break;
      }
    }
  }
}

void CaptureEngine::completeLocked(OperationSlot& op) {
  buildRecord(op, op.kind, 0, scratch_);  // 0: read the clock only if the record needs "now"
  scratch_.eventsDropped = eventsDropped_.exchange(0, std::memory_order_relaxed);
  if (sink_ != nullptr && sink_->push(scratch_)) {
    pushed_.fetch_add(1, std::memory_order_relaxed);
  } else {
    rejected_.fetch_add(1, std::memory_order_relaxed);
  }
  freeOperationLocked(op);
}

void CaptureEngine::freeOperationLocked(OperationSlot& op) {
  uint32_t next = op.proxyOps.exchange(kNoSlot, std::memory_order_acquire);
  while (next != kNoSlot) {
    ChildSlot& child = children_[next];
    const uint32_t index = next;
    next = child.sibling.load(std::memory_order_relaxed);
    child.state.store(SlotState::Free, std::memory_order_relaxed);
    freeChildren_.push(index);
  }
  op.state.store(SlotState::Free, std::memory_order_release);
  openOperations_.fetch_sub(1);
  freeOperations_.push(static_cast<uint32_t>(&op - operations_.get()));
}

void CaptureEngine::buildRecord(const OperationSlot& op, RecordKind kind, int64_t nowNs, OperationRecord& out) const {
  // Not `out = OperationRecord{}`: that clears all 64 flows (5 KiB) per record. Every header field is
  // set below; collectFlows clears each flow it takes.
  out.kind = kind;
  out.comm = comm_.commId;
  out.rank = op.rank;
  out.nRanks = comm_.nRanks.value_or(0);
  out.seq = op.seq;
  out.operation = op.operation;
  out.bytes = op.bytes;
  out.datatype = op.datatype;
  out.algorithm = op.algorithm;
  out.protocol = op.protocol;
  out.channels = op.channels;
  out.peer = op.peer;
  out.nFlows = 0;
  out.flowsDropped = 0;
  out.stuckForNs = 0;
  out.eventsDropped = 0;
  // Best timing first: the kernel's channels, else the network proxy's ops, else enqueueing.
  const capture::AtomicSpan* span = nullptr;
  out.timing = TimingSource::Enqueue;
  if (op.kernelSpan.seen()) {
    span = &op.kernelSpan;
    out.timing = TimingSource::Kernel;
  } else if (op.proxySpan.seen()) {
    span = &op.proxySpan;
    out.timing = TimingSource::Proxy;
  }
  const int64_t stop = op.stopNs.load(std::memory_order_acquire);
  int64_t start = span != nullptr ? span->first.load(std::memory_order_relaxed) : op.startNs;
  int64_t end = span != nullptr ? span->last.load(std::memory_order_relaxed) : stop;
  if (end < start) end = nowNs != 0 ? nowNs : options_.clock();  // nothing stopped yet (a hang record)
  const int64_t offset = clockNs(CLOCK_REALTIME) - clockNs(CLOCK_MONOTONIC);
  out.start = bothClocks(start, offset);
  out.end = bothClocks(end, offset);
  collectFlows(op, kind == RecordKind::Hang, out);
}

// One flow per channel, peer and direction, summed over the operation's ProxyOps (NCCL may run more
// than one ProxyOp for a flow), in channel order, sends first.
void CaptureEngine::collectFlows(const OperationSlot& op, bool inFlight, OperationRecord& out) const {
  for (uint32_t i = op.proxyOps.load(std::memory_order_acquire); i != kNoSlot;
       i = children_[i].sibling.load(std::memory_order_relaxed)) {
    const ChildSlot& c = children_[i];
    NetFlow* flow = nullptr;
    for (uint32_t f = 0; f < out.nFlows && flow == nullptr; ++f) {
      const NetFlow& seen = out.flows[f];
      if (seen.channel == c.channel && seen.peer == c.peer && seen.send == c.send) flow = &out.flows[f];
    }
    if (flow == nullptr) {
      if (out.nFlows == kMaxFlowsPerRecord) {
        ++out.flowsDropped;
        continue;
      }
      flow = &out.flows[out.nFlows++];
      *flow = NetFlow{};
      flow->channel = c.channel;
      flow->peer = c.peer;
      flow->send = c.send;
    }
    flow->bytes += c.bytes.load(std::memory_order_relaxed) + c.legacyBytes.load(std::memory_order_relaxed);
    const uint64_t counts = c.stepCounts.load(std::memory_order_relaxed);
    const uint32_t open = static_cast<uint32_t>(counts);
    const uint32_t done = static_cast<uint32_t>(counts >> 32);
    flow->steps += open + done;
    flow->waitNs += c.waitNs.load(std::memory_order_relaxed);
    // Outstanding: steps started and not stopped, and while the ProxyOp is open, the steps it
    // announced that have not started (without ProxyStep events, all of them not yet done).
    const int64_t notStarted = static_cast<int64_t>(c.nSteps) - done - open;
    const bool proxyOpOpen = c.state.load(std::memory_order_acquire) == SlotState::Open;
    flow->outstanding += open + (inFlight && proxyOpOpen && notStarted > 0 ? static_cast<uint32_t>(notStarted) : 0);
    if (flow->device < 0 && c.labelState.load(std::memory_order_acquire) == 2) {
      flow->device = c.device.load(std::memory_order_relaxed);
      flow->rail = c.rail.load(std::memory_order_relaxed);
      flow->plane = c.plane.load(std::memory_order_relaxed);
      flow->hca = c.label;
    }
  }
  std::sort(out.flows.begin(), out.flows.begin() + out.nFlows, flowBefore);
}

size_t CaptureEngine::incomplete(int64_t nowMonotonicNs, uint64_t olderThanNs, std::span<OperationRecord> out) {
  std::lock_guard<std::mutex> lock(mutex_);
  stuck_.clear();
  const int64_t cutoff = nowMonotonicNs - static_cast<int64_t>(olderThanNs);
  // In flight: not yet enqueued, or with a ProxyOp or KernelCh event open. An operation waiting only for
  // children that have not started is queued behind another (which this reports) or will be overtaken.
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    const OperationSlot& op = operations_[i];
    if (op.state.load(std::memory_order_acquire) != SlotState::Open || op.startNs > cutoff) continue;
    // Live parts are the unstopped Coll/P2p event plus the open ProxyOps and KernelChs.
    if (capture::liveParts(op.pending.load(std::memory_order_acquire)) == 0) continue;
    stuck_.emplace_back(op.startNs, i);
  }
  std::sort(stuck_.begin(), stuck_.end());
  const size_t n = std::min(out.size(), stuck_.size());
  for (size_t k = 0; k < n; ++k) {
    const OperationSlot& op = operations_[stuck_[k].second];
    OperationRecord& record = out[k];
    buildRecord(op, RecordKind::Hang, nowMonotonicNs, record);
    const int64_t offset = record.start.realtimeNs - record.start.monotonicNs;
    record.start = bothClocks(op.startNs, offset);
    record.end = bothClocks(nowMonotonicNs, offset);
    record.stuckForNs = static_cast<uint64_t>(nowMonotonicNs - op.startNs);
    record.eventsDropped = eventsDropped_.load(std::memory_order_relaxed);
  }
  return n;
}

CaptureStats CaptureEngine::stats() const {
  CaptureStats s;
  s.recordsPushed = pushed_.load(std::memory_order_relaxed);
  s.recordsRejected = rejected_.load(std::memory_order_relaxed);
  s.eventsDropped = droppedTotal_.load(std::memory_order_relaxed);
  s.foreignParents = foreignParents_.load(std::memory_order_relaxed);
  s.orphans = orphans_.load(std::memory_order_relaxed);
  s.unknownNetEvents = unknownNet_.load(std::memory_order_relaxed);
  s.misuse = misuse_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace railtune::profiler
