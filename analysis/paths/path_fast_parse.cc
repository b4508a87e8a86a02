// The fast path log reader (path_fast_parse.h). Every "return false" means "not sure: ask the strict
// reader", never "bad line": the accepted set must stay a subset of parseRecord's.
#include "analysis/paths/path_fast_parse.h"

#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include <simdjson.h>

#include "analysis/paths/path_file.h"

namespace railtune::analysis::paths::detail {
namespace {

namespace ond = simdjson::ondemand;
namespace pl = formats::path_log;

static_assert(kLinePadding >= simdjson::SIMDJSON_PADDING, "path_file.h's padding must cover simdjson's read-ahead");

constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kSmallMax = 1 << 20;  // the strict reader's bound for devices, rails, planes, GPUs

// Escapes, non-ASCII bytes and control characters are rare and have subtle rules (UTF-8 validation, a
// byte order mark, "\u0000"); "-0" is signed zero to nlohmann but may be unsigned here. All go strict.
// The line must also be one object, nested at most two deep, with nothing after it: simdjson 3.0's
// ondemand documents cannot tell whether content follows the object.
bool plainSingleObject(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\r");
  const size_t last = line.find_last_not_of(" \t\r");
  if (first == std::string_view::npos || line[first] != '{' || line[last] != '}') return false;
  bool inString = false;  // no escapes get this far, so every quote opens or closes a string
  int depth = 0;
  for (size_t i = first; i <= last; ++i) {
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == '\\' || c >= 0x7f || (c < 0x20 && c != ' ' && c != '\t' && c != '\r')) return false;
    if (c == '"') inString = !inString;
    if (inString) continue;
    if (c == '-' && line[i + 1] == '0') return false;
    if (c == '{' || c == '[') {
      if (++depth > 2) return false;
    } else if ((c == '}' || c == ']') && --depth == 0 && i != last) {
      return false;
    }
  }
  return depth == 0 && !inString;
}

bool readInt(ond::value value, int64_t min, int64_t max, int64_t* out) {
  int64_t number = 0;
  if (value.get_int64().get(number) || number < min || number > max) return false;
  *out = number;
  return true;
}

bool readSmall(ond::value value, int64_t min, int64_t max, int* out) {
  int64_t number = 0;
  if (!readInt(value, min, max, &number)) return false;
  *out = static_cast<int>(number);
  return true;
}

bool readCount(ond::value value, uint64_t* out) {
  return !value.get_uint64().get(*out);
}

bool readText(ond::value value, size_t maxLength, std::string_view* out) {
  return !value.get_string().get(*out) && out->size() <= maxLength;
}

template <size_t N>
bool readFixed(ond::value value, formats::InlineText<N>* out) {
  std::string_view text;
  if (!readText(value, N - 1, &text)) return false;
  out->assign(text);
  return true;
}

bool readHex(ond::value value, uint64_t* out) {
  std::string_view text;
  if (!readText(value, 16, &text) || text.size() != 16) return false;
  uint64_t number = 0;
  for (char c : text) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return false;
    number = number << 4 | static_cast<uint64_t>(digit);
  }
  *out = number;
  return true;
}

bool readBool(ond::value value, bool* out) {
  return !value.get_bool().get(*out);
}

// Each key of an object once, from a fixed list in sorted order; the bit set says which were present.
// The writer sorts its keys too, so the search starts after the previous key's place and usually ends
// at the first comparison.
template <size_t N>
int keyIndex(std::string_view key, const std::string_view (&keys)[N], size_t from) {
  for (size_t n = 0; n < N; ++n) {
    const size_t i = (from + n) % N;
    if (keys[i] == key) return static_cast<int>(i);
  }
  return -1;
}

template <size_t N, typename Handle>
bool readObject(ond::value value, const std::string_view (&keys)[N], uint32_t* seen, Handle handle) {
  ond::object object;
  if (value.get_object().get(object)) return false;
  size_t from = 0;
  for (auto item : object) {
    ond::field field;
    std::string_view key;
    if (std::move(item).get(field) || field.unescaped_key().get(key)) return false;
    const int index = keyIndex(key, keys, from);
    if (index < 0 || (*seen & (1u << index)) != 0) return false;
    *seen |= 1u << index;
    from = static_cast<size_t>(index) + 1;
    if (!handle(index, field.value())) return false;
  }
  return true;
}

constexpr std::string_view kLocalKeys[] = {"device", "gpu", "hca", "netdev", "plane", "rail"};
constexpr uint32_t kAllLocal = (1u << 6) - 1;

bool readLocal(ond::value value, pl::LocalEnd* local) {
  uint32_t seen = 0;
  const bool ok = readObject(value, kLocalKeys, &seen, [local](int key, ond::value v) {
    switch (key) {
      case 0:
        return readSmall(v, -1, kSmallMax, &local->device);
      case 1:
        return readSmall(v, -1, kSmallMax, &local->gpu);
      case 2:
        return readFixed(v, &local->hca);
      case 3:
        return readFixed(v, &local->netdev);
      case 4:
        return readSmall(v, -1, kSmallMax, &local->plane);
      default:
        return readSmall(v, -1, kSmallMax, &local->rail);
    }
  });
  return ok && seen == kAllLocal;
}

constexpr std::string_view kRemoteKeys[] = {"device", "hca", "host", "pid", "plane", "rail", "rank"};
constexpr uint32_t kAllRemote = (1u << 7) - 1;

bool readRemote(ond::value value, pl::RemoteEnd* remote) {
  uint32_t seen = 0;
  const bool ok = readObject(value, kRemoteKeys, &seen, [remote](int key, ond::value v) {
    switch (key) {
      case 0:
        return readSmall(v, -1, kSmallMax, &remote->device);
      case 1:
        return readFixed(v, &remote->hca);
      case 2:
        return readFixed(v, &remote->host);
      case 3:
        return readSmall(v, 1, kIntMax, &remote->pid);
      case 4:
        return readSmall(v, -1, kSmallMax, &remote->plane);
      case 5:
        return readSmall(v, -1, kSmallMax, &remote->rail);
      default:
        return readSmall(v, -1, kIntMax, &remote->rank);
    }
  });
  return ok && seen == kAllRemote;
}

constexpr std::string_view kDigestKeys[] = {"local", "match", "remote"};

bool readDigest(ond::value value, pl::PathRecord* record) {
  uint32_t seen = 0;
  bool match = false;
  const bool ok = readObject(value, kDigestKeys, &seen, [record, &match](int key, ond::value v) {
    switch (key) {
      case 0:
        return readHex(v, &record->localDigest);
      case 1:
        return readBool(v, &match);
      default:
        return readHex(v, &record->remoteDigest);
    }
  });
  return ok && seen == 7u && match == (record->localDigest == record->remoteDigest);
}

// The top level, in the order the writer sorts its keys; which are required depends on `record`.
enum TopKey {
  kBusy,
  kBytesReceived,
  kBytesSent,
  kComm,
  kConn,
  kDigest,
  kDirection,
  kDropped,
  kExpectedRail,
  kHost,
  kJob,
  kLocal,
  kMessagesReceived,
  kMessagesSent,
  kPid,
  kRailMatch,
  kRank,
  kRecord,
  kRemote,
  kSchema,
  kStreams,
  kTimeUs,
  kTransport,
  kTopKeys
};
constexpr std::string_view kTopKeys_[] = {"busy_us",
                                          "bytes_received",
                                          "bytes_sent",
                                          "comm",
                                          "conn",
                                          "digest",
                                          "direction",
                                          "dropped",
                                          "expected_rail",
                                          "host",
                                          "job",
                                          "local",
                                          "messages_received",
                                          "messages_sent",
                                          "pid",
                                          "rail_match",
                                          "rank",
                                          "record",
                                          "remote",
                                          "schema",
                                          "streams",
                                          "time_us",
                                          "transport"};
static_assert(sizeof(kTopKeys_) / sizeof(kTopKeys_[0]) == kTopKeys);

constexpr uint32_t bit(TopKey key) {
  return 1u << key;
}
constexpr uint32_t kIdentity = bit(kSchema) | bit(kJob) | bit(kHost) | bit(kPid) | bit(kRecord) | bit(kTimeUs);
constexpr uint32_t kOptional = bit(kComm) | bit(kRank) | bit(kDropped);
constexpr uint32_t kConnect = bit(kConn) | bit(kDirection) | bit(kTransport) | bit(kStreams) | bit(kLocal) |
                              bit(kRemote) | bit(kExpectedRail) | bit(kRailMatch) | bit(kDigest);
constexpr uint32_t kTraffic =
    bit(kConn) | bit(kBytesSent) | bit(kBytesReceived) | bit(kMessagesSent) | bit(kMessagesReceived) | bit(kBusy);

// What the top level said, before the record kind (which comes late in sorted order) is known.
struct TopLevel {
  std::string_view record, direction;
  int railMatch = -1;  // 0 false, 1 true, 2 null, -1 absent or another type
};

bool readNull(ond::value value) {
  bool isNull = false;
  return !value.is_null().get(isNull) && isNull;
}

bool readRailMatch(ond::value value, int* out) {
  ond::json_type type;
  if (value.type().get(type)) return false;
  if (type == ond::json_type::null) {
    *out = 2;
    return readNull(value);
  }
  bool match = false;
  if (!readBool(value, &match)) return false;
  *out = match ? 1 : 0;
  return true;
}

// null: unknown (the record's default, -1).
bool readExpectedRail(ond::value value, pl::PathRecord* r) {
  ond::json_type type;
  if (value.type().get(type)) return false;
  if (type == ond::json_type::null) return readNull(value);
  return readSmall(value, 0, kSmallMax, &r->expectedRail);
}

bool readIdentityKey(int key, ond::value v, pl::ParsedRecord* out, TopLevel* top) {
  pl::PathRecord& r = out->record;
  std::string_view text;
  switch (key) {
    case kSchema:
      return readText(v, 64, &text) && text == formats::kPathLogSchema;
    case kJob:
      if (!readText(v, 4096, &text) || text.empty()) return false;
      out->identity.job.assign(text);
      return true;
    case kHost:
      if (!readText(v, 4096, &text) || text.empty()) return false;
      out->identity.host.assign(text);
      return true;
    case kPid:
      return readSmall(v, 1, kIntMax, &out->identity.pid);
    case kRecord:
      return readText(v, 16, &top->record);
    case kTimeUs:
      return readInt(v, 0, std::numeric_limits<int64_t>::max(), &r.timeUs);
    case kComm: {
      uint64_t comm = 0;
      if (!readHex(v, &comm)) return false;
      r.comm = comm;
      return true;
    }
    case kRank:
      return readSmall(v, 0, kIntMax, &r.rank);
    default:
      return readCount(v, &r.dropped) && r.dropped > 0;  // kDropped
  }
}

bool readTopKey(int key, ond::value v, pl::ParsedRecord* out, TopLevel* top) {
  pl::PathRecord& r = out->record;
  pl::Traffic& t = r.traffic;
  switch (key) {
    case kBusy:
      return readCount(v, &t.busyUs);
    case kBytesReceived:
      return readCount(v, &t.bytesReceived);
    case kBytesSent:
      return readCount(v, &t.bytesSent);
    case kMessagesReceived:
      return readCount(v, &t.messagesReceived);
    case kMessagesSent:
      return readCount(v, &t.messagesSent);
    case kConn:
      return readCount(v, &r.connection);
    case kDigest:
      return readDigest(v, &r);
    case kDirection:
      return readText(v, 8, &top->direction);
    case kExpectedRail:
      return readExpectedRail(v, &r);
    case kLocal:
      return readLocal(v, &r.local);
    case kRemote:
      return readRemote(v, &r.remote);
    case kRailMatch:
      return readRailMatch(v, &top->railMatch);
    case kStreams:
      return readSmall(v, 1, 1 << 16, &r.streams);
    case kTransport:
      return readFixed(v, &r.transport);
    default:
      return readIdentityKey(key, v, out, top);
  }
}

// The fields present must be exactly the kind's (plus the optional identity ones), and the derived
// fields must agree with what they derive from.
bool finishRecord(uint32_t seen, const TopLevel& top, pl::PathRecord* r) {
  const uint32_t extra = seen & ~(kIdentity | kOptional);
  if ((seen & kIdentity) != kIdentity) return false;
  if (top.record == "connect") {
    r->kind = pl::RecordKind::Connect;
    if (extra != kConnect || (top.direction != "send" && top.direction != "recv")) return false;
    r->direction = top.direction == "send" ? pl::Direction::Send : pl::Direction::Recv;
    const std::optional<bool> match = formats::path_log::railMatch(r->expectedRail, r->local.rail);
    return top.railMatch == (match ? (*match ? 1 : 0) : 2);
  }
  if (top.record == "snapshot" || top.record == "close") {
    r->kind = top.record == "close" ? pl::RecordKind::Close : pl::RecordKind::Snapshot;
    return extra == kTraffic;
  }
  r->kind = pl::RecordKind::Dropped;
  return top.record == "dropped" && extra == 0 && (seen & bit(kDropped)) != 0;
}

}  // namespace

bool fastParseRecord(const char* line, size_t size, size_t capacity, pl::ParsedRecord* out) {
  if (!plainSingleObject(std::string_view(line, size))) return false;
  thread_local ond::parser parser;
  ond::document document;
  if (parser.iterate(line, size, capacity).get(document)) return false;
  *out = pl::ParsedRecord{};
  TopLevel top;
  uint32_t seen = 0;
  ond::object object;
  if (document.get_object().get(object)) return false;
  size_t from = 0;
  for (auto item : object) {
    ond::field field;
    std::string_view key;
    if (std::move(item).get(field) || field.unescaped_key().get(key)) return false;
    const int index = keyIndex(key, kTopKeys_, from);
    if (index < 0 || (seen & (1u << index)) != 0) return false;
    seen |= 1u << index;
    from = static_cast<size_t>(index) + 1;
    if (!readTopKey(index, field.value(), out, &top)) return false;
  }
  return finishRecord(seen, top, &out->record);
}

bool sameRecord(const pl::ParsedRecord& a, const pl::ParsedRecord& b) {
  const pl::PathRecord& x = a.record;
  const pl::PathRecord& y = b.record;
  const auto sameLocal = [](const pl::LocalEnd& l, const pl::LocalEnd& m) {
    return l.device == m.device && l.hca.view() == m.hca.view() && l.netdev.view() == m.netdev.view() &&
           l.rail == m.rail && l.plane == m.plane && l.gpu == m.gpu;
  };
  const auto sameRemote = [](const pl::RemoteEnd& r, const pl::RemoteEnd& s) {
    return r.host.view() == s.host.view() && r.pid == s.pid && r.device == s.device && r.hca.view() == s.hca.view() &&
           r.rail == s.rail && r.plane == s.plane && r.rank == s.rank;
  };
  return a.identity.job == b.identity.job && a.identity.host == b.identity.host && a.identity.pid == b.identity.pid &&
         x.kind == y.kind && x.timeUs == y.timeUs && x.connection == y.connection && x.comm == y.comm &&
         x.rank == y.rank && x.dropped == y.dropped && x.direction == y.direction &&
         x.transport.view() == y.transport.view() && x.streams == y.streams && sameLocal(x.local, y.local) &&
         sameRemote(x.remote, y.remote) && x.expectedRail == y.expectedRail && x.localDigest == y.localDigest &&
         x.remoteDigest == y.remoteDigest && x.traffic == y.traffic && x.source == y.source && x.nccl == y.nccl &&
         x.verbs == y.verbs;
}

}  // namespace railtune::analysis::paths::detail
