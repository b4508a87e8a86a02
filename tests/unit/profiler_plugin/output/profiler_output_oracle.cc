// See profiler_output_oracle.h. Copied from formats/profile_logs_render.cc and trace.cc
// before they stopped using nlohmann::json; keep it as it is.
#include "tests/unit/profiler_plugin/output/profiler_output_oracle.h"

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "common/config_digest.h"

namespace railtune::profiler::oracle {
namespace {

using formats::kCollectivesSchema;
using formats::kNetSchema;
using formats::profile::recordKindName;

using nlohmann::json;

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
  // Profiler v7's fields (section 1 of the collective record in docs/formats.md).
  if (r.path != OperationPath::Tuned) out["path"] = operationPathName(r.path);
  if (r.userTag) out["user_tag"] = *r.userTag;
  if (r.symColl) out["sym_coll"] = *r.symColl;
  if (!r.kernelVariant.view().empty()) out["kernel_variant"] = r.kernelVariant.view();
}

json phasesJson(const KernelPhases& p) {
  json out{{"channels", p.channels}, {"unknown", p.unknown}};
  const char* keys[] = {"initial_sync_us", "compute_us", "final_sync_us"};
  for (size_t i = 0; i < kKernelPhases; ++i) {
    if (p.timed[i]) out[keys[i]] = static_cast<double>(p.longestNs[i]) / 1000.0;
  }
  if (p.incomplete) out["incomplete"] = true;
  return out;
}

void addCompletion(json& out, const OperationRecord& r) {
  out["end_realtime_ns"] = r.end.realtimeNs;
  out["end_monotonic_ns"] = r.end.monotonicNs;
  out["duration_us"] = formats::profile::durationUs(r);
  out["algbw_gbps"] = formats::profile::roundedAlgbw(r);
  out["busbw_gbps"] = formats::profile::roundedBusbw(r);
  out["timing"] = timingSourceName(r.timing);
}

json flowsJson(const OperationRecord& r, bool withOutstanding) {
  json flows = json::array();
  for (uint32_t i = 0; i < r.nFlows && i < kMaxFlowsPerRecord; ++i) {
    const NetFlow& f = r.flows[i];
    json flow{{"channel", f.channel}, {"peer", f.peer},   {"direction", f.send ? "send" : "recv"},
              {"bytes", f.bytes},     {"steps", f.steps}, {"wait_us", static_cast<double>(f.waitNs) / 1000.0}};
    flow["nic"] = (f.device >= 0 || f.rail >= 0 || !f.hca.view().empty())
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

// Lanes: communicator c gets tid c*100 for its operations and c*100 + 1 + channel for each channel
// (NCCL has at most 64), c being 1 + its id modulo a prime below 10^6 (0: no id, NCCL before v4),
// which keeps tids within the int that viewers expect.
constexpr int kLanesPerComm = 100;
constexpr int kPhaseLane = kLanesPerComm - 2;
constexpr uint64_t kCommLanes = 999983;

int laneOf(const OperationRecord& record, int channel) {
  const int comm = record.comm ? 1 + static_cast<int>(*record.comm % kCommLanes) : 0;
  return comm * kLanesPerComm + (channel < 0 ? 0 : 1 + channel % (kLanesPerComm - 1));
}

int64_t microseconds(int64_t ns) {
  return ns / 1000;
}

// Where an event is drawn: a completed operation at its start, a hang where the watchdog saw it.
int64_t drawnAtUs(const OperationRecord& record) {
  if (record.kind != RecordKind::Hang) return microseconds(record.start.realtimeNs);
  // Unsigned: a corrupt or absurd stuckForNs wraps instead of overflowing.
  return static_cast<int64_t>((static_cast<uint64_t>(record.start.realtimeNs) + record.stuckForNs) / 1000);
}

std::string commLabel(const OperationRecord& record) {
  return record.comm ? digestHex(*record.comm) : std::string("unknown");
}

struct ChannelSummary {
  uint64_t bytesSent = 0, bytesReceived = 0, steps = 0, waitNs = 0, outstanding = 0;
  std::set<int> peers;
  std::set<std::string> nics;
};

}  // namespace

std::string collectiveLine(const Identity& identity, const OperationRecord& record, uint64_t recordsDropped) {
  if (record.kind == RecordKind::Lost) return droppedLine(identity, formats::profile::lostNotice(record));
  json out = identityJson(formats::kCollectivesSchema, identity);
  out["record"] = recordKindName(record.kind);
  addCommAndRank(out, record);
  addOperation(out, record);
  if (record.kind == RecordKind::Hang) {
    out["stuck_for_ns"] = record.stuckForNs;
    out["flows"] = flowsJson(record, true);
    out["flows_dropped"] = record.flowsDropped;
  } else {
    addCompletion(out, record);
    out["closed_by"] = closeReasonName(record.closedBy);
    if (record.phases.present()) out["phases"] = phasesJson(record.phases);
  }
  if (recordsDropped > 0) out["records_dropped"] = recordsDropped;
  return dump(out);
}

std::string droppedLine(const Identity& identity, const formats::profile::DroppedNotice& notice) {
  json out = identityJson(formats::kCollectivesSchema, identity);
  out["record"] = "dropped";
  out["time_realtime_ns"] = notice.realtimeNs;
  if (notice.records > 0) out["records_dropped"] = notice.records;
  if (notice.operations > 0) out["operations_dropped"] = notice.operations;
  if (notice.events > 0) out["events_dropped"] = notice.events;
  if (notice.comm) out["comm"] = digestHex(*notice.comm);
  if (notice.rank >= 0) out["rank"] = notice.rank;
  return dump(out);
}

std::string netLine(const Identity& identity, const OperationRecord& record) {
  json out = identityJson(formats::kNetSchema, identity);
  out["record"] = recordKindName(record.kind);
  addCommAndRank(out, record);
  out["seq"] = record.seq;
  out["op"] = record.operation.view();
  out["flows"] = flowsJson(record, false);
  out["flows_dropped"] = record.flowsDropped;
  return dump(out);
}

std::string jsonString(const std::string& text) {
  return dump(json(text));
}

void Trace::event(const std::string& text, std::string* out) {
  if (started_) *out += ",\n";  // the file's owner wrote the opening "[\n"
  started_ = true;
  *out += text;
}

int Trace::lane(const OperationRecord& record, int channel, std::string* out) {
  if (!processNamed_) {
    processNamed_ = true;
    event(dump(json{{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", identity_.pid},
                    {"args",
                     {{"name", identity_.host + " pid " + std::to_string(identity_.pid) + " job " + identity_.job}}}}),
          out);
  }
  const int tid = laneOf(record, channel);
  if (namedLanes_.insert(tid).second) {
    std::string name = "comm " + commLabel(record) + " rank " + std::to_string(record.rank);
    if (channel == kPhaseLane) {
      name += " phases";
    } else if (channel >= 0) {
      name += " ch " + std::to_string(channel);
    }
    event(dump(json{
              {"name", "thread_name"}, {"ph", "M"}, {"pid", identity_.pid}, {"tid", tid}, {"args", {{"name", name}}}}),
          out);
    event(dump(json{{"name", "thread_sort_index"},
                    {"ph", "M"},
                    {"pid", identity_.pid},
                    {"tid", tid},
                    {"args", {{"sort_index", tid}}}}),
          out);
  }
  return tid;
}

void Trace::channelEvents(const OperationRecord& record, std::string* out) {
  std::map<int, ChannelSummary> channels;
  for (uint32_t i = 0; i < record.nFlows && i < kMaxFlowsPerRecord; ++i) {
    const NetFlow& flow = record.flows[i];
    ChannelSummary& summary = channels[flow.channel];
    (flow.send ? summary.bytesSent : summary.bytesReceived) += flow.bytes;
    summary.steps += flow.steps;
    summary.waitNs += flow.waitNs;
    summary.outstanding += flow.outstanding;
    summary.peers.insert(flow.peer);
    if (!flow.hca.view().empty()) summary.nics.insert(std::string(flow.hca.view()));
  }
  for (const auto& [channel, summary] : channels) {
    const int tid = lane(record, channel, out);
    json args{{"bytes_sent", summary.bytesSent}, {"bytes_received", summary.bytesReceived},
              {"steps", summary.steps},          {"wait_us", static_cast<double>(summary.waitNs) / 1000.0},
              {"peers", summary.peers},          {"nics", summary.nics}};
    json e{{"name", "ch " + std::to_string(channel)},
           {"cat", "net"},
           {"pid", identity_.pid},
           {"tid", tid},
           {"ts", drawnAtUs(record)},
           {"args", args}};
    if (record.kind == RecordKind::Hang) {
      e["ph"] = "i";
      e["s"] = "t";
      e["args"]["outstanding"] = summary.outstanding;
    } else {
      e["ph"] = "X";
      e["dur"] = formats::profile::durationUs(record);
    }
    event(dump(e), out);
  }
}

void Trace::append(const OperationRecord& record, std::string* out) {
  if (record.kind == RecordKind::Lost) return;  // the one intended change: no event for a loss notice
  const int tid = lane(record, -1, out);
  json args{{"comm", commLabel(record)},
            {"rank", record.rank},
            {"nranks", record.nRanks},
            {"seq", record.seq},
            {"bytes", record.bytes},
            {"datatype", record.datatype.view()},
            {"algorithm", record.algorithm.view()},
            {"protocol", record.protocol.view()},
            {"channels", record.channels}};
  if (record.peer >= 0) args["peer"] = record.peer;
  if (record.userTag) args["user_tag"] = *record.userTag;
  if (record.path != OperationPath::Tuned) args["path"] = operationPathName(record.path);
  if (!record.kernelVariant.view().empty()) args["kernel_variant"] = record.kernelVariant.view();
  json e{{"cat", formats::profile::recordKindName(record.kind)}, {"pid", identity_.pid}, {"tid", tid}};
  if (record.kind == RecordKind::Hang) {
    e["name"] = "hang: " + std::string(record.operation.view()) + " seq " + std::to_string(record.seq);
    e["ph"] = "i";
    e["s"] = "p";
    e["ts"] = drawnAtUs(record);
    args["stuck_for_s"] = static_cast<double>(record.stuckForNs / 1000000) / 1000.0;
  } else {
    e["name"] = record.operation.view();
    e["ph"] = "X";
    e["ts"] = drawnAtUs(record);
    e["dur"] = formats::profile::durationUs(record);
    args["algbw_gbps"] = formats::profile::roundedAlgbw(record);
    args["busbw_gbps"] = formats::profile::roundedBusbw(record);
    args["timing"] = timingSourceName(record.timing);
  }
  e["args"] = std::move(args);
  event(dump(e), out);
  channelEvents(record, out);
  if (record.kind == RecordKind::Hang || !record.phases.present()) return;
  const char* names[] = {"initial_sync", "compute", "final_sync"};
  int64_t atNs = record.start.realtimeNs;
  for (size_t phase = 0; phase < kKernelPhases; ++phase) {
    if (!record.phases.timed[phase]) continue;
    const int phaseTid = lane(record, kPhaseLane, out);
    json p{{"name", names[phase]},
           {"cat", "phase"},
           {"ph", "X"},
           {"pid", identity_.pid},
           {"tid", phaseTid},
           {"ts", microseconds(atNs)},
           {"dur", static_cast<double>(record.phases.longestNs[phase]) / 1000.0},
           {"args", {{"channels", record.phases.channels}, {"comm", commLabel(record)}, {"seq", record.seq}}}};
    event(dump(p), out);
    atNs = static_cast<int64_t>(static_cast<uint64_t>(atNs) + record.phases.longestNs[phase]);  // wraps, never UB
  }
}

}  // namespace railtune::profiler::oracle
