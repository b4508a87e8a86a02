// The Chrome trace of one process (`<job>-<host>-<pid>.<start>.trace.json`), in the JSON array format that
// Perfetto and chrome://tracing open: "[", then events separated by ",", then "]" at shutdown. A
// killed job leaves the array without its closing bracket, which both viewers accept, so events are
// only ever appended and a flush never has to rewrite anything.
//   - one complete event ("ph":"X") per operation on the lane of its communicator (pid = the
//     process, tid = one lane per communicator, named "comm <hex> rank R"; the tid is a function of
//     the communicator's id, so a plugin loaded again by the same process keeps its lanes);
//   - one child event per channel with network flows, on a lane per communicator and channel
//     ("... ch N"), spanning its operation: bytes each way, steps, wait, peers and NICs;
//   - profiler v7: one slice per kernel phase (initial_sync, compute, final_sync; the longest channel's),
//     back to back from the operation's start on the communicator's "phases" lane; the operation's args
//     carry user_tag, path (when not tuned) and kernel_variant;
//   - one instant event ("ph":"i") per hang the watchdog found.
// Times: ts is CLOCK_REALTIME in microseconds (files from many hosts line up), dur comes from the
// monotonic clock.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "common/identity.h"
#include "formats/json_append.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::output {

class TraceRenderer {
 public:
  explicit TraceRenderer(Identity identity) : identity_(std::move(identity)) {}

  // The file already holds events (the plugin was loaded again by the same process): the next
  // event continues the array with a separator and the process name is not repeated.
  void continueExisting() { started_ = processNamed_ = true; }
  // A new file replaces a removed one: its first event opens the array, and the lanes are named again.
  void restart() {
    started_ = processNamed_ = false;
    namedLanes_.clear();
  }
  bool started() const { return started_; }

  // Appends the events of one record to `out`, each but the very first preceded by ",\n". Whoever
  // creates the file writes the opening "[\n" and, at the end, kClose. A Lost record has none.
  // Allocates only when `out` grows and when a lane is named (its first event).
  void append(const OperationRecord& record, std::string* out);

  static constexpr const char* kClose = "\n]\n";

 private:
  int lane(const OperationRecord& record, int channel, std::string* out);
  JsonAppender event(std::string* out);  // the separator; the caller writes the event
  // A metadata event: args {"name": *label}, or {"sort_index": tid} without a label; tid < 0: none.
  void metadata(const char* name, int tid, const std::string* label, std::string* out);
  void channelEvents(const OperationRecord& record, std::string* out);
  void phaseEvents(const OperationRecord& record, std::string* out);

  Identity identity_;
  bool started_ = false;
  bool processNamed_ = false;
  std::set<int> namedLanes_;
  std::string hangName_;  // reused
};

}  // namespace railtune::profiler::output
