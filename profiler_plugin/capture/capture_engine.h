// CaptureEngine: the profiler engine of one communicator. It turns NCCL's events into one
// OperationRecord per completed collective or P2p operation, pushed into a RecordSink, and answers the
// hang watchdog (InFlightSource), whose thread also calls housekeep() about once a second. See
// docs/profiler.md, "Capture".
//
// Every operation that gets a slot ends as exactly one record (completed, or a hang record when its
// communicator is finalized while it is still running); every one that does not is counted in a Lost
// notice. Slots are held only by operations in flight: completion rules that need no further event
// (overtaking, age, eviction under pool pressure) close those whose awaited events never come.
//
// Hot path (startEvent/stopEvent/recordEventState, from the application, proxy and net threads at
// once): fixed slot pools sized at construction, lock-free free lists, atomics; no allocation, no lock,
// no I/O. A full pool drops the event (NULL handle): a child is counted in its operation's record, an
// operation in the communicator's next Lost notice.
// The one mutex is this communicator's, taken once per operation (building its record) and by the
// watchdog's scan; never per step.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "profiler_plugin/capture/free_list.h"
#include "profiler_plugin/capture/slots.h"
#include "profiler_plugin/engine.h"
#include "profiler_plugin/record_sink.h"

namespace railtune::profiler {

using MonotonicClock = int64_t (*)();  // nanoseconds
int64_t monotonicNowNs();              // CLOCK_MONOTONIC

struct CaptureOptions {
  EventMask mask = 0;
  uint32_t operationSlots = 256;  // Coll/P2p events in flight
  uint32_t eventSlots = 4096;     // ProxyOp + ProxyStep + KernelCh events in flight
  bool kernelEvents = true;       // the ABI has KernelCh events (profiler v3+)
  bool v7Events = false;          // the ABI has userTag, kernelVariant/isSymColl and KernelPhase events (v7+)
  // An operation that has stopped, has no open event and no earlier operation running is closed by age
  // once nothing of this communicator has started or stopped for this long.
  int64_t closeAfterNs = 1'000'000'000;
  pid_t pid = 0;  // this process (0: getpid()); ProxyOps of other pids are PXN
  MonotonicClock clock = monotonicNowNs;
};

// Counters for tests and the finalize summary; each only grows.
struct CaptureStats {
  uint64_t recordsPushed = 0;
  uint64_t recordsRejected = 0;       // the sink was full
  uint64_t eventsDropped = 0;         // a pool was full (children and operations)
  uint64_t operationsDropped = 0;     // of which Coll/P2p events
  uint64_t noticesPushed = 0;         // Lost records
  uint64_t closed[6] = {};            // completed operations by CloseReason
  uint64_t incompleteAtFinalize = 0;  // pushed as hang records by the destructor
  uint64_t foreignParents = 0;        // PXN ProxyOps whose parent lives in another process
  uint64_t orphans = 0;               // children whose parent is not a live event of this engine
  uint64_t unknownNetEvents = 0;
  uint64_t misuse = 0;  // stops of events already stopped, foreign handles
  // Events of a type the bound ABI does not have (a KernelPhase through v1..v6, an unknown bit), and
  // states of a type it does not have (KernelPhaseStop through v1..v6): reported as events in the next
  // Lost notice ("dropped" line).
  uint64_t unknownEvents = 0;
  uint64_t phaseEvents = 0;  // KernelPhase events taken
};

class CaptureEngine final : public Engine, public InFlightSource {
 public:
  CaptureEngine(const CommInfo& comm, const CaptureOptions& options, RecordSink* sink);
  // Pushes the operations that wait for nothing but events that will not come (see overtake()).
  ~CaptureEngine() override;
  CaptureEngine(const CaptureEngine&) = delete;
  CaptureEngine& operator=(const CaptureEngine&) = delete;

  const char* name() const override { return "capture"; }
  EventMask activationMask() const override { return options_.mask; }
  Event* startEvent(const EventDescriptor& descr) override;
  void stopEvent(Event* event) override;
  void recordEventState(Event* event, EventState state, const StateArgs& args) override;

  size_t incomplete(int64_t nowMonotonicNs, uint64_t olderThanNs, std::span<OperationRecord> out) override;
  // Closes operations by age and pushes a Lost notice for operations dropped since the last one.
  void housekeep(int64_t nowMonotonicNs) override;

  CaptureStats stats() const;

 private:
  using OperationSlot = capture::OperationSlot;
  using ChildSlot = capture::ChildSlot;

  Event* startOperation(const EventDescriptor& descr);
  void describeOperation(OperationSlot& op, const EventDescriptor& descr) const;
  Event* startProxyOp(const EventDescriptor& descr);
  Event* startProxyStep(const EventDescriptor& descr);
  Event* startKernelCh(const EventDescriptor& descr);
  void decodeNetPlugin(const EventDescriptor& descr);
  bool knownType(EventType type) const;
  // KernelPhase (capture_phase.cc).
  Event* startKernelPhase(const EventDescriptor& descr);
  void phaseState(ChildSlot& phase, EventState state, const StateArgs& args);
  void stopPhase(ChildSlot& phase);
  void collectPhases(const OperationSlot& op, OperationRecord& out) const;
  void setV7Fields(OperationSlot& op, const EventDescriptor& descr) const;
  capture::Awaits awaitsFor(const OperationSlot& op) const;
  uint64_t p2pSeq(const OperationSlot& op);
  uint32_t evictForStart();
  void childStarted(OperationSlot& op, int64_t now, bool provesEarlierDone);
  void stopOperation(OperationSlot& op);
  void stopChild(ChildSlot& child);
  void stepState(ChildSlot& step, EventState state, const StateArgs& args);
  static bool waiting(const ChildSlot& step, bool send);  // in a state where the proxy waits on the network
  static void closeWait(ChildSlot& step, int64_t now);
  void proxyOpState(ChildSlot& proxyOp, EventState state, const StateArgs& args);

  OperationSlot* operationOf(const void* handle);
  ChildSlot* childOf(const void* handle);
  ChildSlot* takeChild(capture::ChildKind kind, OperationSlot* owner);
  bool attach(OperationSlot& op);
  void release(OperationSlot& op, uint64_t parts);
  void dropped(OperationSlot* owner) {
    if (owner != nullptr) owner->eventsDropped.fetch_add(1, std::memory_order_relaxed);
    droppedTotal_.fetch_add(1, std::memory_order_relaxed);
  }

  // Completion (capture_complete.cc): under mutex_.
  void complete(OperationSlot& op);
  void completeLocked(OperationSlot& op, CloseReason reason);
  bool closeIfIdleLocked(OperationSlot& op, CloseReason reason);
  void overtakeLocked(uint64_t ticket);
  void closeByAgeLocked(int64_t now);
  void pushLostNoticeLocked(int64_t now);
  void finalizeLocked();
  void pushScratch();
  static int64_t readRealtimeOffset();  // CLOCK_REALTIME - CLOCK_MONOTONIC now
  void buildRecord(const OperationSlot& op, RecordKind kind, int64_t nowNs, OperationRecord& out) const;
  void collectFlows(const OperationSlot& op, bool inFlight, OperationRecord& out) const;
  void freeOperationLocked(OperationSlot& op);

  const CommInfo comm_;
  const CaptureOptions options_;
  RecordSink* const sink_;
  const EventMask accepted_;  // the mask and the parents NCCL starts for it
  const bool expectKernels_;  // KernelCh events come (in the mask, ABI v3+)
  const bool childrenCome_;   // KernelCh or ProxyOp events may come
  const pid_t pid_;           // read once: glibc does not cache getpid(), and a ProxyOp start should not cost a syscall
  std::unique_ptr<OperationSlot[]> operations_;
  std::unique_ptr<ChildSlot[]> children_;
  FreeList freeOperations_, freeChildren_;
  std::atomic<uint64_t> nextTicket_{1};
  std::atomic<uint32_t> openOperations_{0};  // taken from the pool and not yet freed
  // P2p sequence numbers per direction and peer: [send ? 0 : 1][peer % p2pPeers_].
  uint32_t p2pPeers_ = 0;
  std::unique_ptr<std::atomic<uint64_t>[]> p2pSeqs_;
  std::atomic<int64_t> lastChildNs_{0};                        // the last KernelCh/ProxyOp start or stop
  std::atomic<int64_t> realtimeOffset_{readRealtimeOffset()};  // refreshed by housekeep()
  std::atomic<uint64_t> operationsDropped_{0};                 // since the last Lost notice
  std::atomic<uint64_t> droppedTotal_{0}, operationsDroppedTotal_{0}, foreignParents_{0}, orphans_{0}, unknownNet_{0},
      misuse_{0};
  std::atomic<uint64_t> unknownEvents_{0}, unknownSinceNotice_{0}, phaseEvents_{0};
  std::atomic<uint64_t> pushed_{0}, rejected_{0}, notices_{0}, incompleteAtFinalize_{0};
  std::atomic<uint64_t> closed_[6] = {};

  std::mutex mutex_;                                 // record building and the watchdog's scan
  OperationRecord scratch_;                          // the record being built (under mutex_)
  std::vector<std::pair<int64_t, uint32_t>> stuck_;  // the watchdog's candidates, sized at construction
};

}  // namespace railtune::profiler
