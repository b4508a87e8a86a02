// The strict readers of the collective log and the network summary (records.h): what the tests and
// `railtune profile` use.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "formats/json_duplicate_keys.h"
#include "formats/profile_logs.h"
#include "formats/profile_logs_internal.h"
#include "formats/strict_json.h"

namespace railtune::formats::profile {
namespace {

using Json = nlohmann::json;
using strict_json::FieldError;

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int kMaxDepth = 8;  // records nest three levels

// The shared strict reader, plus the profiler's fixed-size text fields.
class ObjectReader : public strict_json::ObjectReader {
 public:
  using strict_json::ObjectReader::ObjectReader;
  template <size_t N>
  void inlineText(const char* key, InlineText<N>* out) {
    out->assign(text(key, N - 1));
  }
};

int asInt(int64_t value) {
  return static_cast<int>(value);
}

void readIdentity(ObjectReader& in, const char* schema, Identity* identity) {
  if (in.text("schema", 64) != schema) throw FieldError(in.where("schema") + "expected '" + schema + "'");
  identity->job = in.text("job", 4096);
  identity->host = in.text("host", 4096);
  identity->pid = asInt(in.integer("pid", 1, kIntMax));
  if (identity->job.empty() || identity->host.empty()) throw FieldError("fields 'job' and 'host' must not be empty");
}

void readCommAndRank(ObjectReader& in, OperationRecord* r) {
  if (in.has("comm")) r->comm = in.hex("comm");
  if (in.has("rank")) r->rank = asInt(in.integer("rank", 0, kIntMax));
}

RecordKind readKind(ObjectReader& in, bool* dropped) {
  const std::string kind = in.text("record", 16);
  *dropped = kind == "dropped";
  if (*dropped) return RecordKind::Lost;
  for (RecordKind k : {RecordKind::Collective, RecordKind::P2p, RecordKind::Hang}) {
    if (kind == recordKindName(k)) return k;
  }
  throw FieldError(in.where("record") + "unknown record kind '" + kind + "'");
}

TimingSource readTiming(ObjectReader& in) {
  const std::string name = in.text("timing", 16);
  for (TimingSource s : {TimingSource::Kernel, TimingSource::Proxy, TimingSource::Enqueue}) {
    if (name == timingSourceName(s)) return s;
  }
  throw FieldError(in.where("timing") + "expected kernel, proxy or enqueue");
}

void readNic(const Json& object, const std::string& prefix, NetFlow* flow) {
  if (object.is_null()) return;
  ObjectReader in(object, prefix);
  flow->device = asInt(in.integer("device", -1, 1 << 20));
  in.inlineText("hca", &flow->hca);
  flow->rail = asInt(in.integer("rail", -1, 1 << 20));
  flow->plane = asInt(in.integer("plane", -1, 1 << 20));
  in.finish();
  if (!detail::nicKnown(*flow)) {
    throw FieldError("field '" + prefix.substr(0, prefix.size() - 1) +
                     "': says nothing; write null for an unknown NIC");
  }
}

NetFlow readFlow(const Json& object, size_t index, bool withOutstanding) {
  const std::string prefix = "flows[" + std::to_string(index) + "].";
  ObjectReader in(object, prefix);
  NetFlow flow;
  flow.channel = asInt(in.integer("channel", 0, 1 << 16));
  flow.peer = asInt(in.integer("peer", -1, kIntMax));
  const std::string direction = in.text("direction", 8);
  if (direction != "send" && direction != "recv") throw FieldError(in.where("direction") + "expected send or recv");
  flow.send = direction == "send";
  flow.bytes = in.count("bytes");
  flow.steps = static_cast<uint32_t>(in.integer("steps", 0, std::numeric_limits<uint32_t>::max()));
  const double waitUs = in.number("wait_us");
  if (!(waitUs >= 0 && waitUs < 9e15))  // in nanoseconds it must fit in 63 bits
    throw FieldError(in.where("wait_us") + "expected a number >= 0");
  flow.waitNs = static_cast<uint64_t>(std::llround(waitUs * 1000.0));
  in.derived("wait_us", static_cast<double>(flow.waitNs) / 1000.0);  // whole nanoseconds only
  readNic(in.field("nic"), prefix + "nic.", &flow);
  if (withOutstanding) {
    flow.outstanding = static_cast<uint32_t>(in.integer("outstanding", 0, std::numeric_limits<uint32_t>::max()));
  }
  in.finish();
  return flow;
}

void readFlows(ObjectReader& in, bool withOutstanding, OperationRecord* r) {
  const Json& flows = in.field("flows");
  if (!flows.is_array()) throw FieldError(in.where("flows") + "expected an array");
  if (flows.size() > kMaxFlowsPerRecord) {
    throw FieldError(in.where("flows") + "more than " + std::to_string(kMaxFlowsPerRecord) + " flows");
  }
  r->nFlows = 0;
  for (const Json& flow : flows) {
    r->flows[r->nFlows] = readFlow(flow, r->nFlows, withOutstanding);
    ++r->nFlows;
  }
  r->flowsDropped = static_cast<uint32_t>(in.integer("flows_dropped", 0, std::numeric_limits<uint32_t>::max()));
}

void readOperation(ObjectReader& in, OperationRecord* r) {
  // Absent when NCCL did not say (profiler ABI v1..v3 pass no communicator).
  if (in.has("nranks")) {
    r->nRanks = asInt(in.integer("nranks", 1, kIntMax));
    if (r->rank >= r->nRanks) throw FieldError(in.where("rank") + "not below nranks");
  }
  r->seq = in.count("seq");
  in.inlineText("op", &r->operation);
  if (r->operation.view().empty()) throw FieldError(in.where("op") + "must not be empty");
  r->bytes = in.count("bytes");
  in.inlineText("datatype", &r->datatype);
  in.inlineText("algorithm", &r->algorithm);
  in.inlineText("protocol", &r->protocol);
  r->channels = asInt(in.integer("channels", 0, 1 << 16));
  if (in.has("peer")) r->peer = asInt(in.integer("peer", 0, kIntMax));
  r->start.realtimeNs = in.integer("start_realtime_ns", 0);
  r->start.monotonicNs = in.integer("start_monotonic_ns", 0);
  r->eventsDropped = in.count("events_dropped");
}

OperationPath readPath(ObjectReader& in) {
  if (!in.has("path")) return OperationPath::Tuned;  // written before paths were
  const std::string name = in.text("path", 16);
  for (OperationPath p : {OperationPath::Tuned, OperationPath::Symmetric, OperationPath::CopyEngine}) {
    if (name == operationPathName(p)) return p;
  }
  throw FieldError(in.where("path") + "expected tuned, symmetric or copy_engine");
}

// A phase's longest channel, in microseconds with whole nanoseconds like wait_us.
void readPhase(ObjectReader& in, const char* key, size_t index, KernelPhases* p) {
  if (!in.has(key)) return;
  const double us = in.number(key);
  if (!(us >= 0 && us < 9e15)) throw FieldError(in.where(key) + "expected a number >= 0");
  p->longestNs[index] = static_cast<uint64_t>(std::llround(us * 1000.0));
  p->timed[index] = true;
  in.derived(key, static_cast<double>(p->longestNs[index]) / 1000.0);
}

void readPhases(const Json& object, KernelPhases* p) {
  ObjectReader in(object, "phases.");
  p->channels = static_cast<uint32_t>(in.integer("channels", 0, 1 << 16));
  readPhase(in, "initial_sync_us", 0, p);
  readPhase(in, "compute_us", 1, p);
  readPhase(in, "final_sync_us", 2, p);
  p->unknown = static_cast<uint32_t>(in.integer("unknown", 0, std::numeric_limits<uint32_t>::max()));
  if (in.has("incomplete") && !(p->incomplete = in.boolean("incomplete"))) {
    throw FieldError(in.where("incomplete") + "written only when true");
  }
  in.finish();
  if (!p->present()) throw FieldError("field 'phases': says nothing; leave it out when no phase was seen");
}

// Profiler v7's fields (docs/formats.md): each optional; user_tag is any unsigned 64-bit integer.
void readV7Fields(ObjectReader& in, OperationRecord* r) {
  if (in.has("user_tag")) r->userTag = in.count("user_tag");
  if (in.has("kernel_variant")) {
    in.inlineText("kernel_variant", &r->kernelVariant);
    if (r->kernelVariant.view().empty()) throw FieldError(in.where("kernel_variant") + "must not be empty");
  }
  if (in.has("sym_coll")) r->symColl = in.boolean("sym_coll");
  r->path = readPath(in);
  if (in.has("phases")) {
    if (r->kind == RecordKind::Hang) throw FieldError(in.where("phases") + "not in a hang record");
    readPhases(in.field("phases"), &r->phases);
  }
}

void readCompletion(ObjectReader& in, OperationRecord* r) {
  r->end.realtimeNs = in.integer("end_realtime_ns", r->start.realtimeNs);
  r->end.monotonicNs = in.integer("end_monotonic_ns", r->start.monotonicNs);
  in.derived("duration_us", durationUs(*r));
  in.derived("algbw_gbps", roundedAlgbw(*r));
  in.derived("busbw_gbps", roundedBusbw(*r));
  r->timing = readTiming(in);
}

// A count written only when > 0; 0 when absent.
uint64_t positiveCount(ObjectReader& in, const char* key) {
  if (!in.has(key)) return 0;
  const uint64_t value = in.count(key);
  if (value == 0) throw FieldError(in.where(key) + "written only when > 0");
  return value;
}

CloseReason readCloseReason(ObjectReader& in) {
  if (!in.has("closed_by")) return CloseReason::Events;  // written before closed_by existed
  const std::string name = in.text("closed_by", 16);
  for (CloseReason r : {CloseReason::Events, CloseReason::Enqueued, CloseReason::Overtaken, CloseReason::Age,
                        CloseReason::Evicted, CloseReason::Finalize}) {
    if (name == closeReasonName(r)) return r;
  }
  throw FieldError(in.where("closed_by") + "expected events, enqueued, overtaken, age, evicted or finalize");
}

void readDropped(ObjectReader& in, ParsedCollective* out) {
  out->recordsDropped = positiveCount(in, "records_dropped");
  out->operationsDropped = positiveCount(in, "operations_dropped");
  out->eventsDropped = positiveCount(in, "events_dropped");
  // Without any count, "records_dropped" (what such a line always had) is reported missing.
  if (out->recordsDropped == 0 && out->operationsDropped == 0 && out->eventsDropped == 0) {
    in.count("records_dropped");
  }
  // A capture's notice names its communicator; the writer's own losses have none.
  if (out->operationsDropped > 0 || out->eventsDropped > 0) readCommAndRank(in, &out->record);
  out->record.start.realtimeNs = out->record.end.realtimeNs = in.integer("time_realtime_ns", 0);
  out->record.operationsDropped = out->operationsDropped;
  out->record.eventsDropped = out->eventsDropped;
}

// A header names the NCCL paths the profiler cannot see; readers need only know it is no operation.
void readHeader(ObjectReader& in, ParsedCollective* out) {
  out->header = true;
  out->record.kind = RecordKind::Lost;
  const Json& invisible = in.field("invisible");
  if (!invisible.is_array() || invisible.size() > 64)
    throw FieldError(in.where("invisible") + "expected a list of texts");
  for (const Json& path : invisible) {
    if (!path.is_string() || path.get_ref<const std::string&>().size() > 256) {
      throw FieldError(in.where("invisible") + "expected a list of texts");
    }
  }
  out->record.start.realtimeNs = out->record.end.realtimeNs = in.integer("time_realtime_ns", 0);
  if (in.has("boot_id")) {  // written since boot ids were recorded
    out->bootId = in.text("boot_id", 64);
    if (!isBootId(out->bootId))
      throw FieldError(in.where("boot_id") + "expected a UUID (36 lowercase hex digits and dashes)");
  }
  // Written since a removed file is replaced: what the file before held, and why it is lost.
  out->recordsDropped = positiveCount(in, "records_dropped");
  out->operationsDropped = positiveCount(in, "operations_dropped");
  out->eventsDropped = positiveCount(in, "events_dropped");
  if (out->recordsDropped > 0 || out->operationsDropped > 0 || out->eventsDropped > 0) {
    out->droppedReason = in.text("dropped_reason", 256);
  }
}

ParsedCollective readCollective(const Json& document) {
  ParsedCollective out;
  ObjectReader in(document, "");
  readIdentity(in, kCollectivesSchema, &out.identity);
  if (in.has("record") && in.field("record") == "header") {
    readHeader(in, &out);
    in.finish();
    return out;
  }
  out.record.kind = readKind(in, &out.droppedNotice);
  if (out.droppedNotice) {
    readDropped(in, &out);
    in.finish();
    return out;
  }
  out.recordsDropped = positiveCount(in, "records_dropped");  // only in files of earlier versions
  readCommAndRank(in, &out.record);
  readOperation(in, &out.record);
  readV7Fields(in, &out.record);
  if (out.record.kind == RecordKind::Hang) {
    out.record.stuckForNs = in.count("stuck_for_ns");
    readFlows(in, true, &out.record);
  } else {
    readCompletion(in, &out.record);
    out.record.closedBy = readCloseReason(in);
  }
  in.finish();
  return out;
}

ParsedNet readNet(const Json& document) {
  ParsedNet out;
  ObjectReader in(document, "");
  readIdentity(in, kNetSchema, &out.identity);
  bool dropped = false;
  out.record.kind = readKind(in, &dropped);
  if (dropped || out.record.kind == RecordKind::Hang)
    throw FieldError(in.where("record") + "expected collective or p2p");
  readCommAndRank(in, &out.record);
  out.record.seq = in.count("seq");
  in.inlineText("op", &out.record.operation);
  readFlows(in, false, &out.record);
  in.finish();
  return out;
}

}  // namespace

DroppedNotice droppedNoticeOf(const ParsedCollective& parsed) {
  DroppedNotice notice;
  notice.realtimeNs = parsed.record.start.realtimeNs;
  notice.records = parsed.recordsDropped;
  notice.operations = parsed.operationsDropped;
  notice.events = parsed.eventsDropped;
  notice.comm = parsed.record.comm;
  notice.rank = parsed.record.rank;
  return notice;
}

CollectiveLineResult parseCollectiveLine(std::string_view line, const std::string& file, int lineNumber) {
  CollectiveLineResult result;
  result.parsed = strict_json::parseLineUniqueKeys<ParsedCollective>(line, file, lineNumber, kMaxDepth, readCollective,
                                                                     &result.error);
  return result;
}

NetLineResult parseNetLine(std::string_view line, const std::string& file, int lineNumber) {
  NetLineResult result;
  result.parsed =
      strict_json::parseLineUniqueKeys<ParsedNet>(line, file, lineNumber, kMaxDepth, readNet, &result.error);
  return result;
}

CollectiveParseResult parseCollectiveRecords(std::string_view text, const std::string& file) {
  CollectiveParseResult result;
  result.error = strict_json::parseLines(text, file, parseCollectiveLine, &result.records);
  for (ParsedCollective& line : result.records) {
    if (line.header) result.headers.push_back(std::move(line));
  }
  std::erase_if(result.records, [](const ParsedCollective& line) { return line.header; });
  return result;
}

NetParseResult parseNetRecords(std::string_view text, const std::string& file) {
  NetParseResult result;
  result.error = strict_json::parseLines(text, file, parseNetLine, &result.records);
  return result;
}

}  // namespace railtune::formats::profile
