// Rendering of path log records (records.h). nlohmann::json keeps keys sorted, which makes every
// record's bytes a function of its values alone: the golden example is compared byte for byte.
#include <nlohmann/json.hpp>

#include "common/config_digest.h"
#include "common/record_files.h"
#include "formats/path_log.h"

namespace railtune::formats::path_log {
namespace {

using nlohmann::json;

json unknownIfNegative(int value) {
  return value < 0 ? json(nullptr) : json(value);
}

json localJson(const LocalEnd& local) {
  return json{{"device", local.device}, {"hca", local.hca.view()}, {"netdev", local.netdev.view()},
              {"rail", local.rail},     {"plane", local.plane},    {"gpu", local.gpu}};
}

json remoteJson(const RemoteEnd& remote) {
  return json{{"host", remote.host.view()}, {"pid", remote.pid},   {"device", remote.device},
              {"hca", remote.hca.view()},   {"rail", remote.rail}, {"plane", remote.plane},
              {"rank", remote.rank}};
}

json ncclJson(const NcclLogFacts& n) {
  return json{{"net", n.net.view()},
              {"channel", n.channel},
              {"conn_index", unknownIfNegative(n.connIndex)},
              {"port", unknownIfNegative(n.port)},
              {"link", n.link.view()},
              {"gdr", n.gdr},
              {"shared", n.shared},
              {"pxn_proxy_rank", unknownIfNegative(n.proxyRank)}};
}

json verbsJson(const VerbsFacts& v) {
  json qps = json::array(), peerQps = json::array();
  for (int i = 0; i < v.qpCount && i < kMaxQpsRecorded; ++i) {
    qps.push_back(v.localQpn[i]);
    peerQps.push_back(v.remoteQpn[i]);
  }
  return json{{"port", v.port},
              {"gid", v.gid.view()},
              {"gid_index", unknownIfNegative(v.gidIndex)},
              {"link_layer", v.linkLayer.view()},
              {"mtu", v.mtu},
              {"qps", std::move(qps)},
              {"peer_qps", std::move(peerQps)},
              {"adaptive_routing", v.adaptiveRouting}};
}

void addConnect(json& out, const PathRecord& r) {
  out["conn"] = r.connection;
  out["direction"] = r.direction == Direction::Send ? "send" : "recv";
  out["transport"] = r.transport.view();
  out["streams"] = r.streams;
  out["local"] = localJson(r.local);
  out["remote"] = remoteJson(r.remote);
  out["expected_rail"] = unknownIfNegative(r.expectedRail);
  const std::optional<bool> match = railMatch(r.expectedRail, r.local.rail);
  out["rail_match"] = match ? json(*match) : json(nullptr);
  if (r.source == Source::NcclLog) {  // NCCL's log has no config digests: the record says where it came from
    out["source"] = sourceName(r.source);
    out["nccl"] = ncclJson(r.nccl);
    return;
  }
  out["digest"] = json{{"local", digestHex(r.localDigest)},
                       {"remote", digestHex(r.remoteDigest)},
                       {"match", r.localDigest == r.remoteDigest}};
  if (r.verbs.present && r.transport.view() == "ib") out["verbs"] = verbsJson(r.verbs);  // the reader's rule
}

void addTraffic(json& out, const PathRecord& r) {
  out["conn"] = r.connection;
  out["bytes_sent"] = r.traffic.bytesSent;
  out["bytes_received"] = r.traffic.bytesReceived;
  out["messages_sent"] = r.traffic.messagesSent;
  out["messages_received"] = r.traffic.messagesReceived;
  out["busy_us"] = r.traffic.busyUs;
  if (r.traffic.qpCount > 0) {
    json perQp = json::array();
    for (int i = 0; i < r.traffic.qpCount && i < kMaxQpsRecorded; ++i) perQp.push_back(r.traffic.bytesPerQp[i]);
    out["bytes_per_qp"] = std::move(perQp);
  }
}

}  // namespace

std::optional<bool> railMatch(int expectedRail, int actualRail) {
  if (expectedRail < 0 || actualRail < 0) return std::nullopt;
  return expectedRail == actualRail;
}

std::string pathLogFileName(const Identity& identity, std::string_view tag) {
  return recordFileStem(identity, tag) + ".jsonl";
}

const char* sourceName(Source source) {
  return source == Source::NcclLog ? "nccl-log" : "railtune";
}

const char* recordKindName(RecordKind kind) {
  switch (kind) {
    case RecordKind::Connect:
      return "connect";
    case RecordKind::Snapshot:
      return "snapshot";
    case RecordKind::Close:
      return "close";
    case RecordKind::Dropped:
      return "dropped";
  }
  return "unknown";
}

std::string renderRecord(const Identity& identity, const PathRecord& record) {
  json out{{"schema", kPathLogSchema},
           {"job", identity.job},
           {"host", identity.host},
           {"pid", identity.pid},
           {"record", recordKindName(record.kind)},
           {"time_us", record.timeUs}};
  if (record.comm) out["comm"] = digestHex(*record.comm);
  if (record.rank >= 0) out["rank"] = record.rank;
  if (record.dropped > 0) out["dropped"] = record.dropped;
  if (record.kind == RecordKind::Connect) addConnect(out, record);
  if (record.kind == RecordKind::Snapshot || record.kind == RecordKind::Close) addTraffic(out, record);
  // Replacement, not an exception, for invalid UTF-8 from the environment (a host name, say).
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace railtune::formats::path_log
