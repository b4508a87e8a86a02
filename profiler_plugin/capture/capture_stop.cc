// See capture_engine.h: the hot path's stops and state changes (a ProxyStep's wait time and bytes, a v1..v3
// ProxyOp's bytes).
#include <algorithm>

#include "profiler_plugin/capture/capture_engine.h"

namespace railtune::profiler {

using capture::ChildKind;
using capture::kExpected;
using capture::kLive;
using capture::slotAt;
using capture::SlotState;

void CaptureEngine::stopEvent(Event* event) {
  if (OperationSlot* op = slotAt(operations_.get(), options_.operationSlots, event)) return stopOperation(*op);
  if (ChildSlot* child = childOf(event)) return stopChild(*child);
  misuse_.fetch_add(1, std::memory_order_relaxed);
}

void CaptureEngine::stopOperation(OperationSlot& op) {
  // Coll/P2p stop means "enqueued"; it ends the operation only if nothing else is awaited.
  int64_t unset = 0;
  if (op.state.load(std::memory_order_acquire) != SlotState::Open ||
      !op.stopNs.compare_exchange_strong(unset, std::max<int64_t>(options_.clock(), 1), std::memory_order_acq_rel)) {
    misuse_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  op.stopTicket.store(nextTicket_.load(std::memory_order_acquire), std::memory_order_relaxed);
  release(op, kLive);
}

void CaptureEngine::stopChild(ChildSlot& child) {
  // Only a ProxyOp's slot outlives its stop (its flow totals are read when the record is built).
  const SlotState after = child.kind == ChildKind::ProxyOp ? SlotState::Stopped : SlotState::Free;
  SlotState open = SlotState::Open;
  if (!child.state.compare_exchange_strong(open, after, std::memory_order_acq_rel)) {
    misuse_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const uint32_t index = static_cast<uint32_t>(&child - children_.get());
  if (child.kind == ChildKind::KernelPhase) return stopPhase(child);
  if (child.kind == ChildKind::ProxyStep) {
    ChildSlot& proxyOp = children_[child.proxyOp];
    if (waiting(child, proxyOp.send)) closeWait(child, options_.clock());
    if (child.stepBytes != 0) proxyOp.bytes.fetch_add(child.stepBytes, std::memory_order_relaxed);
    if (child.stepWaitNs != 0) proxyOp.waitNs.fetch_add(child.stepWaitNs, std::memory_order_relaxed);
    proxyOp.stepCounts.fetch_add(capture::kStepDone, std::memory_order_relaxed);
    freeChildren_.push(index);
    return;
  }
  OperationSlot& op = operations_[child.operation];
  if (child.kind == ChildKind::ProxyOp) {
    if (!op.expectsKernels) {  // an operation timed by its KernelCh reads no clock here: see startProxyOp
      const int64_t now = options_.clock();
      lastChildNs_.store(now, std::memory_order_relaxed);
      op.proxySpan.end(now);
    }
    release(op, kLive);
    return;
  }
  // The span ends at the last awaited channel's stop (or any stop past it); the others read no clock.
  const uint32_t stopped = op.expectsKernels ? op.kernelStops.fetch_add(1, std::memory_order_relaxed) : 0;
  const bool awaited = op.expectsKernels && stopped < static_cast<uint32_t>(op.channels);
  if (!op.expectsKernels || stopped + 1 >= static_cast<uint32_t>(op.channels)) {
    const int64_t now = options_.clock();
    lastChildNs_.store(now, std::memory_order_relaxed);
    op.kernelSpan.end(now);
  }
  freeChildren_.push(index);
  release(op, kLive + (awaited ? kExpected : 0));
}

void CaptureEngine::recordEventState(Event* event, EventState state, const StateArgs& args) {
  if (state == EventState::KernelPhaseStop && !options_.v7Events) {  // a v7 state through an older table
    unknownEvents_.fetch_add(1, std::memory_order_relaxed);
    unknownSinceNotice_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ChildSlot* child = childOf(event);
  if (child == nullptr || child->state.load(std::memory_order_relaxed) != SlotState::Open) return;
  if (child->kind == ChildKind::ProxyStep) stepState(*child, state, args);
  if (child->kind == ChildKind::ProxyOp) proxyOpState(*child, state, args);
  if (child->kind == ChildKind::KernelPhase) phaseState(*child, state, args);
}

bool CaptureEngine::waiting(const ChildSlot& step, bool send) {
  const auto state = static_cast<EventState>(step.stepState);
  return send ? (state == EventState::ProxyStepSendPeerWait || state == EventState::ProxyStepSendWait)
              : state == EventState::ProxyStepRecvWait;
}

void CaptureEngine::closeWait(ChildSlot& step, int64_t now) {
  if (now > step.stepStateSinceNs) step.stepWaitNs += static_cast<uint64_t>(now - step.stepStateSinceNs);
}

// A step's wait time is the time it spends in the states where the proxy waits on the network: a send
// in SendPeerWait (for the receiver's buffer) and SendWait (for the send to complete), a receive in
// RecvWait (for the data). Its bytes are the transSize NCCL sets when the step is sent (SendWait) or
// received (RecvFlushWait); at other states transSize still holds an earlier step's size.
// The clock is read only when the step enters or leaves the waiting states (a clock read is a large
// part of a state change's cost); between two waiting states the wait simply goes on.
void CaptureEngine::stepState(ChildSlot& step, EventState state, const StateArgs& args) {
  const bool send = children_[step.proxyOp].send;
  const bool wasWaiting = waiting(step, send);
  step.stepState = static_cast<int>(state);
  const bool nowWaiting = waiting(step, send);
  if (wasWaiting != nowWaiting) {
    const int64_t now = options_.clock();
    if (wasWaiting) closeWait(step, now);
    step.stepStateSinceNs = now;
  }
  if ((send && state == EventState::ProxyStepSendWait) || (!send && state == EventState::ProxyStepRecvFlushWait)) {
    step.stepBytes = args.transSize;
  }
}

// Profiler v1..v3 report a ProxyOp's bytes as the cumulative transSize of its states.
void CaptureEngine::proxyOpState(ChildSlot& proxyOp, EventState state, const StateArgs& args) {
  if (static_cast<int>(state) > static_cast<int>(EventState::ProxyOpRecvDone)) return;
  uint64_t seen = proxyOp.legacyBytes.load(std::memory_order_relaxed);
  while (args.transSize > seen &&
         !proxyOp.legacyBytes.compare_exchange_weak(seen, args.transSize, std::memory_order_relaxed)) {
  }
}

}  // namespace railtune::profiler
