// Rendering of the collective log and the network summary (records.h). nlohmann::json keeps keys
// sorted and prints the shortest form of a double that reads back to the same value, so a line's
// bytes are a function of the record alone.
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/config_digest.h"
#include "profiler_plugin/output/records.h"
#include "profiler_plugin/output/records_internal.h"

namespace railtune::profiler::output {
namespace {

using nlohmann::json;

double threeDecimals(double value) {
  return std::round(value * 1000.0) / 1000.0;
}

json identityJson(const char* schema, const Identity& identity) {
  return json{{"schema", schema}, {"job", identity.job}, {"host", identity.host}, {"pid", identity.pid}};
}

void addCommAndRank(json& out, const OperationRecord& r) {
  if (r.comm) out["comm"] = digestHex(*r.comm);
  if (r.rank >= 0) out["rank"] = r.rank;
}

// What the operation was; the same fields for completed and hung operations.
void addOperation(json& out, const OperationRecord& r) {
  if (r.nRanks > 0) out["nranks"] = r.nRanks;  // unknown for profiler ABI v1..v3
  out["seq"] = r.seq;
  out["op"] = r.operation.view();
  out["bytes"] = r.bytes;
  out["datatype"] = r.datatype.view();
  out["algorithm"] = r.algorithm.view();
  out["protocol"] = r.protocol.view();
  out["channels"] = r.channels;
  if (r.peer >= 0) out["peer"] = r.peer;
  out["start_realtime_ns"] = r.start.realtimeNs;
  out["start_monotonic_ns"] = r.start.monotonicNs;
  out["events_dropped"] = r.eventsDropped;
}

void addCompletion(json& out, const OperationRecord& r) {
  out["end_realtime_ns"] = r.end.realtimeNs;
  out["end_monotonic_ns"] = r.end.monotonicNs;
  out["duration_us"] = durationUs(r);
  out["algbw_gbps"] = roundedAlgbw(r);
  out["busbw_gbps"] = roundedBusbw(r);
  out["timing"] = timingSourceName(r.timing);
}

json flowsJson(const OperationRecord& r, bool withOutstanding) {
  json flows = json::array();
  for (uint32_t i = 0; i < r.nFlows && i < kMaxFlowsPerRecord; ++i) {
    const NetFlow& f = r.flows[i];
    json flow{{"channel", f.channel}, {"peer", f.peer},   {"direction", f.send ? "send" : "recv"},
              {"bytes", f.bytes},     {"steps", f.steps}, {"wait_us", static_cast<double>(f.waitNs) / 1000.0}};
    flow["nic"] = detail::nicKnown(f)
                      ? json{{"device", f.device}, {"hca", f.hca.view()}, {"rail", f.rail}, {"plane", f.plane}}
                      : json(nullptr);
    if (withOutstanding) flow["outstanding"] = f.outstanding;
    flows.push_back(std::move(flow));
  }
  return flows;
}

std::string dump(const json& out) {
  // Replacement, not an exception, for invalid UTF-8 from the environment (a host name, say).
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

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
  }
  return "unknown";
}

double durationUs(const OperationRecord& record) {
  return static_cast<double>(record.end.monotonicNs - record.start.monotonicNs) / 1000.0;
}

double roundedAlgbw(const OperationRecord& record) {
  return threeDecimals(algorithmBandwidthGBps(record));
}

double roundedBusbw(const OperationRecord& record) {
  return threeDecimals(busBandwidthGBps(record));
}

std::string renderCollectiveLine(const Identity& identity, const OperationRecord& record, uint64_t recordsDropped) {
  json out = identityJson(kCollectivesSchema, identity);
  out["record"] = recordKindName(record.kind);
  addCommAndRank(out, record);
  addOperation(out, record);
  if (record.kind == RecordKind::Hang) {
    out["stuck_for_ns"] = record.stuckForNs;
    out["flows"] = flowsJson(record, true);
    out["flows_dropped"] = record.flowsDropped;
  } else {
    addCompletion(out, record);
  }
  if (recordsDropped > 0) out["records_dropped"] = recordsDropped;
  return dump(out);
}

std::string renderDroppedLine(const Identity& identity, int64_t realtimeNs, uint64_t recordsDropped) {
  json out = identityJson(kCollectivesSchema, identity);
  out["record"] = "dropped";
  out["time_realtime_ns"] = realtimeNs;
  out["records_dropped"] = recordsDropped;
  return dump(out);
}

std::string renderNetLine(const Identity& identity, const OperationRecord& record) {
  json out = identityJson(kNetSchema, identity);
  out["record"] = recordKindName(record.kind);
  addCommAndRank(out, record);
  out["seq"] = record.seq;
  out["op"] = record.operation.view();
  out["flows"] = flowsJson(record, false);
  out["flows_dropped"] = record.flowsDropped;
  return dump(out);
}

}  // namespace railtune::profiler::output
