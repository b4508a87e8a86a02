// The capture's event slots. Each handle NCCL gets back is the address of a slot, whose first member
// is the profiler::Event the boundary routes by. Fields set when an event starts are written before the
// slot is published (state store with release, or the handle's return to NCCL) and are read-only after;
// everything several threads update afterwards is atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

#include "profiler_plugin/engine.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::capture {

inline constexpr uint32_t kNoSlot = UINT32_MAX;

enum class SlotState : uint32_t { Free, Open, Stopped };

// An earliest-start / latest-end pair updated from several threads.
struct AtomicSpan {
  std::atomic<int64_t> first{std::numeric_limits<int64_t>::max()};
  std::atomic<int64_t> last{std::numeric_limits<int64_t>::min()};
  void reset() {
    first.store(std::numeric_limits<int64_t>::max(), std::memory_order_relaxed);
    last.store(std::numeric_limits<int64_t>::min(), std::memory_order_relaxed);
  }
  void begin(int64_t ns) {
    int64_t seen = first.load(std::memory_order_relaxed);
    while (ns < seen && !first.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
    }
  }
  void end(int64_t ns) {
    int64_t seen = last.load(std::memory_order_relaxed);
    while (ns > seen && !last.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
    }
  }
  bool seen() const { return first.load(std::memory_order_relaxed) != std::numeric_limits<int64_t>::max(); }
};

// The completion word of an operation: what it still waits for, in one atomic so that exactly one
// thread sees it reach zero. Low 32 bits: live parts (1 while the Coll/P2p event has not stopped, plus
// each open ProxyOp and KernelCh). High 32 bits: children still expected (KernelCh stops not yet seen
// of the nChannels announced, or 1 while no child has come at all when no KernelCh is expected).
inline constexpr uint64_t kLive = 1;
inline constexpr uint64_t kExpected = 1ULL << 32;
inline constexpr uint64_t liveParts(uint64_t word) {
  return word & 0xffffffffULL;
}
inline constexpr uint64_t expectedParts(uint64_t word) {
  return word >> 32;
}
inline constexpr uint64_t kStepDone = (1ULL << 32) - 1;  // added to stepCounts at a step's stop

// What an operation waits for after its Coll/P2p event stops (docs/profiler.md, "When an operation
// is complete"), decided at its start from the mask, the ABI and the descriptor.
enum class Awaits : uint8_t {
  Kernels,  // one KernelCh per announced channel (NCCL adds a profiler proxy op per channel)
  Any,      // a KernelCh or ProxyOp, if any comes at all (no KernelCh expected per channel): closed
            // when those stop, or by overtaking or age when none comes
  Nothing,  // no event can follow (self P2p; a mask without KernelCh and ProxyOp): done when enqueued
};

// A collective (Coll event) or point-to-point operation (P2p event).
struct OperationSlot {
  Event event;
  std::atomic<SlotState> state{SlotState::Free};
  // Set at start.
  RecordKind kind = RecordKind::Collective;
  uint64_t ticket = 0;  // start order within the communicator
  uint64_t seq = 0;
  uint64_t bytes = 0;
  int channels = 0;
  int peer = -1;
  int rank = -1;
  Awaits awaits = Awaits::Kernels;
  bool expectsKernels = false;  // awaits == Kernels
  InlineText<24> operation;
  InlineText<16> datatype, algorithm, protocol;
  int64_t startNs = 0;
  // Updated while in flight.
  std::atomic<int64_t> stopNs{0};       // the Coll/P2p stop ("enqueued"); 0 before
  std::atomic<uint64_t> stopTicket{0};  // the next ticket at that stop: operations started before it
  std::atomic<uint64_t> pending{0};
  std::atomic<uint32_t> kernelStops{0};
  AtomicSpan kernelSpan, proxySpan;
  std::atomic<uint32_t> proxyOps{kNoSlot};  // the ProxyOp slots of this operation, linked by ChildSlot::sibling
  std::atomic<uint64_t> eventsDropped{0};   // its children that a full pool could not take
  std::atomic<bool> childSeen{false};       // a KernelCh or ProxyOp of it started: earlier ones may be overtaken
  std::atomic<bool> hangReported{false};    // the watchdog wrote a hang record for it
  // Profiler v7 (set at start): the application's tag, the symmetric kernel, the path NCCL took.
  bool tagged = false;  // the ABI carries userTag (v7): write it, 0 included
  uint64_t userTag = 0;
  bool symColl = false;
  InlineText<24> kernelVariant;
  OperationPath path = OperationPath::Tuned;
  // KernelPhase events (v7), from several channels at once: per phase the longest channel, the channels
  // seen (a bit per channel id), phase ids outside 0..2, phases without a stop time.
  std::atomic<uint64_t> phaseLongestNs[kKernelPhases] = {};
  std::atomic<uint8_t> phaseTimed{0};  // bit i: phase i timed on some channel
  std::atomic<uint64_t> phaseChannels[4] = {};
  std::atomic<uint32_t> phaseUnknown{0};
  std::atomic<bool> phaseIncomplete{false};
};

enum class ChildKind : uint8_t { ProxyOp, ProxyStep, KernelCh, KernelPhase };

// A ProxyOp, ProxyStep, KernelCh or KernelPhase event. A ProxyOp's slot also accumulates its flow (one channel, peer
// and direction) and stays, Stopped, on its operation's list until the operation's record is built.
struct ChildSlot {
  Event event;
  std::atomic<SlotState> state{SlotState::Free};
  ChildKind kind = ChildKind::ProxyOp;
  uint32_t operation = kNoSlot;  // owning operation's index
  uint32_t proxyOp = kNoSlot;    // ProxyStep: its ProxyOp's index
  std::atomic<uint32_t> sibling{kNoSlot};
  int64_t startNs = 0;
  // ProxyOp: the flow key and its totals.
  int channel = -1;
  int peer = -1;
  bool send = false;
  int nSteps = 0;
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> legacyBytes{0};  // v1..v3: the cumulative transSize of ProxyOp states
  std::atomic<uint64_t> waitNs{0};
  std::atomic<uint64_t> stepCounts{0};  // low 32 bits: steps open; high 32 bits: steps done (one RMW each)
  std::atomic<int> device{-1}, rail{-1}, plane{-1};
  std::atomic<uint32_t> labelState{0};  // 0 none, 1 being written, 2 written
  InlineText<32> label;
  // ProxyStep: the state it is in since when, and its bytes (one thread: NCCL's proxy thread).
  int stepState = -1;
  int64_t stepStateSinceNs = 0;
  uint64_t stepWaitNs = 0;
  uint64_t stepBytes = 0;
  // KernelPhase: which phase, its GPU start, and its GPU end once NCCL's KernelPhaseStop state gave it.
  int phaseId = -1;
  uint64_t phaseStartGpuNs = 0;
  std::atomic<uint64_t> phaseEndGpuNs{0};
};

// The slot whose address `handle` is, or NULL when it is not one of `slots` (a handle from another
// engine, another process or no profiler at all): only then may it be dereferenced.
template <typename Slot>
Slot* slotAt(Slot* slots, uint32_t count, const void* handle) {
  const auto address = reinterpret_cast<uintptr_t>(handle);
  const auto begin = reinterpret_cast<uintptr_t>(slots);
  if (address < begin || address >= begin + sizeof(Slot) * count) return nullptr;
  if ((address - begin) % sizeof(Slot) != 0) return nullptr;
  return slots + (address - begin) / sizeof(Slot);
}

}  // namespace railtune::profiler::capture
