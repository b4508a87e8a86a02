// Rendering of the collective log and the network summary (records.h) with JsonAppender: keys are
// written in byte order (nlohmann's order, which the formats have always had) and numbers in
// nlohmann's spelling, so a line's bytes are a function of the record alone and the same as
// nlohmann::json::dump gave (tests/unit/profiler_plugin/output/profiler_output_render_test.cc compares the two).
#include <cmath>

#include "common/record_files.h"
#include "formats/json_append.h"
#include "formats/profile_logs.h"
#include "formats/profile_logs_internal.h"

namespace railtune::formats::profile {
namespace {

double threeDecimals(double value) {
  return std::round(value * 1000.0) / 1000.0;
}

void nic(JsonAppender& json, const NetFlow& f) {
  if (!detail::nicKnown(f)) {
    json.null();
    return;
  }
  json.beginObject();
  json.key("device").integer(f.device);
  json.key("hca").string(f.hca.view());
  json.key("plane").integer(f.plane);
  json.key("rail").integer(f.rail);
  json.endObject();
}

void flows(JsonAppender& json, const OperationRecord& r, bool withOutstanding) {
  json.key("flows").beginArray();
  for (uint32_t i = 0; i < r.nFlows && i < kMaxFlowsPerRecord; ++i) {
    const NetFlow& f = r.flows[i];
    json.beginObject();
    json.key("bytes").count(f.bytes);
    json.key("channel").integer(f.channel);
    json.key("direction").string(f.send ? "send" : "recv");
    nic(json.key("nic"), f);
    if (withOutstanding) json.key("outstanding").count(f.outstanding);
    json.key("peer").integer(f.peer);
    json.key("steps").count(f.steps);
    json.key("wait_us").number(static_cast<double>(f.waitNs) / 1000.0);
    json.endObject();
  }
  json.endArray();
  json.key("flows_dropped").count(r.flowsDropped);
}

// Everything from "algbw_gbps" to "events_dropped" in key order; completed operations only.
void completedHead(JsonAppender& json, const OperationRecord& r) {
  json.key("algbw_gbps").number(roundedAlgbw(r));
  json.key("algorithm").string(r.algorithm.view());
  json.key("busbw_gbps").number(roundedBusbw(r));
  json.key("bytes").count(r.bytes);
  json.key("channels").integer(r.channels);
  json.key("closed_by").string(closeReasonName(r.closedBy));
  if (r.comm) json.key("comm").hex(*r.comm);
  json.key("datatype").string(r.datatype.view());
  json.key("duration_us").number(durationUs(r));
  json.key("end_monotonic_ns").integer(r.end.monotonicNs);
  json.key("end_realtime_ns").integer(r.end.realtimeNs);
  json.key("events_dropped").count(r.eventsDropped);
}

void hangHead(JsonAppender& json, const OperationRecord& r) {
  json.key("algorithm").string(r.algorithm.view());
  json.key("bytes").count(r.bytes);
  json.key("channels").integer(r.channels);
  if (r.comm) json.key("comm").hex(*r.comm);
  json.key("datatype").string(r.datatype.view());
  json.key("events_dropped").count(r.eventsDropped);
  flows(json, r, true);
}

// Profiler v7's kernel phases: the longest channel per phase, in microseconds like duration_us.
void phases(JsonAppender& json, const KernelPhases& p) {
  constexpr const char* kKeys[kKernelPhases] = {"initial_sync_us", "compute_us", "final_sync_us"};
  json.key("phases").beginObject();
  json.key("channels").count(p.channels);
  for (size_t i : {size_t{1}, size_t{2}}) {  // compute_us, final_sync_us: key order
    if (p.timed[i]) json.key(kKeys[i]).number(static_cast<double>(p.longestNs[i]) / 1000.0);
  }
  if (p.incomplete) json.key("incomplete").boolean(true);
  if (p.timed[0]) json.key(kKeys[0]).number(static_cast<double>(p.longestNs[0]) / 1000.0);
  json.key("unknown").count(p.unknown);
  json.endObject();
}

// From "host" to the end: the same keys for completed and hung operations but their last ones.
// recordsDropped > 0 only when a line of an earlier version is rendered again.
void operationTail(JsonAppender& json, const Identity& identity, const OperationRecord& r, uint64_t recordsDropped) {
  json.key("host").string(identity.host);
  json.key("job").string(identity.job);
  if (!r.kernelVariant.view().empty()) json.key("kernel_variant").string(r.kernelVariant.view());
  if (r.nRanks > 0) json.key("nranks").integer(r.nRanks);  // unknown for profiler ABI v1..v3
  json.key("op").string(r.operation.view());
  // Written when not "tuned" (readers take its absence as tuned): every file of earlier versions, and
  // every tuned line, reads the same.
  if (r.path != OperationPath::Tuned) json.key("path").string(operationPathName(r.path));
  if (r.peer >= 0) json.key("peer").integer(r.peer);
  if (r.kind != RecordKind::Hang && r.phases.present()) phases(json, r.phases);
  json.key("pid").integer(identity.pid);
  json.key("protocol").string(r.protocol.view());
  if (r.rank >= 0) json.key("rank").integer(r.rank);
  json.key("record").string(recordKindName(r.kind));
  if (recordsDropped > 0) json.key("records_dropped").count(recordsDropped);
  json.key("schema").string(kCollectivesSchema);
  json.key("seq").count(r.seq);
  json.key("start_monotonic_ns").integer(r.start.monotonicNs);
  json.key("start_realtime_ns").integer(r.start.realtimeNs);
  if (r.kind == RecordKind::Hang) json.key("stuck_for_ns").count(r.stuckForNs);
  if (r.symColl) json.key("sym_coll").boolean(*r.symColl);
  if (r.kind != RecordKind::Hang) json.key("timing").string(timingSourceName(r.timing));
  if (r.userTag) json.key("user_tag").count(*r.userTag);
}

}  // namespace

const char* profileSuffix(ProfileFile file) {
  return file == ProfileFile::Collectives ? ".collectives.jsonl"
         : file == ProfileFile::Net       ? ".net.jsonl"
                                          : ".trace.json";
}

std::string profileFileName(const Identity& identity, ProfileFile file, std::string_view tag) {
  return recordFileStem(identity, tag) + profileSuffix(file);
}

namespace detail {

bool nicKnown(const NetFlow& flow) {
  return flow.device >= 0 || flow.rail >= 0 || !flow.hca.view().empty();
}

}  // namespace detail

const char* recordKindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Collective:
      return "collective";
    case RecordKind::P2p:
      return "p2p";
    case RecordKind::Hang:
      return "hang";
    case RecordKind::Lost:
      return "dropped";
  }
  return "unknown";
}

double durationUs(const OperationRecord& record) {
  // Exact in integers (monotonic times pass 2^53 ns after 104 days of uptime); a record read back may
  // hold any two times, whose difference must not overflow: then in double.
  int64_t ns = 0;
  if (__builtin_sub_overflow(record.end.monotonicNs, record.start.monotonicNs, &ns)) {
    return (static_cast<double>(record.end.monotonicNs) - static_cast<double>(record.start.monotonicNs)) / 1000.0;
  }
  return static_cast<double>(ns) / 1000.0;
}

double roundedAlgbw(const OperationRecord& record) {
  return threeDecimals(algorithmBandwidthGBps(record));
}

double roundedBusbw(const OperationRecord& record) {
  return threeDecimals(busBandwidthGBps(record));
}

DroppedNotice lostNotice(const OperationRecord& lost) {
  DroppedNotice notice;
  notice.realtimeNs = lost.end.realtimeNs;
  notice.operations = lost.operationsDropped;
  notice.events = lost.eventsDropped;
  notice.comm = lost.comm;
  notice.rank = lost.rank;
  return notice;
}

void appendCollectiveLine(std::string* out, const Identity& identity, const OperationRecord& record,
                          uint64_t recordsDropped) {
  if (record.kind == RecordKind::Lost) {
    appendDroppedLine(out, identity, lostNotice(record));
    return;
  }
  JsonAppender json(out);
  json.beginObject();
  if (record.kind == RecordKind::Hang) {
    hangHead(json, record);
  } else {
    completedHead(json, record);
  }
  operationTail(json, identity, record, recordsDropped);
  json.endObject();
}

void appendDroppedLine(std::string* out, const Identity& identity, const DroppedNotice& notice) {
  JsonAppender json(out);
  json.beginObject();
  if (notice.comm) json.key("comm").hex(*notice.comm);
  if (notice.events > 0) json.key("events_dropped").count(notice.events);
  json.key("host").string(identity.host);
  json.key("job").string(identity.job);
  if (notice.operations > 0) json.key("operations_dropped").count(notice.operations);
  json.key("pid").integer(identity.pid);
  if (notice.rank >= 0) json.key("rank").integer(notice.rank);
  json.key("record").string("dropped");
  if (notice.records > 0) json.key("records_dropped").count(notice.records);
  json.key("schema").string(kCollectivesSchema);
  json.key("time_realtime_ns").integer(notice.realtimeNs);
  json.endObject();
}

void appendHeaderLine(std::string* out, const Identity& identity, int64_t realtimeNs, std::string_view bootId) {
  appendHeaderLine(out, identity, realtimeNs, bootId, DroppedNotice{}, "");
}

void appendHeaderLine(std::string* out, const Identity& identity, int64_t realtimeNs, std::string_view bootId,
                      const DroppedNotice& lost, std::string_view reason) {
  JsonAppender json(out);
  json.beginObject();
  if (!bootId.empty()) json.key("boot_id").string(bootId);
  if (lost.any()) json.key("dropped_reason").string(reason);
  if (lost.events > 0) json.key("events_dropped").count(lost.events);
  json.key("host").string(identity.host);
  json.key("invisible").beginArray();
  for (const char* path : kInvisiblePaths) json.string(path);
  json.endArray();
  json.key("job").string(identity.job);
  if (lost.operations > 0) json.key("operations_dropped").count(lost.operations);
  json.key("pid").integer(identity.pid);
  json.key("record").string("header");
  if (lost.records > 0) json.key("records_dropped").count(lost.records);
  json.key("schema").string(kCollectivesSchema);
  json.key("time_realtime_ns").integer(realtimeNs);
  json.endObject();
}

bool isBootId(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const char c = text[i];
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void appendNetLine(std::string* out, const Identity& identity, const OperationRecord& record) {
  JsonAppender json(out);
  json.beginObject();
  if (record.comm) json.key("comm").hex(*record.comm);
  flows(json, record, false);
  json.key("host").string(identity.host);
  json.key("job").string(identity.job);
  json.key("op").string(record.operation.view());
  json.key("pid").integer(identity.pid);
  if (record.rank >= 0) json.key("rank").integer(record.rank);
  json.key("record").string(recordKindName(record.kind));
  json.key("schema").string(kNetSchema);
  json.key("seq").count(record.seq);
  json.endObject();
}

std::string renderCollectiveLine(const Identity& identity, const OperationRecord& record, uint64_t recordsDropped) {
  std::string out;
  appendCollectiveLine(&out, identity, record, recordsDropped);
  return out;
}

std::string renderDroppedLine(const Identity& identity, const DroppedNotice& notice) {
  std::string out;
  appendDroppedLine(&out, identity, notice);
  return out;
}

std::string renderDroppedLine(const Identity& identity, int64_t realtimeNs, uint64_t recordsDropped) {
  DroppedNotice notice;
  notice.realtimeNs = realtimeNs;
  notice.records = recordsDropped;
  return renderDroppedLine(identity, notice);
}

std::string renderNetLine(const Identity& identity, const OperationRecord& record) {
  std::string out;
  appendNetLine(&out, identity, record);
  return out;
}

}  // namespace railtune::formats::profile
