// The profiler's two JSONL formats, rendered from OperationRecord (formats/profile_record.h) and read
// back strictly (docs/formats/profile-*.schema.json, docs/profiler.md "Outputs"):
//   collective log  railtune.profile.collectives.v1: one line per completed collective ("collective"),
//                   P2p operation ("p2p"), hang the watchdog found ("hang", with the outstanding flows),
//                   or a notice that records, operations or events were lost ("dropped")
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
#include "formats/profile_record.h"
#include "formats/schemas.h"

namespace railtune::formats::profile {

// The NCCL paths whose operations produce no Coll/P2p event, no ProxyOp and no KernelCh, so that the
// profiler cannot see them (docs/profiler.md, "Operations NCCL gives no task event"). Each collective log
// names them in its header line: their absence from the log is said, not silent. This list is what the
// header says when the profiler ABI NCCL bound is not known (files of earlier versions, synthetic logs).
inline constexpr const char* kInvisiblePaths[] = {
    "symmetric-memory kernels (symmetric_sched.cc)",
    "copy-engine collectives (ce_coll.cc)",
    "grouped broadcasts scheduled as AllGatherV (allgatherv_sched.cc)",
};

// What a profiler bound as ABI `profilerVersion` (1..7; anything else: not known, kInvisiblePaths) cannot
// see, as the header's "invisible" list says it. The plugin knows the ABI NCCL bound, not NCCL's release:
//   symmetric-memory kernels   no task event before NCCL 2.31; from 2.31 a Coll event with isSymColl,
//                              which only v7 carries (v1..v6: recorded as tuned collectives). Seen by v7.
//   copy-engine collectives    CeColl events reach v6 and v7 only (NCCL's v1..v5 adapters drop them).
//   grouped broadcasts         no task event in any release (bcastTaskQueue, not collTaskQueue).
std::vector<const char*> invisiblePaths(int profilerVersion);

// The files of one profiler writer.
enum class ProfileFile { Collectives, Net, Trace };

// "<job>-<host>-<pid>.<tag>.collectives.jsonl" (".net.jsonl", ".trace.json"; without a tag
// "<job>-<host>-<pid>.collectives.jsonl", as earlier versions named them), every character outside
// [A-Za-z0-9._-] replaced by '_' as in the path log's names.
std::string profileFileName(const Identity& identity, ProfileFile file, std::string_view tag = "");
// ".collectives.jsonl", ".net.jsonl", ".trace.json".
const char* profileSuffix(ProfileFile file);

// "collective", "p2p", "hang"; "dropped" for RecordKind::Lost.
const char* recordKindName(RecordKind kind);

// What a "dropped" line says; only counts > 0 are written, and at least one is.
struct DroppedNotice {
  int64_t realtimeNs = 0;
  uint64_t records = 0;          // whole records the writer lost (its queue was full, or its disk failed)
  uint64_t operations = 0;       // from a RecordKind::Lost record: operations a capture's pool dropped
  uint64_t events = 0;           // ... and events whose operation is unknown
  std::optional<uint64_t> comm;  // the Lost record's communicator and rank, when known
  int rank = -1;
  bool any() const { return records > 0 || operations > 0 || events > 0; }
};
// The notice of a RecordKind::Lost record (its time: end.realtimeNs).
DroppedNotice lostNotice(const OperationRecord& lost);

// Lines without their newline, appended to `out` (the writer's buffers: no allocation once they
// have grown). A Lost record is rendered as its dropped line. Collective and p2p lines carry
// "closed_by". recordsDropped > 0 adds "records_dropped" as versions before "dropped" lines carried
// it: only for rendering such a line again (the writer passes 0).
void appendCollectiveLine(std::string* out, const Identity& identity, const OperationRecord& record,
                          uint64_t recordsDropped = 0);
void appendDroppedLine(std::string* out, const Identity& identity, const DroppedNotice& notice);
// The first line a writer puts in a collective log (again after each reload of the plugin): its
// identity, the time, invisiblePaths(profilerVersion) as "invisible" and, when known, the host's boot id ("boot_id",
// /proc/sys/kernel/random/boot_id): processes with one boot id read one clock, so the analyses need not
// estimate an offset between them. Once per file, not per record: a record's identity finds it.
void appendHeaderLine(std::string* out, const Identity& identity, int64_t realtimeNs, std::string_view bootId = "",
                      int profilerVersion = 0);
// The header of a file the writer opened again because the one before was removed while the job ran
// (docs/profiler.md, "When the folder is removed"): also what that file held and what is lost with it,
// "records_dropped" (its records), "operations_dropped" and "events_dropped" (the counts of the dropped
// lines it held), each only when > 0, and "dropped_reason" saying why.
void appendHeaderLine(std::string* out, const Identity& identity, int64_t realtimeNs, std::string_view bootId,
                      const DroppedNotice& lost, std::string_view reason, int profilerVersion = 0);

// Whether `text` is a boot id as the kernel writes it: a UUID, 36 lowercase hex digits and dashes.
bool isBootId(std::string_view text);
// One network-summary line; only meaningful for a Collective or P2p record with nFlows > 0.
void appendNetLine(std::string* out, const Identity& identity, const OperationRecord& record);

// The same as new strings.
std::string renderCollectiveLine(const Identity& identity, const OperationRecord& record, uint64_t recordsDropped = 0);
std::string renderDroppedLine(const Identity& identity, const DroppedNotice& notice);
std::string renderDroppedLine(const Identity& identity, int64_t realtimeNs, uint64_t recordsDropped);
std::string renderNetLine(const Identity& identity, const OperationRecord& record);

// Derived values exactly as written: microseconds and GB/s with three decimals.
double durationUs(const OperationRecord& record);
double roundedAlgbw(const OperationRecord& record);
double roundedBusbw(const OperationRecord& record);

// A collective-log line read back. A "dropped" line (droppedNotice) gives record.kind Lost, its time
// in record.start.realtimeNs (and end.realtimeNs), its counts below (operations and events also in
// record.operationsDropped and record.eventsDropped) and record.comm and record.rank when it names
// them. A collective or p2p line of an earlier version without "closed_by" reads as
// CloseReason::Events; one with "records_dropped" (earlier versions) sets recordsDropped.
struct ParsedCollective {
  Identity identity;
  bool droppedNotice = false;
  bool header = false;                 // a "header" line: identity and record.start.realtimeNs only; no operation
  std::string bootId;                  // a header line's "boot_id"; "" when it has none (files of earlier versions)
  std::string droppedReason;           // a header line's "dropped_reason": why its counts below were lost ("" : none)
  std::vector<std::string> invisible;  // a header line's "invisible": what its profiler could not see
  OperationRecord record;
  uint64_t recordsDropped = 0;     // also a header's, when the file before it was lost
  uint64_t operationsDropped = 0;  // dropped lines and headers only
  uint64_t eventsDropped = 0;      // dropped lines and headers only
};
// The notice a dropped line read back gives (what renderDroppedLine writes again).
DroppedNotice droppedNoticeOf(const ParsedCollective& parsed);

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
  std::vector<ParsedCollective> records;  // every line but the headers, in order
  std::vector<ParsedCollective> headers;  // the header lines (one per writer that opened the file)
  std::string error;
};
CollectiveParseResult parseCollectiveRecords(std::string_view text, const std::string& file);

struct NetParseResult {
  std::vector<ParsedNet> records;
  std::string error;
};
NetParseResult parseNetRecords(std::string_view text, const std::string& file);

}  // namespace railtune::formats::profile
