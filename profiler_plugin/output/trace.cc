// See trace.h. Events are written with JsonAppender (keys in byte order, nlohmann's spelling of
// numbers and strings: the bytes nlohmann::json::dump gave), with the channel summaries built in
// fixed arrays, so that a record's events cost no allocation on the writer thread.
#include "profiler_plugin/output/trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "common/config_digest.h"
#include "formats/json_append.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::output {
namespace {

// Lanes: communicator c gets tid c*100 for its operations and c*100 + 1 + channel for each channel
// (NCCL has at most 64), c being 1 + its id modulo a prime below 10^6 (0: no id, NCCL before v4),
// which keeps tids within the int that viewers expect.
constexpr int kLanesPerComm = 100;
constexpr uint64_t kCommLanes = 999983;
// The lane of a communicator's kernel phases (profiler v7): past NCCL's 64 channels.
constexpr int kPhaseLane = kLanesPerComm - 2;

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

void commValue(JsonAppender& json, const OperationRecord& record) {
  if (record.comm) {
    json.hex(*record.comm);
  } else {
    json.string("unknown");
  }
}

// The flows of one channel, summed; peers and NICs sorted and unique (as the sets they once were).
struct ChannelSummary {
  uint64_t bytesSent = 0, bytesReceived = 0, steps = 0, waitNs = 0, outstanding = 0;
  std::array<int, kMaxFlowsPerRecord> peers{};
  std::array<std::string_view, kMaxFlowsPerRecord> nics{};
  size_t nPeers = 0, nNics = 0;
};

// Sums flows[first, last) (one channel's, by index) into `s`.
void summarize(const OperationRecord& record, const uint8_t* first, const uint8_t* last, ChannelSummary* s) {
  *s = ChannelSummary{};
  for (const uint8_t* i = first; i != last; ++i) {
    const NetFlow& flow = record.flows[*i];
    (flow.send ? s->bytesSent : s->bytesReceived) += flow.bytes;
    s->steps += flow.steps;
    s->waitNs += flow.waitNs;
    s->outstanding += flow.outstanding;
    s->peers[s->nPeers++] = flow.peer;
    if (!flow.hca.view().empty()) s->nics[s->nNics++] = flow.hca.view();
  }
  std::sort(s->peers.begin(), s->peers.begin() + s->nPeers);
  s->nPeers = static_cast<size_t>(std::unique(s->peers.begin(), s->peers.begin() + s->nPeers) - s->peers.begin());
  std::sort(s->nics.begin(), s->nics.begin() + s->nNics);
  s->nNics = static_cast<size_t>(std::unique(s->nics.begin(), s->nics.begin() + s->nNics) - s->nics.begin());
}

void channelArgs(JsonAppender& json, const OperationRecord& record, const ChannelSummary& s) {
  json.key("args").beginObject();
  json.key("bytes_received").count(s.bytesReceived);
  json.key("bytes_sent").count(s.bytesSent);
  json.key("nics").beginArray();
  for (size_t i = 0; i < s.nNics; ++i) json.string(s.nics[i]);
  json.endArray();
  if (record.kind == RecordKind::Hang) json.key("outstanding").count(s.outstanding);
  json.key("peers").beginArray();
  for (size_t i = 0; i < s.nPeers; ++i) json.integer(s.peers[i]);
  json.endArray();
  json.key("steps").count(s.steps);
  json.key("wait_us").number(static_cast<double>(s.waitNs) / 1000.0);
  json.endObject();
}

void operationArgs(JsonAppender& json, const OperationRecord& record) {
  const bool hang = record.kind == RecordKind::Hang;
  json.key("args").beginObject();
  if (!hang) json.key("algbw_gbps").number(roundedAlgbw(record));
  json.key("algorithm").string(record.algorithm.view());
  if (!hang) json.key("busbw_gbps").number(roundedBusbw(record));
  json.key("bytes").count(record.bytes);
  json.key("channels").integer(record.channels);
  commValue(json.key("comm"), record);
  json.key("datatype").string(record.datatype.view());
  if (!record.kernelVariant.view().empty()) json.key("kernel_variant").string(record.kernelVariant.view());
  json.key("nranks").integer(record.nRanks);
  if (record.path != OperationPath::Tuned) json.key("path").string(operationPathName(record.path));
  if (record.peer >= 0) json.key("peer").integer(record.peer);
  json.key("protocol").string(record.protocol.view());
  json.key("rank").integer(record.rank);
  json.key("seq").count(record.seq);
  if (hang) json.key("stuck_for_s").number(static_cast<double>(record.stuckForNs / 1000000) / 1000.0);
  if (!hang) json.key("timing").string(timingSourceName(record.timing));
  if (record.userTag) json.key("user_tag").count(*record.userTag);
  json.endObject();
}

constexpr const char* kPhaseNames[kKernelPhases] = {"initial_sync", "compute", "final_sync"};

void phaseEvent(JsonAppender& json, const OperationRecord& record, size_t phase, int64_t tsUs, int pid, int tid) {
  json.beginObject();
  json.key("args").beginObject();
  json.key("channels").count(record.phases.channels);
  commValue(json.key("comm"), record);
  json.key("seq").count(record.seq);
  json.endObject();
  json.key("cat").string("phase");
  json.key("dur").number(static_cast<double>(record.phases.longestNs[phase]) / 1000.0);
  json.key("name").string(kPhaseNames[phase]);
  json.key("ph").string("X");
  json.key("pid").integer(pid);
  json.key("tid").integer(tid);
  json.key("ts").integer(tsUs);
  json.endObject();
}

void channelEvent(JsonAppender& json, const OperationRecord& record, int channel, const ChannelSummary& s, int pid,
                  int tid) {
  char name[16] = {'c', 'h', ' '};
  const auto named = std::to_chars(name + 3, name + sizeof name, channel);
  json.beginObject();
  channelArgs(json, record, s);
  json.key("cat").string("net");
  if (record.kind != RecordKind::Hang) json.key("dur").number(durationUs(record));
  json.key("name").string(std::string_view(name, static_cast<size_t>(named.ptr - name)));
  json.key("ph").string(record.kind == RecordKind::Hang ? "i" : "X");
  json.key("pid").integer(pid);
  if (record.kind == RecordKind::Hang) json.key("s").string("t");
  json.key("tid").integer(tid);
  json.key("ts").integer(drawnAtUs(record));
  json.endObject();
}

}  // namespace

JsonAppender TraceRenderer::event(std::string* out) {
  if (started_) out->append(",\n", 2);  // the file's owner wrote the opening "[\n"
  started_ = true;
  return JsonAppender(out);
}

void TraceRenderer::metadata(const char* name, int tid, const std::string* label, std::string* out) {
  JsonAppender json = event(out);
  json.beginObject();
  json.key("args").beginObject();
  if (label != nullptr) {
    json.key("name").string(*label);
  } else {
    json.key("sort_index").integer(tid);
  }
  json.endObject();
  json.key("name").string(name);
  json.key("ph").string("M");
  json.key("pid").integer(identity_.pid);
  if (tid >= 0) json.key("tid").integer(tid);
  json.endObject();
}

int TraceRenderer::lane(const OperationRecord& record, int channel, std::string* out) {
  if (!processNamed_) {
    processNamed_ = true;
    const std::string name = identity_.host + " pid " + std::to_string(identity_.pid) + " job " + identity_.job;
    metadata("process_name", -1, &name, out);
  }
  const int tid = laneOf(record, channel);
  if (namedLanes_.insert(tid).second) {  // once per lane: the strings below are rare
    std::string name = "comm " + commLabel(record) + " rank " + std::to_string(record.rank);
    if (channel == kPhaseLane) {
      name += " phases";
    } else if (channel >= 0) {
      name += " ch " + std::to_string(channel);
    }
    metadata("thread_name", tid, &name, out);
    metadata("thread_sort_index", tid, nullptr, out);
  }
  return tid;
}

void TraceRenderer::channelEvents(const OperationRecord& record, std::string* out) {
  std::array<uint8_t, kMaxFlowsPerRecord> order;
  const size_t n = std::min<size_t>(record.nFlows, kMaxFlowsPerRecord);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint8_t>(i);
  std::sort(order.begin(), order.begin() + n,
            [&](uint8_t a, uint8_t b) { return record.flows[a].channel < record.flows[b].channel; });
  for (size_t first = 0; first < n;) {  // one event per channel, in channel order
    const int channel = record.flows[order[first]].channel;
    size_t last = first;
    while (last < n && record.flows[order[last]].channel == channel) ++last;
    ChannelSummary summary;  // 1.3 KiB
    summarize(record, order.data() + first, order.data() + last, &summary);
    const int tid = lane(record, channel, out);
    JsonAppender json = event(out);
    channelEvent(json, record, channel, summary, identity_.pid, tid);
    first = last;
  }
}

void TraceRenderer::append(const OperationRecord& record, std::string* out) {
  if (record.kind == RecordKind::Lost) return;  // losses are the collective log's ("dropped" lines)
  const bool hang = record.kind == RecordKind::Hang;
  const int tid = lane(record, -1, out);
  JsonAppender json = event(out);
  json.beginObject();
  operationArgs(json, record);
  json.key("cat").string(recordKindName(record.kind));
  if (!hang) json.key("dur").number(durationUs(record));
  json.key("name");
  if (hang) {
    hangName_.assign("hang: ").append(record.operation.view()).append(" seq ");
    appendJsonUint(&hangName_, record.seq);
    json.string(hangName_);
  } else {
    json.string(record.operation.view());
  }
  json.key("ph").string(hang ? "i" : "X");
  json.key("pid").integer(identity_.pid);
  if (hang) json.key("s").string("p");
  json.key("tid").integer(tid);
  json.key("ts").integer(drawnAtUs(record));
  json.endObject();
  channelEvents(record, out);
  phaseEvents(record, out);
}

// One slice per timed phase, back to back from the operation's start, each as long as the phase's
// longest channel: how the kernel's time splits into waiting for peers and computing.
void TraceRenderer::phaseEvents(const OperationRecord& record, std::string* out) {
  if (record.kind == RecordKind::Hang || !record.phases.present()) return;
  int64_t atNs = record.start.realtimeNs;
  for (size_t phase = 0; phase < kKernelPhases; ++phase) {
    if (!record.phases.timed[phase]) continue;
    const int tid = lane(record, kPhaseLane, out);
    JsonAppender json = event(out);
    phaseEvent(json, record, phase, microseconds(atNs), identity_.pid, tid);
    atNs = static_cast<int64_t>(static_cast<uint64_t>(atNs) + record.phases.longestNs[phase]);  // wraps, never UB
  }
}

}  // namespace railtune::profiler::output
