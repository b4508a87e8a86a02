// See trace.h.
#include "profiler_plugin/output/trace.h"

#include <map>

#include <nlohmann/json.hpp>

#include "common/config_digest.h"
#include "profiler_plugin/output/records.h"

namespace railtune::profiler::output {
namespace {

using nlohmann::json;

// Lanes: communicator c gets tid c*100 for its operations and c*100 + 1 + channel for each channel
// (NCCL has at most 64), c being 1 + its id modulo a prime below 10^6 (0: no id, NCCL before v4),
// which keeps tids within the int that viewers expect.
constexpr int kLanesPerComm = 100;
constexpr uint64_t kCommLanes = 999983;

int laneOf(const OperationRecord& record, int channel) {
  const int comm = record.comm ? 1 + static_cast<int>(*record.comm % kCommLanes) : 0;
  return comm * kLanesPerComm + (channel < 0 ? 0 : 1 + channel % (kLanesPerComm - 1));
}

std::string dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
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

void TraceRenderer::event(const std::string& text, std::string* out) {
  if (started_) *out += ",\n";  // the file's owner wrote the opening "[\n"
  started_ = true;
  *out += text;
}

int TraceRenderer::lane(const OperationRecord& record, int channel, std::string* out) {
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
    if (channel >= 0) name += " ch " + std::to_string(channel);
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

void TraceRenderer::channelEvents(const OperationRecord& record, std::string* out) {
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
      e["dur"] = durationUs(record);
    }
    event(dump(e), out);
  }
}

void TraceRenderer::append(const OperationRecord& record, std::string* out) {
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
  json e{{"cat", recordKindName(record.kind)}, {"pid", identity_.pid}, {"tid", tid}};
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
    e["dur"] = durationUs(record);
    args["algbw_gbps"] = roundedAlgbw(record);
    args["busbw_gbps"] = roundedBusbw(record);
    args["timing"] = timingSourceName(record.timing);
  }
  e["args"] = std::move(args);
  event(dump(e), out);
  channelEvents(record, out);
}

}  // namespace railtune::profiler::output
