// See capture_engine.h: the hot path's starts (an operation, its ProxyOps, ProxySteps and KernelCh channels, the
// net plugin's events); stops and state changes are capture_stop.cc's, completion capture_complete.cc's.
#include "profiler_plugin/capture/capture_engine.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "profiler_plugin/capture/message_size.h"
#include "profiler_plugin/capture/net_decode.h"

namespace railtune::profiler {

using capture::Awaits;
using capture::ChildKind;
using capture::kExpected;
using capture::kLive;
using capture::kNoSlot;
using capture::slotAt;
using capture::SlotState;

int64_t monotonicNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

namespace {

bool hasBit(EventMask mask, EventType type) {
  return (mask & static_cast<EventMask>(type)) != 0;
}

constexpr EventMask bits(EventType type) {
  return static_cast<EventMask>(type);
}

// NCCL starts the parents of every event it is asked for (profiler.cc: a Coll event is started when
// ProxyOp, ProxyStep, KernelCh or NetPlugin is in the mask; a ProxyOp for ProxyStep and NetPlugin),
// so the capture takes them too: a ProxyStep is only useful under its ProxyOp and operation.
EventMask withParents(EventMask mask) {
  // KernelPhase comes only under KernelCh (profiler.cc, ncclProfilerEnforceMaskDeps@v2.31.2).
  if ((mask & bits(EventType::KernelPhase)) != 0) mask |= bits(EventType::KernelCh);
  if ((mask & (bits(EventType::ProxyStep) | bits(EventType::NetPlugin))) != 0) mask |= bits(EventType::ProxyOp);
  if ((mask & (bits(EventType::ProxyOp) | bits(EventType::KernelCh))) != 0) {
    mask |= bits(EventType::Coll) | bits(EventType::P2p);
  }
  return mask;
}

// Per peer and direction; without a rank count (profiler ABI v1..v3) peers share counters modulo this.
constexpr uint32_t kP2pPeersUnknown = 1024;

}  // namespace

CaptureEngine::CaptureEngine(const CommInfo& comm, const CaptureOptions& options, RecordSink* sink)
    : comm_(comm),
      options_(options),
      sink_(sink),
      accepted_(withParents(options.mask)),
      expectKernels_(options.kernelEvents && hasBit(options.mask, EventType::KernelCh)),
      childrenCome_(expectKernels_ || hasBit(accepted_, EventType::ProxyOp)),
      pid_(options.pid != 0 ? options.pid : getpid()),
      operations_(new OperationSlot[options.operationSlots]),
      children_(new ChildSlot[options.eventSlots]),
      freeOperations_(options.operationSlots),
      freeChildren_(options.eventSlots) {
  p2pPeers_ = comm.nRanks.value_or(0) > 0 ? static_cast<uint32_t>(*comm.nRanks) : kP2pPeersUnknown;
  p2pSeqs_.reset(new std::atomic<uint64_t>[2 * static_cast<size_t>(p2pPeers_)]);
  for (size_t i = 0; i < 2 * static_cast<size_t>(p2pPeers_); ++i) p2pSeqs_[i].store(0, std::memory_order_relaxed);
  stuck_.reserve(options.operationSlots);
  for (uint32_t i = 0; i < options_.operationSlots; ++i) operations_[i].event.engine = this;
  for (uint32_t i = 0; i < options_.eventSlots; ++i) children_[i].event.engine = this;
}

// One of the event types the bound ABI defines (nccl_profiler.h): a single bit up to CeBatch, and
// KernelPhase from v7. Anything else is misuse or an ABI mismatch: counted, never followed.
bool CaptureEngine::knownType(EventType type) const {
  const EventMask bit = static_cast<EventMask>(type);
  if (bit == 0 || (bit & (bit - 1)) != 0) return false;
  return bit <= bits(EventType::CeBatch) || (bit == bits(EventType::KernelPhase) && options_.v7Events);
}

Event* CaptureEngine::startEvent(const EventDescriptor& descr) {
  if (!knownType(descr.type)) {
    unknownEvents_.fetch_add(1, std::memory_order_relaxed);
    unknownSinceNotice_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  // NCCL's activation mask is one per process: another communicator (another ABI version, another
  // mask) may have asked for events this one did not, and they arrive here too.
  if (!hasBit(accepted_, descr.type)) return nullptr;
  switch (descr.type) {
    case EventType::Coll:
    case EventType::P2p:
    case EventType::CeColl:
      return startOperation(descr);
    case EventType::ProxyOp:
      return startProxyOp(descr);
    case EventType::ProxyStep:
      return startProxyStep(descr);
    case EventType::KernelCh:
      return startKernelCh(descr);
    case EventType::KernelPhase:
      return startKernelPhase(descr);
    case EventType::NetPlugin:
      decodeNetPlugin(descr);
      return nullptr;  // everything it says is kept on its flow; nothing to stop
    default:
      return nullptr;  // Group, API, ProxyCtrl, CeSync, CeBatch events: nothing the records use
  }
}

Event* CaptureEngine::startOperation(const EventDescriptor& descr) {
  uint32_t index = freeOperations_.pop();
  if (index == FreeList::kEmpty) index = evictForStart();
  if (index == FreeList::kEmpty) {
    operationsDropped_.fetch_add(1, std::memory_order_relaxed);
    operationsDroppedTotal_.fetch_add(1, std::memory_order_relaxed);
    dropped(nullptr);
    return nullptr;
  }
  OperationSlot& op = operations_[index];
  // Counted before the ticket is drawn, both in one total order (seq_cst): an operation that holds an
  // earlier ticket is always seen in the count by complete().
  openOperations_.fetch_add(1);
  describeOperation(op, descr);
  op.ticket = nextTicket_.fetch_add(1);
  op.rank = comm_.rank.value_or(descr.rank);
  op.seq = op.kind == RecordKind::P2p ? p2pSeq(op) : op.seq;
  setV7Fields(op, descr);
  op.awaits = awaitsFor(op);
  op.expectsKernels = op.awaits == Awaits::Kernels;
  const uint64_t expected = op.expectsKernels ? static_cast<uint64_t>(op.channels) : op.awaits == Awaits::Any ? 1 : 0;
  op.startNs = options_.clock();
  op.stopNs.store(0, std::memory_order_relaxed);
  op.stopTicket.store(0, std::memory_order_relaxed);
  op.kernelStops.store(0, std::memory_order_relaxed);
  op.kernelSpan.reset();
  op.proxySpan.reset();
  op.proxyOps.store(kNoSlot, std::memory_order_relaxed);
  op.eventsDropped.store(0, std::memory_order_relaxed);
  op.childSeen.store(false, std::memory_order_relaxed);
  op.hangReported.store(false, std::memory_order_relaxed);
  op.pending.store(kLive + expected * kExpected, std::memory_order_relaxed);
  op.state.store(SlotState::Open, std::memory_order_release);
  return &op.event;
}

// What the descriptor says about the operation: a collective (Coll), a copy-engine collective (CeColl, v6+:
// NCCL names no algorithm, protocol or channels for it) or a Send/Recv (P2p).
void CaptureEngine::describeOperation(OperationSlot& op, const EventDescriptor& descr) const {
  const bool p2p = descr.type == EventType::P2p;
  const bool ce = descr.type == EventType::CeColl;
  op.kind = p2p ? RecordKind::P2p : RecordKind::Collective;
  const char* func = p2p ? descr.p2p.func : ce ? descr.ceColl.func : descr.coll.func;
  const char* datatype = p2p ? descr.p2p.datatype : ce ? descr.ceColl.datatype : descr.coll.datatype;
  const bool coll = !p2p && !ce;
  op.operation.assign(func != nullptr ? func : "");
  op.datatype.assign(datatype != nullptr ? datatype : "");
  op.algorithm.assign(coll && descr.coll.algo != nullptr ? descr.coll.algo : "");
  op.protocol.assign(coll && descr.coll.proto != nullptr ? descr.coll.proto : "");
  op.channels = coll ? descr.coll.nChannels : p2p ? descr.p2p.nChannels : 0;
  op.peer = p2p ? descr.p2p.peer : -1;
  op.seq = coll ? descr.coll.seqNumber : ce ? descr.ceColl.seqNumber : 0;
  const size_t count = p2p ? descr.p2p.count : ce ? descr.ceColl.count : descr.coll.count;
  op.bytes = messageBytes(op.operation.view(), count, op.datatype.view(), comm_.nRanks.value_or(0));
}

// What can follow the operation's stop. NCCL gives a send or receive with the rank itself no proxy op
// of any kind, so neither ProxyOp nor KernelCh (enqueue.cc, scheduleP2pTasksToPlan: "nProxyOps =
// selfSend ? 0 : 2"). Otherwise, with KernelCh events NCCL adds one profiler proxy op per channel the
// operation announced (enqueue.cc, addProfilerProxyOpIfNeeded), each a KernelCh start and stop.
Awaits CaptureEngine::awaitsFor(const OperationSlot& op) const {
  // A copy-engine collective's work is copies on the stream: no ProxyOp, no KernelCh (its CeSync and
  // CeBatch children are not captured), so its CeColl stop ends it.
  if (op.path == OperationPath::CopyEngine) return Awaits::Nothing;
  if (op.kind == RecordKind::P2p && op.peer >= 0 && op.peer == op.rank) return Awaits::Nothing;
  if (expectKernels_ && op.channels > 0) return Awaits::Kernels;
  return childrenCome_ ? Awaits::Any : Awaits::Nothing;
}

// The k-th Send of this rank to a peer pairs with the peer's k-th Recv from it, as NCCL matches them.
uint64_t CaptureEngine::p2pSeq(const OperationSlot& op) {
  const bool send = op.operation.view() == "Send";
  const uint32_t peer = op.peer >= 0 ? static_cast<uint32_t>(op.peer) % p2pPeers_ : 0;
  // A load and a store, not a locked add: NCCL starts a communicator's task events from one thread at a
  // time (the plan's launch, enqueue.cc hostStreamPlanTask), so nothing races on a counter.
  std::atomic<uint64_t>& counter = p2pSeqs_[(send ? 0 : p2pPeers_) + peer];
  const uint64_t seq = counter.load(std::memory_order_relaxed);
  counter.store(seq + 1, std::memory_order_relaxed);
  return seq;
}

CaptureEngine::OperationSlot* CaptureEngine::operationOf(const void* handle) {
  OperationSlot* op = slotAt(operations_.get(), options_.operationSlots, handle);
  if (op == nullptr || op->state.load(std::memory_order_acquire) != SlotState::Open) return nullptr;
  return op;
}

CaptureEngine::ChildSlot* CaptureEngine::childOf(const void* handle) {
  return slotAt(children_.get(), options_.eventSlots, handle);
}

// Counts a new child of `op`, unless `op` has completed already (a child arriving after the
// operation was closed by overtakeLocked() belongs to nothing we still hold).
bool CaptureEngine::attach(OperationSlot& op) {
  uint64_t word = op.pending.load(std::memory_order_acquire);
  for (;;) {
    if (word == 0) return false;
    uint64_t next = word + kLive;
    if (!op.expectsKernels && capture::expectedParts(word) > 0) next -= kExpected;  // the first child came
    if (op.pending.compare_exchange_weak(word, next, std::memory_order_acq_rel, std::memory_order_acquire)) break;
  }
  return true;
}

void CaptureEngine::release(OperationSlot& op, uint64_t parts) {
  if (op.pending.fetch_sub(parts, std::memory_order_acq_rel) == parts) complete(op);
}

CaptureEngine::ChildSlot* CaptureEngine::takeChild(ChildKind kind, OperationSlot* owner) {
  const uint32_t index = freeChildren_.pop();
  if (index == FreeList::kEmpty) {
    dropped(owner);
    return nullptr;
  }
  ChildSlot& child = children_[index];
  child.kind = kind;
  child.sibling.store(kNoSlot, std::memory_order_relaxed);
  return &child;
}

Event* CaptureEngine::startProxyOp(const EventDescriptor& descr) {
  if (descr.proxyOp.pid != pid_) {  // PXN: the parent is an address in another process
    foreignParents_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  OperationSlot* op = operationOf(descr.parent);
  if (op == nullptr) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ChildSlot* child = takeChild(ChildKind::ProxyOp, op);
  if (child == nullptr) return nullptr;
  if (!attach(*op)) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    freeChildren_.push(static_cast<uint32_t>(child - children_.get()));
    return nullptr;
  }
  child->operation = static_cast<uint32_t>(op - operations_.get());
  // An operation timed by its kernel channels needs no ProxyOp time: a clock read is a large part of an
  // event's cost, and four ProxyOps per collective are common.
  child->startNs = op->expectsKernels ? 0 : options_.clock();
  child->channel = descr.proxyOp.channelId;
  child->peer = descr.proxyOp.peer;
  child->send = descr.proxyOp.isSend;
  child->nSteps = descr.proxyOp.nSteps;
  for (auto* counter : {&child->bytes, &child->legacyBytes, &child->waitNs})
    counter->store(0, std::memory_order_relaxed);
  child->stepCounts.store(0, std::memory_order_relaxed);
  for (auto* field : {&child->device, &child->rail, &child->plane}) field->store(-1, std::memory_order_relaxed);
  child->labelState.store(0, std::memory_order_relaxed);
  child->state.store(SlotState::Open, std::memory_order_release);
  if (!op->expectsKernels) {
    op->proxySpan.begin(child->startNs);
    childStarted(*op, child->startNs, !expectKernels_);
  }
  // Publish on the operation's list, where the record (and the watchdog) find its flow.
  const uint32_t index = static_cast<uint32_t>(child - children_.get());
  uint32_t head = op->proxyOps.load(std::memory_order_relaxed);
  do {
    child->sibling.store(head, std::memory_order_relaxed);
  } while (!op->proxyOps.compare_exchange_weak(head, index, std::memory_order_release, std::memory_order_relaxed));
  return &child->event;
}

Event* CaptureEngine::startProxyStep(const EventDescriptor& descr) {
  ChildSlot* proxyOp = childOf(descr.parent);
  if (proxyOp == nullptr || proxyOp->kind != ChildKind::ProxyOp ||
      proxyOp->state.load(std::memory_order_acquire) != SlotState::Open) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ChildSlot* step = takeChild(ChildKind::ProxyStep, &operations_[proxyOp->operation]);
  if (step == nullptr) return nullptr;
  step->operation = proxyOp->operation;
  step->proxyOp = static_cast<uint32_t>(proxyOp - children_.get());
  step->stepState = -1;
  step->stepStateSinceNs = 0;  // set by the first state; a step without states waited for nothing we see
  step->stepWaitNs = 0;
  step->stepBytes = 0;
  proxyOp->stepCounts.fetch_add(1, std::memory_order_relaxed);
  step->state.store(SlotState::Open, std::memory_order_release);
  return &step->event;
}

Event* CaptureEngine::startKernelCh(const EventDescriptor& descr) {
  OperationSlot* op = operationOf(descr.parent);
  if (op == nullptr) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ChildSlot* child = takeChild(ChildKind::KernelCh, op);
  if (child == nullptr) {
    // This channel's stop will not come: stop expecting it, or the operation would never end.
    if (op->expectsKernels &&
        op->kernelStops.fetch_add(1, std::memory_order_relaxed) < static_cast<uint32_t>(op->channels)) {
      release(*op, kExpected);
    }
    return nullptr;
  }
  if (!attach(*op)) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    freeChildren_.push(static_cast<uint32_t>(child - children_.get()));
    return nullptr;
  }
  child->operation = static_cast<uint32_t>(op - operations_.get());
  // The span starts at the first channel's start (NCCL's proxy thread reports an operation's channels
  // in turn): the others need no clock read, which matters at 16-32 channels per collective.
  const bool first = !op->expectsKernels || !op->kernelSpan.seen();
  child->startNs = first ? options_.clock() : 0;
  child->channel = descr.kernelCh.channelId;
  if (first) op->kernelSpan.begin(child->startNs);
  child->state.store(SlotState::Open, std::memory_order_release);
  childStarted(*op, child->startNs, true);
  return &child->event;
}

// A communicator's kernels run in order on its stream, so the first KernelCh start of an operation
// proves that every operation enqueued before it has finished on the GPU: those with no open event are
// closed now rather than when their own events would have come (they never do for symmetric-memory
// kernels, dropped events, or operations without network or kernel events). Without KernelCh events
// the first ProxyOp start is the best proof there is (the proxy takes operations in order). Once per
// operation, and only when another one is open.
void CaptureEngine::childStarted(OperationSlot& op, int64_t now, bool provesEarlierDone) {
  if (now != 0) lastChildNs_.store(now, std::memory_order_relaxed);  // 0: no clock read (startKernelCh)
  if (!provesEarlierDone || op.childSeen.load(std::memory_order_relaxed) ||
      op.childSeen.exchange(true, std::memory_order_acq_rel)) {
    return;
  }
  if (openOperations_.load() <= 1) return;
  std::lock_guard<std::mutex> lock(mutex_);
  overtakeLocked(op.ticket);
}

void CaptureEngine::decodeNetPlugin(const EventDescriptor& descr) {
  ChildSlot* step = childOf(descr.parent);
  if (step == nullptr || step->kind != ChildKind::ProxyStep ||
      step->state.load(std::memory_order_acquire) != SlotState::Open) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  NetEndpoint endpoint;
  if (decodeNetEvent(descr.netPlugin.id, descr.netPlugin.data, endpoint) == NetDecode::Unknown) {
    unknownNet_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ChildSlot& flow = children_[step->proxyOp];
  uint32_t none = 0;
  if (!flow.labelState.compare_exchange_strong(none, 1, std::memory_order_acquire)) return;  // named already
  flow.device.store(endpoint.device, std::memory_order_relaxed);
  flow.rail.store(endpoint.rail, std::memory_order_relaxed);
  flow.plane.store(endpoint.plane, std::memory_order_relaxed);
  flow.label = endpoint.label;
  flow.labelState.store(2, std::memory_order_release);
}

}  // namespace railtune::profiler
