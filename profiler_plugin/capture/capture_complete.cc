// See capture_engine.h: building records, completion by overtaking, and the watchdog's view. All of
// it runs under the communicator's mutex, once per operation (or per watchdog scan), never per step.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

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

// Monotonic to realtime, with an offset read at most a second ago (housekeep): records made at
// completion are seconds old at most, so a clock step in between shifts them by no more than the step,
// and a record costs no clock read of its own.
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
  // NCCL has finalized the communicator: no more events.
  std::lock_guard<std::mutex> lock(mutex_);
  finalizeLocked();
}

// Every operation still held ends as one record, in the communicator's order. One that waits only for
// events that never came is as done as it will get ("finalize"). One with an open event never finished:
// the watchdog's hang record stands if it wrote one (a completion here would hide the hang); otherwise
// a hang record says it was still running when its communicator was finalized (or aborted).
void CaptureEngine::finalizeLocked() {
  std::vector<std::pair<uint64_t, uint32_t>> open;
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    if (operations_[i].state.load(std::memory_order_acquire) == SlotState::Open)
      open.emplace_back(operations_[i].ticket, i);
  }
  std::sort(open.begin(), open.end());
  const int64_t now = options_.clock();
  for (const auto& [ticket, index] : open) {
    OperationSlot& op = operations_[index];
    if (closeIfIdleLocked(op, CloseReason::Finalize)) continue;
    if (!op.hangReported.load(std::memory_order_relaxed)) {
      buildRecord(op, RecordKind::Hang, now, scratch_);
      const int64_t offset = scratch_.start.realtimeNs - scratch_.start.monotonicNs;
      scratch_.start = bothClocks(op.startNs, offset);
      scratch_.end = bothClocks(now, offset);
      scratch_.stuckForNs = static_cast<uint64_t>(std::max<int64_t>(now - op.startNs, 0));
      pushScratch();
      incompleteAtFinalize_.fetch_add(1, std::memory_order_relaxed);
    }
    op.pending.store(0, std::memory_order_relaxed);
    freeOperationLocked(op);
  }
  // The last notice has no later housekeeping to retry it: finalize is no hot path, so it waits for
  // the writer's queue (a few milliseconds at most) rather than lose the count.
  pushLostNoticeLocked(now);
  for (int attempt = 0; attempt < 100 && operationsDropped_.load(std::memory_order_relaxed) > 0; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    pushLostNoticeLocked(now);
  }
}

void CaptureEngine::complete(OperationSlot& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Earlier operations first, so records come in the communicator's order. With no other operation
  // open (the common case: one collective at a time) there is nothing to scan the pool for, nor when
  // its first KernelCh (or ProxyOp) start scanned already: what was earlier and idle then is closed,
  // and what had an open event then closes by its own events.
  if (!op.childSeen.load(std::memory_order_relaxed) && openOperations_.load() > 1) overtakeLocked(op.ticket);
  completeLocked(op, op.awaits == capture::Awaits::Nothing ? CloseReason::Enqueued : CloseReason::Events);
}

// Closes `op` if it is open, stopped and has no open event, whatever it still waits for. Exactly one
// thread wins the pending word's last transition, so a concurrent stop cannot complete it twice.
bool CaptureEngine::closeIfIdleLocked(OperationSlot& op, CloseReason reason) {
  if (op.state.load(std::memory_order_acquire) != SlotState::Open) return false;
  uint64_t word = op.pending.load(std::memory_order_acquire);
  while (word != 0 && capture::liveParts(word) == 0) {
    if (op.pending.compare_exchange_weak(word, 0, std::memory_order_acq_rel, std::memory_order_acquire)) {
      completeLocked(op, reason);
      return true;
    }
  }
  return false;
}

// Operations enqueued before the one holding `ticket` started (their Coll/P2p event stopped before its
// start) with no open ProxyOp or KernelCh are done (see childStarted). Operations of one group (NCCL
// starts all of a group's events, then stops them) run in one kernel in no particular order, so they
// never overtake each other.
void CaptureEngine::overtakeLocked(uint64_t ticket) {
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    OperationSlot& op = operations_[i];
    if (op.state.load(std::memory_order_acquire) != SlotState::Open || op.ticket >= ticket) continue;
    const uint64_t stoppedBefore = op.stopTicket.load(std::memory_order_relaxed);
    if (stoppedBefore == 0 || stoppedBefore > ticket) continue;
    closeIfIdleLocked(op, CloseReason::Overtaken);
  }
}

// Age: an operation without open events, with nothing enqueued before it still running, after the
// communicator saw no KernelCh or ProxyOp start or stop for closeAfterNs. Operations queued behind a
// running one (a long collective, a hang) wait for it; their own events will come.
void CaptureEngine::closeByAgeLocked(int64_t now) {
  uint64_t firstRunning = UINT64_MAX;
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    const OperationSlot& op = operations_[i];
    if (op.state.load(std::memory_order_acquire) != SlotState::Open) continue;
    if (capture::liveParts(op.pending.load(std::memory_order_acquire)) > 0)
      firstRunning = std::min(firstRunning, op.ticket);
  }
  if (now - lastChildNs_.load(std::memory_order_relaxed) < options_.closeAfterNs) return;
  for (uint32_t i = 0; i < options_.operationSlots; ++i) {
    OperationSlot& op = operations_[i];
    if (op.state.load(std::memory_order_acquire) != SlotState::Open || op.ticket > firstRunning) continue;
    const int64_t stop = op.stopNs.load(std::memory_order_acquire);
    if (stop != 0 && now - stop >= options_.closeAfterNs) closeIfIdleLocked(op, CloseReason::Age);
  }
}

// Pool pressure: the oldest operation that has no open event is assumed complete, so that a new one
// gets its slot. Only when the pool is empty, under the communicator's lock.
uint32_t CaptureEngine::evictForStart() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    OperationSlot* oldest = nullptr;
    for (uint32_t i = 0; i < options_.operationSlots; ++i) {
      OperationSlot& op = operations_[i];
      if (op.state.load(std::memory_order_acquire) != SlotState::Open ||
          op.stopNs.load(std::memory_order_acquire) == 0 ||
          capture::liveParts(op.pending.load(std::memory_order_acquire)) > 0) {
        continue;
      }
      if (oldest == nullptr || op.ticket < oldest->ticket) oldest = &op;
    }
    if (oldest != nullptr) closeIfIdleLocked(*oldest, CloseReason::Evicted);
    const uint32_t index = freeOperations_.pop();
    if (index != FreeList::kEmpty || oldest == nullptr) return index;
  }
  return FreeList::kEmpty;
}

int64_t CaptureEngine::readRealtimeOffset() {
  return clockNs(CLOCK_REALTIME) - clockNs(CLOCK_MONOTONIC);
}

void CaptureEngine::housekeep(int64_t nowMonotonicNs) {
  realtimeOffset_.store(readRealtimeOffset(), std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mutex_);
  closeByAgeLocked(nowMonotonicNs);
  pushLostNoticeLocked(nowMonotonicNs);
}

// Operations dropped for a full pool, said in a record of their own: within a housekeeping interval,
// never folded into a later operation's record. A notice the sink cannot take is tried again later.
void CaptureEngine::pushLostNoticeLocked(int64_t now) {
  const uint64_t lost = operationsDropped_.exchange(0, std::memory_order_relaxed);
  const uint64_t unknown = unknownSinceNotice_.exchange(0, std::memory_order_relaxed);
  if (lost == 0 && unknown == 0) return;
  OperationRecord& notice = scratch_;
  notice.kind = RecordKind::Lost;
  notice.comm = comm_.commId;
  notice.rank = comm_.rank.value_or(-1);
  notice.nRanks = comm_.nRanks.value_or(0);
  notice.seq = 0;
  notice.operation.assign("");
  notice.bytes = 0;
  notice.datatype.assign("");
  notice.algorithm.assign("");
  notice.protocol.assign("");
  notice.channels = 0;
  notice.peer = -1;
  notice.start = notice.end = bothClocks(now, realtimeOffset_.load(std::memory_order_relaxed));
  notice.timing = TimingSource::Enqueue;
  notice.nFlows = notice.flowsDropped = 0;
  notice.stuckForNs = 0;
  notice.eventsDropped = unknown;  // events of a type the bound ABI lacks: no operation to count them in
  notice.closedBy = CloseReason::Events;
  notice.operationsDropped = lost;
  notice.userTag.reset();
  notice.symColl.reset();
  notice.kernelVariant.assign("");
  notice.path = OperationPath::Tuned;
  notice.phases = KernelPhases{};
  if (sink_ != nullptr && sink_->push(notice)) {
    notices_.fetch_add(1, std::memory_order_relaxed);
  } else {
    operationsDropped_.fetch_add(lost, std::memory_order_relaxed);
    unknownSinceNotice_.fetch_add(unknown, std::memory_order_relaxed);
  }
}

void CaptureEngine::completeLocked(OperationSlot& op, CloseReason reason) {
  buildRecord(op, op.kind, 0, scratch_);  // 0: read the clock only if the record needs "now"
  scratch_.closedBy = reason;
  closed_[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
  pushScratch();
  freeOperationLocked(op);
}

void CaptureEngine::pushScratch() {
  if (sink_ != nullptr && sink_->push(scratch_)) {
    pushed_.fetch_add(1, std::memory_order_relaxed);
  } else {
    rejected_.fetch_add(1, std::memory_order_relaxed);
  }
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
  out.eventsDropped = op.eventsDropped.load(std::memory_order_relaxed);
  out.closedBy = CloseReason::Events;
  out.operationsDropped = 0;
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
  const int64_t offset = realtimeOffset_.load(std::memory_order_relaxed);
  out.start = bothClocks(start, offset);
  out.end = bothClocks(end, offset);
  collectPhases(op, out);
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
    // The watchdog writes a hang record for each of these: at finalize it must stand, not be replaced by
    // a completion built from a torn-down communicator.
    operations_[stuck_[k].second].hangReported.store(true, std::memory_order_relaxed);
  }
  return n;
}

CaptureStats CaptureEngine::stats() const {
  CaptureStats s;
  s.recordsPushed = pushed_.load(std::memory_order_relaxed);
  s.recordsRejected = rejected_.load(std::memory_order_relaxed);
  s.eventsDropped = droppedTotal_.load(std::memory_order_relaxed);
  s.operationsDropped = operationsDroppedTotal_.load(std::memory_order_relaxed);
  s.noticesPushed = notices_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < 6; ++i) s.closed[i] = closed_[i].load(std::memory_order_relaxed);
  s.incompleteAtFinalize = incompleteAtFinalize_.load(std::memory_order_relaxed);
  s.foreignParents = foreignParents_.load(std::memory_order_relaxed);
  s.orphans = orphans_.load(std::memory_order_relaxed);
  s.unknownNetEvents = unknownNet_.load(std::memory_order_relaxed);
  s.misuse = misuse_.load(std::memory_order_relaxed);
  s.unknownEvents = unknownEvents_.load(std::memory_order_relaxed);
  s.phaseEvents = phaseEvents_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace railtune::profiler
