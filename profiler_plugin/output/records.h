// The profiler's two JSONL formats, rendered from OperationRecord (profiler_plugin/record.h) and read
// back strictly (docs/formats/profile-*.schema.json, docs/profiler.md "Outputs"):
//   collective log  railtune.profile.collectives.v1: one line per completed collective ("collective"),
//                   P2p operation ("p2p"), hang the watchdog found ("hang", with the outstanding flows),
//                   or a notice that records were lost and nothing else could say so ("dropped")
//   network summary railtune.profile.net.v1: one line per completed operation that had network flows:
//                   per flow channel, peer, direction, bytes, steps, wait and the NIC when known
// Keys are sorted and numbers rounded to whole nanoseconds, so the same record always gives the same
// bytes (the golden examples are compared byte for byte).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/identity.h"
#include "profiler_plugin/record.h"

namespace railtune::profiler::output {

inline constexpr const char* kCollectivesSchema = "railtune.profile.collectives.v1";
inline constexpr const char* kNetSchema = "railtune.profile.net.v1";

// "collective", "p2p", "hang".
const char* recordKindName(RecordKind kind);

// One collective-log line without its newline. recordsDropped > 0 adds "records_dropped" (records
// the writer's queue lost since the previous line).
std::string renderCollectiveLine(const Identity& identity, const OperationRecord& record, uint64_t recordsDropped);
// The line written when records were lost and no other record followed to say so.
std::string renderDroppedLine(const Identity& identity, int64_t realtimeNs, uint64_t recordsDropped);
// One network-summary line; only meaningful for a Collective or P2p record with nFlows > 0.
std::string renderNetLine(const Identity& identity, const OperationRecord& record);

// Derived values exactly as written: microseconds and GB/s with three decimals.
double durationUs(const OperationRecord& record);
double roundedAlgbw(const OperationRecord& record);
double roundedBusbw(const OperationRecord& record);

// A collective-log line read back. kind Dropped lines carry only identity, time and the count.
struct ParsedCollective {
  Identity identity;
  bool droppedNotice = false;  // a "dropped" line: only record.start.realtimeNs and recordsDropped
  OperationRecord record;
  uint64_t recordsDropped = 0;
};

struct ParsedNet {
  Identity identity;
  OperationRecord record;  // comm, rank, seq, operation, flows, nFlows, flowsDropped
};

// Strict readers, of one line or of a whole text: unknown keys, missing or mistyped fields, and derived fields
// (duration_us, algbw_gbps, busbw_gbps) that disagree with the values they derive from are errors, reported as
// "FILE:LINE:COLUMN: reason" (column 1 unless the JSON itself is malformed). Stop at the first error.
struct CollectiveLineResult {
  std::optional<ParsedCollective> parsed;
  std::string error;
};
CollectiveLineResult parseCollectiveLine(std::string_view line, const std::string& file, int lineNumber);

struct NetLineResult {
  std::optional<ParsedNet> parsed;
  std::string error;
};
NetLineResult parseNetLine(std::string_view line, const std::string& file, int lineNumber);

struct CollectiveParseResult {
  std::vector<ParsedCollective> records;
  std::string error;
};
CollectiveParseResult parseCollectiveRecords(std::string_view text, const std::string& file);

struct NetParseResult {
  std::vector<ParsedNet> records;
  std::string error;
};
NetParseResult parseNetRecords(std::string_view text, const std::string& file);

}  // namespace railtune::profiler::output
