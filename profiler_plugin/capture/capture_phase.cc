// See capture_engine.h: profiler v7's additions to an operation. The application's tag, the symmetric
// kernel and the path are read from the Coll/P2p descriptor; the kernel's barrier phases come as
// KernelPhase events under a KernelCh event. NCCL 2.31 sends each phase of a channel as start (GPU start
// time in the descriptor), a KernelPhaseStop state (GPU end time in the kernelCh state argument) and stop,
// back to back from its profiler thread, before the channel's KernelCh stop
// (profiler.cc, profilerFireKernelPhaseEvents and profilerProgressOps@v2.31.2).
#include <bit>

#include "profiler_plugin/capture/capture_engine.h"

namespace railtune::profiler {

using capture::ChildKind;
using capture::kLive;
using capture::SlotState;

void CaptureEngine::setV7Fields(OperationSlot& op, const EventDescriptor& descr) const {
  const bool coll = descr.type == EventType::Coll;
  const bool ce = descr.type == EventType::CeColl;
  op.tagged = options_.v7Events;
  op.userTag = coll ? descr.coll.userTag : ce ? descr.ceColl.userTag : descr.p2p.userTag;
  op.symColl = coll && descr.coll.isSymColl;
  // NCCL names a kernel only for a symmetric one (nullptr otherwise); read the pointer only then, so
  // that a descriptor shorter than v7's (ABI misuse) cannot make us follow a stray one.
  const bool named = op.symColl && descr.coll.kernelVariant != nullptr;
  op.kernelVariant.assign(named ? descr.coll.kernelVariant : "");
  op.path = ce ? OperationPath::CopyEngine : op.symColl ? OperationPath::Symmetric : OperationPath::Tuned;
  for (auto& longest : op.phaseLongestNs) longest.store(0, std::memory_order_relaxed);
  for (auto& channels : op.phaseChannels) channels.store(0, std::memory_order_relaxed);
  op.phaseTimed.store(0, std::memory_order_relaxed);
  op.phaseUnknown.store(0, std::memory_order_relaxed);
  op.phaseIncomplete.store(false, std::memory_order_relaxed);
}

Event* CaptureEngine::startKernelPhase(const EventDescriptor& descr) {
  ChildSlot* channel = childOf(descr.parent);
  if (channel == nullptr || channel->kind != ChildKind::KernelCh ||
      channel->state.load(std::memory_order_acquire) != SlotState::Open) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  OperationSlot& op = operations_[channel->operation];
  const int id = descr.kernelPhase.channelId;
  if (id >= 0 && id < 256) {
    op.phaseChannels[id / 64].fetch_or(1ULL << (id % 64), std::memory_order_relaxed);
  }
  if (descr.kernelPhase.phaseId < 0 || descr.kernelPhase.phaseId >= static_cast<int>(kKernelPhases)) {
    op.phaseUnknown.fetch_add(1, std::memory_order_relaxed);  // a phase NCCL 2.31 does not define: counted
    return nullptr;
  }
  ChildSlot* phase = takeChild(ChildKind::KernelPhase, &op);
  if (phase == nullptr) {
    op.phaseIncomplete.store(true, std::memory_order_relaxed);
    return nullptr;
  }
  if (!attach(op)) {
    orphans_.fetch_add(1, std::memory_order_relaxed);
    freeChildren_.push(static_cast<uint32_t>(phase - children_.get()));
    return nullptr;
  }
  phaseEvents_.fetch_add(1, std::memory_order_relaxed);
  phase->operation = channel->operation;
  phase->channel = id;
  phase->phaseId = descr.kernelPhase.phaseId;
  phase->phaseStartGpuNs = descr.kernelPhase.pTimer;
  phase->phaseEndGpuNs.store(0, std::memory_order_relaxed);
  phase->state.store(SlotState::Open, std::memory_order_release);
  return &phase->event;
}

void CaptureEngine::phaseState(ChildSlot& phase, EventState state, const StateArgs& args) {
  if (state == EventState::KernelPhaseStop) phase.phaseEndGpuNs.store(args.pTimer, std::memory_order_relaxed);
}

// The phase's duration joins its operation's longest; one without an end time, or ending before it
// began, is left out and marks the phases incomplete.
void CaptureEngine::stopPhase(ChildSlot& phase) {
  OperationSlot& op = operations_[phase.operation];
  const uint64_t end = phase.phaseEndGpuNs.load(std::memory_order_relaxed);
  if (end == 0 || end < phase.phaseStartGpuNs || phase.phaseStartGpuNs == 0) {
    op.phaseIncomplete.store(true, std::memory_order_relaxed);
  } else {
    const uint64_t ns = end - phase.phaseStartGpuNs;
    std::atomic<uint64_t>& longest = op.phaseLongestNs[phase.phaseId];
    uint64_t seen = longest.load(std::memory_order_relaxed);
    while (ns > seen && !longest.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
    }
    op.phaseTimed.fetch_or(static_cast<uint8_t>(1U << phase.phaseId), std::memory_order_relaxed);
  }
  freeChildren_.push(static_cast<uint32_t>(&phase - children_.get()));
  release(op, kLive);
}

void CaptureEngine::collectPhases(const OperationSlot& op, OperationRecord& out) const {
  out.userTag = op.tagged ? std::optional<uint64_t>(op.userTag) : std::nullopt;
  out.symColl = op.tagged && op.kind == RecordKind::Collective ? std::optional<bool>(op.symColl) : std::nullopt;
  out.kernelVariant = op.kernelVariant;
  out.path = op.path;
  KernelPhases& p = out.phases;
  p = KernelPhases{};
  for (const auto& word : op.phaseChannels) p.channels += std::popcount(word.load(std::memory_order_relaxed));
  const uint8_t timed = op.phaseTimed.load(std::memory_order_relaxed);
  for (size_t i = 0; i < kKernelPhases; ++i) {
    p.timed[i] = (timed & (1U << i)) != 0;
    p.longestNs[i] = p.timed[i] ? op.phaseLongestNs[i].load(std::memory_order_relaxed) : 0;
  }
  p.unknown = op.phaseUnknown.load(std::memory_order_relaxed);
  p.incomplete = op.phaseIncomplete.load(std::memory_order_relaxed);
}

}  // namespace railtune::profiler
