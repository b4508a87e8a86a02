// The strict reader of path log records (records.h): what `railtune paths` and the tests use.
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "formats/json_duplicate_keys.h"
#include "formats/path_log.h"
#include "formats/strict_json.h"

namespace railtune::formats::path_log {
namespace {

using nlohmann::json;
using strict_json::FieldError;
using strict_json::ObjectReader;

constexpr int kMaxDepth = 8;  // records nest three levels (verbs.qps)

int asInt(int64_t value) {
  return static_cast<int>(value);
}

RecordKind readKind(ObjectReader& in) {
  const std::string kind = in.text("record", 16);
  for (RecordKind k : {RecordKind::Connect, RecordKind::Snapshot, RecordKind::Close, RecordKind::Dropped}) {
    if (kind == recordKindName(k)) return k;
  }
  throw FieldError(in.where("record") + "unknown record kind '" + kind + "'");
}

void readIdentity(ObjectReader& in, Identity* identity, PathRecord* record) {
  if (in.text("schema", 64) != kPathLogSchema) {
    throw FieldError(in.where("schema") + "expected '" + std::string(kPathLogSchema) + "'");
  }
  identity->job = in.text("job", 4096);
  identity->host = in.text("host", 4096);
  identity->pid = asInt(in.integer("pid", 1, std::numeric_limits<int>::max()));
  if (identity->job.empty() || identity->host.empty()) throw FieldError("fields 'job' and 'host' must not be empty");
  record->kind = readKind(in);
  record->timeUs = in.integer("time_us", 0);
  if (in.has("comm")) record->comm = in.hex("comm");
  if (in.has("rank")) record->rank = asInt(in.integer("rank", 0, std::numeric_limits<int>::max()));
  if (in.has("dropped")) record->dropped = in.count("dropped");
  if (in.has("dropped") && record->dropped == 0) throw FieldError(in.where("dropped") + "written only when > 0");
}

void readLocal(const json& object, LocalEnd* local) {
  ObjectReader in(object, "local.");
  local->device = asInt(in.integer("device", -1, 1 << 20));
  local->hca.assign(in.text("hca", sizeof(local->hca.chars) - 1));
  local->netdev.assign(in.text("netdev", sizeof(local->netdev.chars) - 1));
  local->rail = asInt(in.integer("rail", -1, 1 << 20));
  local->plane = asInt(in.integer("plane", -1, 1 << 20));
  local->gpu = asInt(in.integer("gpu", -1, 1 << 20));
  in.finish();
}

// An imported record's peer may be unknown (its log was not among those imported): pid 0, empty host.
void readRemote(const json& object, RemoteEnd* remote, bool imported) {
  ObjectReader in(object, "remote.");
  remote->host.assign(in.text("host", sizeof(remote->host.chars) - 1));
  remote->pid = asInt(in.integer("pid", imported ? 0 : 1, std::numeric_limits<int>::max()));
  remote->device = asInt(in.integer("device", -1, 1 << 20));
  remote->hca.assign(in.text("hca", sizeof(remote->hca.chars) - 1));
  remote->rail = asInt(in.integer("rail", -1, 1 << 20));
  remote->plane = asInt(in.integer("plane", -1, 1 << 20));
  remote->rank = asInt(in.integer("rank", -1, std::numeric_limits<int>::max()));
  in.finish();
}

void readDigest(const json& object, PathRecord* record) {
  ObjectReader in(object, "digest.");
  record->localDigest = in.hex("local");
  record->remoteDigest = in.hex("remote");
  const json& match = in.field("match");
  if (!match.is_boolean() || match.get<bool>() != (record->localDigest == record->remoteDigest)) {
    throw FieldError(in.where("match") + "expected " +
                     (record->localDigest == record->remoteDigest ? "true" : "false"));
  }
  in.finish();
}

// -1 for null (unknown), else a value in [0, max].
int optionalInt(ObjectReader& in, const char* key, int max) {
  if (in.field(key).is_null()) return -1;
  return asInt(in.integer(key, 0, max));
}

void readNccl(const json& object, NcclLogFacts* nccl) {
  ObjectReader in(object, "nccl.");
  nccl->net.assign(in.text("net", sizeof(nccl->net.chars) - 1));
  if (nccl->net.view().empty()) throw FieldError(in.where("net") + "must not be empty");
  nccl->channel = asInt(in.integer("channel", 0, 1 << 16));
  nccl->connIndex = optionalInt(in, "conn_index", 1 << 16);
  nccl->port = optionalInt(in, "port", 1 << 16);
  nccl->link.assign(in.text("link", sizeof(nccl->link.chars) - 1));
  nccl->gdr = in.boolean("gdr");
  nccl->shared = in.boolean("shared");
  nccl->proxyRank = optionalInt(in, "pxn_proxy_rank", std::numeric_limits<int>::max() - 1);
  in.finish();
}

// An array of 1..kMaxQpsRecorded unsigned integers, each at most max, into out[]; returns how many.
int readQpArray(ObjectReader& in, const char* key, uint64_t max, uint64_t* out) {
  const json& value = in.field(key);
  if (!value.is_array() || value.empty() || value.size() > static_cast<size_t>(kMaxQpsRecorded)) {
    throw FieldError(in.where(key) + "expected an array of 1 to " + std::to_string(kMaxQpsRecorded) + " integers");
  }
  for (size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_number_unsigned() || value[i].get<uint64_t>() > max) {
      const std::string range =
          max == std::numeric_limits<uint64_t>::max() ? " >= 0" : " from 0 to " + std::to_string(max);
      throw FieldError(in.where(key) + "element " + std::to_string(i) + ": expected an integer" + range);
    }
    out[i] = value[i].get<uint64_t>();
  }
  return static_cast<int>(value.size());
}

// "fe80:0000:0000:0000:0c42:a1ff:fe5b:b220": eight groups of four lowercase hex digits, as sysfs prints a GID.
bool sysfsGid(std::string_view gid) {
  if (gid.size() != 39) return false;
  for (size_t i = 0; i < gid.size(); ++i) {
    const char c = gid[i];
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (i % 5 == 4 ? c != ':' : !hex) return false;
  }
  return true;
}

constexpr uint64_t kMaxQpn = (1u << 24) - 1;  // QP numbers are 24 bits

void readQpns(ObjectReader& in, int streams, VerbsFacts* verbs) {
  uint64_t local[kMaxQpsRecorded] = {}, remote[kMaxQpsRecorded] = {};
  verbs->qpCount = readQpArray(in, "qps", kMaxQpn, local);
  if (verbs->qpCount != streams) {
    throw FieldError(in.where("qps") + "expected one QP per stream (" + std::to_string(streams) + "), got " +
                     std::to_string(verbs->qpCount));
  }
  if (readQpArray(in, "peer_qps", kMaxQpn, remote) != verbs->qpCount) {
    throw FieldError(in.where("peer_qps") + "expected as many as 'qps' (" + std::to_string(verbs->qpCount) + ")");
  }
  for (int i = 0; i < verbs->qpCount; ++i) {
    verbs->localQpn[i] = static_cast<uint32_t>(local[i]);
    verbs->remoteQpn[i] = static_cast<uint32_t>(remote[i]);
  }
}

void readVerbs(const json& object, int streams, VerbsFacts* verbs) {
  ObjectReader in(object, "verbs.");
  verbs->present = true;
  verbs->port = asInt(in.integer("port", 1, 255));
  const std::string gid = in.text("gid", sizeof(verbs->gid.chars) - 1);
  if (!sysfsGid(gid)) throw FieldError(in.where("gid") + "expected eight groups of four lowercase hex digits");
  verbs->gid.assign(gid);
  verbs->gidIndex = optionalInt(in, "gid_index", 1 << 16);
  const std::string link = in.text("link_layer", sizeof(verbs->linkLayer.chars) - 1);
  if (link != "InfiniBand" && link != "RoCE") throw FieldError(in.where("link_layer") + "expected InfiniBand or RoCE");
  verbs->linkLayer.assign(link);
  verbs->mtu = asInt(in.integer("mtu", 0, 4096));
  if (verbs->mtu != 256 && verbs->mtu != 512 && verbs->mtu != 1024 && verbs->mtu != 2048 && verbs->mtu != 4096) {
    throw FieldError(in.where("mtu") + "expected 256, 512, 1024, 2048 or 4096");
  }
  readQpns(in, streams, verbs);
  verbs->adaptiveRouting = in.boolean("adaptive_routing");
  in.finish();
}

Source readSource(ObjectReader& in) {
  if (!in.has("source")) return Source::NetPlugin;
  const std::string source = in.text("source", 16);
  if (source != sourceName(Source::NcclLog)) {
    throw FieldError(in.where("source") + "expected 'nccl-log' (railtune's own records have no 'source')");
  }
  return Source::NcclLog;
}

void readConnect(ObjectReader& in, PathRecord* record) {
  record->source = readSource(in);
  const bool imported = record->source == Source::NcclLog;
  record->connection = in.count("conn");
  const std::string direction = in.text("direction", 8);
  if (direction != "send" && direction != "recv") throw FieldError(in.where("direction") + "expected send or recv");
  record->direction = direction == "send" ? Direction::Send : Direction::Recv;
  record->transport.assign(in.text("transport", sizeof(record->transport.chars) - 1));
  record->streams = asInt(in.integer("streams", imported ? 0 : 1, 1 << 16));
  readLocal(in.field("local"), &record->local);
  readRemote(in.field("remote"), &record->remote, imported);
  const json& expected = in.field("expected_rail");
  if (!expected.is_null()) record->expectedRail = asInt(in.integer("expected_rail", 0, 1 << 20));
  const std::optional<bool> match = railMatch(record->expectedRail, record->local.rail);
  const json wanted = match ? json(*match) : json(nullptr);
  if (in.field("rail_match") != wanted) throw FieldError(in.where("rail_match") + "expected " + wanted.dump());
  if (imported) {
    readNccl(in.field("nccl"), &record->nccl);
  } else {
    readDigest(in.field("digest"), record);
  }
  if (!in.has("verbs")) return;
  if (imported || record->transport.view() != "ib") {
    throw FieldError(in.where("verbs") + "only in the net plugin's records of transport 'ib'");
  }
  readVerbs(in.field("verbs"), record->streams, &record->verbs);
}

void readTraffic(ObjectReader& in, PathRecord* record) {
  record->connection = in.count("conn");
  record->traffic.bytesSent = in.count("bytes_sent");
  record->traffic.bytesReceived = in.count("bytes_received");
  record->traffic.messagesSent = in.count("messages_sent");
  record->traffic.messagesReceived = in.count("messages_received");
  record->traffic.busyUs = in.count("busy_us");
  if (in.has("bytes_per_qp")) {
    record->traffic.qpCount =
        readQpArray(in, "bytes_per_qp", std::numeric_limits<uint64_t>::max(), record->traffic.bytesPerQp);
  }
}

ParsedRecord readRecord(const json& document) {
  ParsedRecord out;
  ObjectReader in(document, "");
  readIdentity(in, &out.identity, &out.record);
  switch (out.record.kind) {
    case RecordKind::Connect:
      readConnect(in, &out.record);
      break;
    case RecordKind::Snapshot:
    case RecordKind::Close:
      readTraffic(in, &out.record);
      break;
    case RecordKind::Dropped:
      if (out.record.dropped == 0) throw FieldError("a 'dropped' record needs field 'dropped'");
      break;
  }
  in.finish();
  return out;
}

}  // namespace

ParseResult parseRecord(std::string_view line, const std::string& file, int lineNumber) {
  ParseResult result;
  // A repeated key is refused: nlohmann would keep the last, and a repeated "pid" makes a phantom
  // connection of another process.
  result.parsed =
      strict_json::parseLineUniqueKeys<ParsedRecord>(line, file, lineNumber, kMaxDepth, readRecord, &result.error);
  return result;
}

ParseAllResult parseRecords(std::string_view text, const std::string& file) {
  ParseAllResult out;
  out.error = strict_json::parseLines(text, file, parseRecord, &out.records);
  return out;
}

}  // namespace railtune::formats::path_log
