// The strict reader of path log records (records.h): what `railtune paths` and the tests use.
#include <limits>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "net_plugin/pathlog/records.h"
#include "net_plugin/pathlog/records_internal.h"

namespace railtune::net::pathlog {
namespace {

using nlohmann::json;

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One JSON object read field by field; finish() rejects the keys nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {
    if (object_.is_object()) return;
    if (prefix_.empty()) throw FieldError("a record must be a JSON object");
    throw FieldError("field '" + prefix_.substr(0, prefix_.size() - 1) + "': expected an object");
  }

  bool has(const char* key) const { return object_.contains(key); }

  const json& field(const char* key) {
    const auto it = object_.find(key);
    if (it == object_.end()) throw FieldError(where(key) + "missing");
    used_.insert(key);
    return *it;
  }

  int64_t integer(const char* key, int64_t min, int64_t max = std::numeric_limits<int64_t>::max()) {
    const json& value = field(key);
    if (value.is_number_integer()) {
      if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(max)) {
        throw FieldError(where(key) + "too large");
      }
      const int64_t number = value.get<int64_t>();
      if (number >= min && number <= max) return number;
    }
    throw FieldError(where(key) + "expected an integer >= " + std::to_string(min));
  }

  uint64_t count(const char* key) {
    const json& value = field(key);
    if (!value.is_number_unsigned()) throw FieldError(where(key) + "expected an integer >= 0");
    return value.get<uint64_t>();
  }

  std::string text(const char* key, size_t maxLength) {
    const json& value = field(key);
    if (!value.is_string()) throw FieldError(where(key) + "expected a string");
    std::string out = value.get<std::string>();
    if (out.size() > maxLength) throw FieldError(where(key) + "longer than " + std::to_string(maxLength));
    return out;
  }

  uint64_t hex(const char* key) {
    const std::string digits = text(key, 16);
    if (digits.size() != 16 || digits.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw FieldError(where(key) + "expected 16 lowercase hex digits");
    }
    return std::stoull(digits, nullptr, 16);
  }

  void finish() const {
    for (const auto& item : object_.items()) {
      if (!used_.contains(item.key())) throw FieldError(where(item.key().c_str()) + "unknown field");
    }
  }

  std::string where(const std::string& key) const { return "field '" + prefix_ + key + "': "; }

 private:
  const json& object_;
  std::string prefix_;
  std::set<std::string> used_;
};

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

void readRemote(const json& object, RemoteEnd* remote) {
  ObjectReader in(object, "remote.");
  remote->host.assign(in.text("host", sizeof(remote->host.chars) - 1));
  remote->pid = asInt(in.integer("pid", 1, std::numeric_limits<int>::max()));
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

void readConnect(ObjectReader& in, PathRecord* record) {
  record->connection = in.count("conn");
  const std::string direction = in.text("direction", 8);
  if (direction != "send" && direction != "recv") throw FieldError(in.where("direction") + "expected send or recv");
  record->direction = direction == "send" ? Direction::Send : Direction::Recv;
  record->transport.assign(in.text("transport", sizeof(record->transport.chars) - 1));
  record->streams = asInt(in.integer("streams", 1, 1 << 16));
  readLocal(in.field("local"), &record->local);
  readRemote(in.field("remote"), &record->remote);
  const json& expected = in.field("expected_rail");
  if (!expected.is_null()) record->expectedRail = asInt(in.integer("expected_rail", 0, 1 << 20));
  const std::optional<bool> match = detail::railMatch(record->expectedRail, record->local.rail);
  const json wanted = match ? json(*match) : json(nullptr);
  if (in.field("rail_match") != wanted) throw FieldError(in.where("rail_match") + "expected " + wanted.dump());
  readDigest(in.field("digest"), record);
}

void readTraffic(ObjectReader& in, PathRecord* record) {
  record->connection = in.count("conn");
  record->traffic.bytesSent = in.count("bytes_sent");
  record->traffic.bytesReceived = in.count("bytes_received");
  record->traffic.messagesSent = in.count("messages_sent");
  record->traffic.messagesReceived = in.count("messages_received");
  record->traffic.busyUs = in.count("busy_us");
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

// Records nest two levels; refusing deep nesting before parsing keeps a hostile line (thousands of
// '[') from exhausting the stack of nlohmann's recursive parser. Returns the 1-based column, or 0.
size_t tooDeepAt(std::string_view line) {
  constexpr int kMaxDepth = 8;
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (inString) {
      if (c == '\\') ++i;
      if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return i + 1;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return 0;
}

}  // namespace

ParseResult parseRecord(std::string_view line, const std::string& file, int lineNumber) {
  ParseResult result;
  const std::string at = file + ":" + std::to_string(lineNumber) + ":";
  if (const size_t column = tooDeepAt(line); column != 0) {
    result.error = at + std::to_string(column) + ": nested deeper than a path log record can be";
    return result;
  }
  json document;
  try {
    document = json::parse(line);
  } catch (const json::parse_error& e) {
    result.error = at + std::to_string(e.byte) + ": not JSON: " + e.what();
    return result;
  }
  try {
    result.parsed = readRecord(document);
  } catch (const FieldError& e) {
    result.error = at + "1: " + e.what();
  }
  return result;
}

ParseAllResult parseRecords(std::string_view text, const std::string& file) {
  ParseAllResult out;
  int lineNumber = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++lineNumber;
    ParseResult one = parseRecord(text.substr(start, end - start), file, lineNumber);
    if (!one.parsed) {
      out.error = one.error;
      return out;
    }
    out.records.push_back(std::move(*one.parsed));
    start = end + 1;
  }
  return out;
}

}  // namespace railtune::net::pathlog
