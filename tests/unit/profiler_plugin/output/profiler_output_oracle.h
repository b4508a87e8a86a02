// The profiler output's renderers as they were, on nlohmann::json (one json object per line, then
// dump): the oracle the allocation-free renderers (formats/json_append.h) are
// compared with byte for byte (profiler_output_render_test.cc), and the baseline of
// bench/profiler_bench_output.cc. Only the intended format changes are applied: "closed_by" on
// collective and p2p lines, and the "dropped" line's new counts.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "common/identity.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::oracle {

std::string collectiveLine(const Identity& identity, const OperationRecord& record, uint64_t recordsDropped = 0);
std::string droppedLine(const Identity& identity, const formats::profile::DroppedNotice& notice);
std::string netLine(const Identity& identity, const OperationRecord& record);

// nlohmann's escaping of one string, quotes included.
std::string jsonString(const std::string& text);

// TraceRenderer as it was.
class Trace {
 public:
  explicit Trace(Identity identity) : identity_(std::move(identity)) {}
  void append(const OperationRecord& record, std::string* out);

 private:
  int lane(const OperationRecord& record, int channel, std::string* out);
  void event(const std::string& json, std::string* out);
  void channelEvents(const OperationRecord& record, std::string* out);

  Identity identity_;
  bool started_ = false;
  bool processNamed_ = false;
  std::set<int> namedLanes_;
};

}  // namespace railtune::profiler::oracle
