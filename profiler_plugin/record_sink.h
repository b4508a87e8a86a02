// The two seams between the profiler's parts: the capture pushes completed records into a
// RecordSink (the writers), and the hang watchdog asks an InFlightSource (the capture) which
// operations are still incomplete.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "profiler_plugin/profile_format.h"

namespace railtune::profiler {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // Queues a record; never blocks, never allocates, never throws. false: dropped (full or stopped);
  // the sink counts drops itself and says so in what it writes next, except for a Lost record, whose
  // counts its pusher keeps and pushes again (so that no loss is counted twice).
  virtual bool push(const OperationRecord& record) noexcept = 0;
};

class InFlightSource {
 public:
  virtual ~InFlightSource() = default;
  // Fills `out` with operations started before `nowMonotonicNs - olderThanNs` and not complete, as
  // records (kind Hang, stuckForNs set, flows with their outstanding steps); returns how many were
  // written. Called from the watchdog's thread while NCCL's threads record events: thread-safe, and
  // it must not hold up the hot path for long (a per-communicator lock at most).
  virtual size_t incomplete(int64_t nowMonotonicNs, uint64_t olderThanNs, std::span<OperationRecord> out) = 0;
  // Called about once a second from the watchdog's thread, with or without a hang timeout: closes what
  // waits for events that will not come and reports losses, so that both reach the files in time.
  virtual void housekeep(int64_t /*nowMonotonicNs*/) {}
};

}  // namespace railtune::profiler
