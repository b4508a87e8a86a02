// The strict readers of the collective log and the network summary (records.h): what the tests and
// `railtune profile` use.
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "profiler_plugin/output/records.h"
#include "profiler_plugin/output/records_internal.h"

namespace railtune::profiler::output {
namespace {

using nlohmann::json;

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

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
      const bool tooLarge = value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(max);
      const int64_t number = tooLarge ? max : value.get<int64_t>();
      if (!tooLarge && number >= min && number <= max) return number;
    }
    const std::string range = max == std::numeric_limits<int64_t>::max()
                                  ? " >= " + std::to_string(min)
                                  : " from " + std::to_string(min) + " to " + std::to_string(max);
    throw FieldError(where(key) + "expected an integer" + range);
  }

  uint64_t count(const char* key) {
    const json& value = field(key);
    if (!value.is_number_unsigned()) throw FieldError(where(key) + "expected an integer >= 0");
    return value.get<uint64_t>();
  }

  double number(const char* key) {
    const json& value = field(key);
    if (!value.is_number()) throw FieldError(where(key) + "expected a number");
    return value.get<double>();
  }

  std::string text(const char* key, size_t maxLength) {
    const json& value = field(key);
    if (!value.is_string()) throw FieldError(where(key) + "expected a string");
    std::string out = value.get<std::string>();
    if (out.size() > maxLength) throw FieldError(where(key) + "longer than " + std::to_string(maxLength));
    return out;
  }

  template <size_t N>
  void inlineText(const char* key, InlineText<N>* out) {
    out->assign(text(key, N - 1));
  }

  uint64_t hex(const char* key) {
    const std::string digits = text(key, 16);
    if (digits.size() != 16 || digits.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw FieldError(where(key) + "expected 16 lowercase hex digits");
    }
    return std::stoull(digits, nullptr, 16);
  }

  // A derived value must be exactly what the writer would have written.
  void derived(const char* key, double expected) {
    if (number(key) != expected) throw FieldError(where(key) + "expected " + json(expected).dump());
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
  if (*dropped) return RecordKind::Collective;
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

void readNic(const json& object, const std::string& prefix, NetFlow* flow) {
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

NetFlow readFlow(const json& object, size_t index, bool withOutstanding) {
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
  const json& flows = in.field("flows");
  if (!flows.is_array()) throw FieldError(in.where("flows") + "expected an array");
  if (flows.size() > kMaxFlowsPerRecord) {
    throw FieldError(in.where("flows") + "more than " + std::to_string(kMaxFlowsPerRecord) + " flows");
  }
  r->nFlows = 0;
  for (const json& flow : flows) {
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

void readCompletion(ObjectReader& in, OperationRecord* r) {
  r->end.realtimeNs = in.integer("end_realtime_ns", r->start.realtimeNs);
  r->end.monotonicNs = in.integer("end_monotonic_ns", r->start.monotonicNs);
  in.derived("duration_us", durationUs(*r));
  in.derived("algbw_gbps", roundedAlgbw(*r));
  in.derived("busbw_gbps", roundedBusbw(*r));
  r->timing = readTiming(in);
}

ParsedCollective readCollective(const json& document) {
  ParsedCollective out;
  ObjectReader in(document, "");
  readIdentity(in, kCollectivesSchema, &out.identity);
  out.record.kind = readKind(in, &out.droppedNotice);
  if (in.has("records_dropped") || out.droppedNotice) out.recordsDropped = in.count("records_dropped");
  if (in.has("records_dropped") && out.recordsDropped == 0) {
    throw FieldError(in.where("records_dropped") + "written only when > 0");
  }
  if (out.droppedNotice) {
    out.record.start.realtimeNs = in.integer("time_realtime_ns", 0);
  } else {
    readCommAndRank(in, &out.record);
    readOperation(in, &out.record);
    if (out.record.kind == RecordKind::Hang) {
      out.record.stuckForNs = in.count("stuck_for_ns");
      readFlows(in, true, &out.record);
    } else {
      readCompletion(in, &out.record);
    }
  }
  in.finish();
  return out;
}

ParsedNet readNet(const json& document) {
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

// Records nest three levels; refusing deep nesting before parsing keeps a hostile line (thousands of
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

// One line through `read`: the parsed record, or "FILE:LINE:COLUMN: reason".
template <typename Parsed, typename Read>
std::optional<Parsed> parseLine(std::string_view line, const std::string& file, int lineNumber, Read read,
                                std::string* error) {
  const std::string at = file + ":" + std::to_string(lineNumber) + ":";
  if (const size_t column = tooDeepAt(line); column != 0) {
    *error = at + std::to_string(column) + ": nested too deep";
    return std::nullopt;
  }
  json document;
  try {
    document = json::parse(line);
  } catch (const json::parse_error& e) {
    *error = at + std::to_string(e.byte) + ": not JSON: " + e.what();
    return std::nullopt;
  } catch (const json::exception& e) {  // a number out of range, say 1e999
    *error = at + "1: not JSON: " + e.what();
    return std::nullopt;
  }
  try {
    return read(document);
  } catch (const FieldError& e) {
    *error = at + "1: " + e.what();
    return std::nullopt;
  }
}

// Every line of a JSONL text; stops at the first error.
template <typename Parsed, typename ParseOne>
std::string parseLines(std::string_view text, const std::string& file, ParseOne parseOne, std::vector<Parsed>* out) {
  int lineNumber = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto one = parseOne(text.substr(start, end - start), file, ++lineNumber);
    if (!one.parsed) return one.error;
    out->push_back(std::move(*one.parsed));
    start = end + 1;
  }
  return "";
}

}  // namespace

CollectiveLineResult parseCollectiveLine(std::string_view line, const std::string& file, int lineNumber) {
  CollectiveLineResult result;
  result.parsed = parseLine<ParsedCollective>(line, file, lineNumber, readCollective, &result.error);
  return result;
}

NetLineResult parseNetLine(std::string_view line, const std::string& file, int lineNumber) {
  NetLineResult result;
  result.parsed = parseLine<ParsedNet>(line, file, lineNumber, readNet, &result.error);
  return result;
}

CollectiveParseResult parseCollectiveRecords(std::string_view text, const std::string& file) {
  CollectiveParseResult result;
  result.error = parseLines(text, file, parseCollectiveLine, &result.records);
  return result;
}

NetParseResult parseNetRecords(std::string_view text, const std::string& file) {
  NetParseResult result;
  result.error = parseLines(text, file, parseNetLine, &result.records);
  return result;
}

}  // namespace railtune::profiler::output
