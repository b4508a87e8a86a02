// The fast collective-log reader (fast_collective.h). Every check here mirrors one in the strict reader
// (formats/profile_logs_parse.cc); where simdjson and nlohmann might read a text differently
// (escapes, control characters, non-ASCII bytes, duplicate keys) the line is left to the strict reader.
#include "analysis/profile/fast_collective.h"

#include <simdjson.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "formats/profile_logs.h"
#include "formats/profile_record.h"

namespace railtune::analysis::profile {
namespace {

namespace od = simdjson::ondemand;

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

// The keys of a completed record, in the writer's (sorted) order.
// clang-format off
enum Key : int {
  kAlgbw, kAlgorithm, kBusbw, kBytes, kChannels, kClosedBy, kComm, kDatatype, kDuration, kEndMono, kEndReal,
  kEventsDropped, kHost, kJob, kKernelVariant, kNranks, kOp, kPath, kPeer, kPhases, kPid, kProtocol, kRank,
  kRecord, kRecordsDropped, kSchema, kSeq, kStartMono, kStartReal, kSymColl, kTiming, kUserTag, kKeyCount
};

constexpr std::array<std::string_view, kKeyCount> kKeyNames = {
    "algbw_gbps", "algorithm", "busbw_gbps", "bytes", "channels", "closed_by", "comm", "datatype", "duration_us",
    "end_monotonic_ns", "end_realtime_ns", "events_dropped", "host", "job", "kernel_variant", "nranks", "op",
    "path", "peer", "phases", "pid", "protocol", "rank", "record", "records_dropped", "schema", "seq",
    "start_monotonic_ns", "start_realtime_ns", "sym_coll", "timing", "user_tag"};
// clang-format on

constexpr uint64_t bit(int key) {
  return uint64_t{1} << key;
}

constexpr uint64_t kOptional = bit(kClosedBy) | bit(kComm) | bit(kRank) | bit(kNranks) | bit(kPeer) |
                               bit(kRecordsDropped) | bit(kKernelVariant) | bit(kPath) | bit(kPhases) | bit(kSymColl) |
                               bit(kUserTag);
constexpr uint64_t kRequired = (bit(kKeyCount) - 1) & ~kOptional;

// The writer sorts its keys, so the key after the previous one is tried first.
int keyOf(std::string_view name, int previous) {
  for (int k = previous + 1; k < kKeyCount && k <= previous + 2; ++k)
    if (kKeyNames[static_cast<size_t>(k)] == name) return k;
  for (int k = 0; k < kKeyCount; ++k)
    if (kKeyNames[static_cast<size_t>(k)] == name) return k;
  return -1;
}

// Bytes that simdjson and nlohmann could treat differently (control characters, non-ASCII, escapes)
// are left to the strict reader. Eight bytes at a time: this scan runs over every byte of the log.
bool plainAscii(std::string_view line) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= line.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, line.data() + i, 8);
    const uint64_t below20 = (w - kOnes * 0x20) & ~w;  // high bit set where a byte < 0x20 (or >= 0x80)
    const uint64_t backslash = ((w ^ (kOnes * 0x5c)) - kOnes) & ~(w ^ (kOnes * 0x5c));  // where a byte == '\\'
    if (((below20 | backslash) & kHighs) != 0 || (w & kHighs) != 0) return false;
  }
  for (; i < line.size(); ++i) {
    const auto byte = static_cast<unsigned char>(line[i]);
    if (byte < 0x20 || byte >= 0x80 || byte == '\\') return false;
  }
  return true;
}

bool lowercaseHex(std::string_view text, uint64_t* value) {
  if (text.size() != 16) return false;
  uint64_t out = 0;
  for (const char c : text) {
    const bool digit = c >= '0' && c <= '9';
    if (!digit && !(c >= 'a' && c <= 'f')) return false;
    out = out * 16 + static_cast<uint64_t>(digit ? c - '0' : c - 'a' + 10);
  }
  *value = out;
  return true;
}

// What the line said, before the checks that need several fields.
struct Raw {
  CollectiveFields fields;
  std::string_view schema, record, timing;
  uint64_t bytes = 0;
  double duration = 0, algbw = 0, busbw = 0;
  bool hasRecordsDropped = false;
};

bool integerIn(od::value& value, int64_t min, int64_t max, int64_t* out) {
  int64_t number = 0;
  if (value.get_int64().get(number) || number < min || number > max) return false;
  *out = number;
  return true;
}

bool intIn(od::value& value, int64_t min, int64_t max, int* out) {
  int64_t number = 0;
  if (!integerIn(value, min, max, &number)) return false;
  *out = static_cast<int>(number);
  return true;
}

// A count is a JSON integer without a sign (nlohmann's "unsigned").
bool count(od::value& value, uint64_t* out) {
  const std::string_view token = value.raw_json_token();
  return !token.empty() && token[0] != '-' && !value.get_uint64().get(*out);
}

// A line that reaches here holds no backslash (plainAscii), so a string is its raw token without the
// quotes: reading it there saves simdjson copying every string into its own buffer.
bool text(od::value& value, size_t maxLength, std::string_view* out) {
  std::string_view token = value.raw_json_token();
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
  if (token.size() < 2 || token.front() != '"' || token.back() != '"') return false;
  *out = token.substr(1, token.size() - 2);
  return out->size() <= maxLength;
}

bool number(od::value& value, double* out) {
  return !value.get_double().get(*out);
}

bool closeReason(od::value& value, formats::profile::CloseReason* out) {
  std::string_view name;
  if (!text(value, 16, &name)) return false;
  for (const auto reason : {formats::profile::CloseReason::Events, formats::profile::CloseReason::Enqueued,
                            formats::profile::CloseReason::Overtaken, formats::profile::CloseReason::Age,
                            formats::profile::CloseReason::Evicted, formats::profile::CloseReason::Finalize}) {
    if (name != formats::profile::closeReasonName(reason)) continue;
    *out = reason;
    return true;
  }
  return false;
}

// A phase's microseconds, three decimals of whole nanoseconds (the strict reader's microsecondsAsNs).
bool phaseNs(od::value& value, uint64_t* out) {
  double us = 0;
  if (!number(value, &us) || !(us >= 0 && us < 9e15)) return false;
  *out = static_cast<uint64_t>(std::llround(us * 1000.0));
  return static_cast<double>(*out) / 1000.0 == us;
}

bool phaseField(std::string_view name, od::value& value, formats::profile::KernelPhases* p) {
  static constexpr std::string_view kKeys[formats::profile::kKernelPhases] = {"initial_sync_us", "compute_us",
                                                                              "final_sync_us"};
  int64_t number = 0;
  if (name == "channels") {
    if (!integerIn(value, 0, 1 << 16, &number)) return false;
    p->channels = static_cast<uint32_t>(number);
    return true;
  }
  if (name == "unknown") {
    if (!integerIn(value, 0, std::numeric_limits<uint32_t>::max(), &number)) return false;
    p->unknown = static_cast<uint32_t>(number);
    return true;
  }
  if (name == "incomplete") return !value.get_bool().get(p->incomplete) && p->incomplete;  // written only when true
  for (size_t k = 0; k < formats::profile::kKernelPhases; ++k)
    if (name == kKeys[k]) return !std::exchange(p->timed[k], true) && phaseNs(value, &p->longestNs[k]);
  return false;
}

// The "phases" object: "channels" and "unknown" required, each key at most once, as the strict reader has it.
bool phases(od::value& value, formats::profile::KernelPhases* p) {
  od::object object;
  if (value.get_object().get(object)) return false;
  bool channels = false, unknown = false, incomplete = false;
  for (auto field : object) {
    std::string_view name;
    od::value inner;
    if (field.unescaped_key().get(name) || field.value().get(inner)) return false;
    bool& once = name == "channels" ? channels : name == "unknown" ? unknown : incomplete;
    if ((name == "channels" || name == "unknown" || name == "incomplete") && std::exchange(once, true)) return false;
    if (!phaseField(name, inner, p)) return false;
  }
  return channels && unknown && p->present();  // a phases object that says nothing is refused
}

bool readV7Field(int key, od::value& value, Raw* raw) {
  CollectiveFields& f = raw->fields;
  std::string_view name;
  switch (key) {
    case kUserTag: {
      uint64_t tag = 0;
      if (!count(value, &tag)) return false;
      f.userTag = tag;
      return true;
    }
    case kKernelVariant:
      return text(value, 23, &name) && !name.empty();
    case kSymColl: {
      bool sym = false;
      return !value.get_bool().get(sym);
    }
    case kPath:
      if (!text(value, 16, &name)) return false;
      for (const auto p : {formats::profile::OperationPath::Tuned, formats::profile::OperationPath::Symmetric,
                           formats::profile::OperationPath::CopyEngine})
        if (name == formats::profile::operationPathName(p)) return f.path = p, true;
      return false;
    case kPhases:
      return phases(value, &f.phases);
    default:
      return false;
  }
}

bool readIdentityField(int key, od::value& value, Raw* raw) {
  CollectiveFields& f = raw->fields;
  switch (key) {
    case kSchema:
      return text(value, 64, &raw->schema);
    case kJob:
      return text(value, 4096, &f.job) && !f.job.empty();
    case kHost:
      return text(value, 4096, &f.host) && !f.host.empty();
    case kPid:
      return intIn(value, 1, kIntMax, &f.pid);
    case kRecord:
      return text(value, 16, &raw->record);
    case kRecordsDropped:
      raw->hasRecordsDropped = true;
      return count(value, &f.recordsDropped) && f.recordsDropped > 0;
    case kComm: {
      std::string_view digits;
      uint64_t comm = 0;
      if (!text(value, 16, &digits) || !lowercaseHex(digits, &comm)) return false;
      f.comm = comm;
      return true;
    }
    case kRank:
      return intIn(value, 0, kIntMax, &f.rank);
    case kNranks:
      return intIn(value, 1, kIntMax, &f.nRanks);
    default:
      return readV7Field(key, value, raw);
  }
}

bool readOperationField(int key, od::value& value, Raw* raw) {
  CollectiveFields& f = raw->fields;
  std::string_view unused;
  int ignored = 0;
  switch (key) {
    case kSeq:
      return count(value, &f.seq);
    case kOp:
      return text(value, 23, &f.op) && !f.op.empty();
    case kBytes:
      return count(value, &raw->bytes);
    case kDatatype:
    case kAlgorithm:
    case kProtocol:
      return text(value, 15, &unused);
    case kChannels:
      return intIn(value, 0, 1 << 16, &ignored);
    case kPeer:
      return intIn(value, 0, kIntMax, &f.peer);
    case kStartReal:
      return integerIn(value, 0, std::numeric_limits<int64_t>::max(), &f.startRealtimeNs);
    case kStartMono:
      return integerIn(value, 0, std::numeric_limits<int64_t>::max(), &f.startMonotonicNs);
    case kEventsDropped:
      return count(value, &f.eventsDropped);
    case kClosedBy:
      return closeReason(value, &f.closedBy);
    case kEndReal:
      return integerIn(value, 0, std::numeric_limits<int64_t>::max(), &f.endRealtimeNs);
    case kEndMono:
      return integerIn(value, 0, std::numeric_limits<int64_t>::max(), &f.endMonotonicNs);
    case kDuration:
      return number(value, &raw->duration);
    case kAlgbw:
      return number(value, &raw->algbw);
    case kBusbw:
      return number(value, &raw->busbw);
    case kTiming:
      return text(value, 16, &raw->timing);
    default:
      return readIdentityField(key, value, raw);
  }
}

// The checks that involve several fields, as the strict reader makes them.
bool consistent(const Raw& raw, formats::profile::OperationRecord* scratch) {
  const CollectiveFields& f = raw.fields;
  if (raw.schema != formats::kCollectivesSchema) return false;
  if (f.nRanks > 0 && f.rank >= f.nRanks) return false;
  if (f.endRealtimeNs < f.startRealtimeNs || f.endMonotonicNs < f.startMonotonicNs) return false;
  if (raw.timing != "kernel" && raw.timing != "proxy" && raw.timing != "enqueue") return false;
  scratch->operation.assign(f.op);
  scratch->bytes = raw.bytes;
  scratch->nRanks = f.nRanks;
  scratch->start.monotonicNs = f.startMonotonicNs;
  scratch->end.monotonicNs = f.endMonotonicNs;
  return raw.duration == formats::profile::durationUs(*scratch) &&
         raw.algbw == formats::profile::roundedAlgbw(*scratch) && raw.busbw == formats::profile::roundedBusbw(*scratch);
}

}  // namespace

struct FastCollectiveReader::Impl {
  od::parser parser;
  // Only the fields the derived values need are set; the record is large, so it is made once.
  formats::profile::OperationRecord scratch;
};

FastCollectiveReader::FastCollectiveReader() : impl_(std::make_unique<Impl>()) {}
FastCollectiveReader::~FastCollectiveReader() = default;

size_t FastCollectiveReader::paddingBytes() {
  return simdjson::SIMDJSON_PADDING;
}

std::optional<CollectiveFields> FastCollectiveReader::read(std::string_view line) {
  if (!plainAscii(line)) return std::nullopt;
  od::document doc;
  if (impl_->parser.iterate(line.data(), line.size(), line.size() + paddingBytes()).get(doc)) return std::nullopt;
  od::object object;
  if (doc.get_object().get(object)) return std::nullopt;
  Raw raw;
  uint64_t seen = 0;
  int key = -1;
  for (auto field : object) {
    std::string_view name;
    if (field.unescaped_key().get(name)) return std::nullopt;
    key = keyOf(name, key);
    if (key < 0 || (seen & bit(key)) != 0) return std::nullopt;  // unknown or duplicate
    seen |= bit(key);
    od::value value;
    if (field.value().get(value) || !readOperationField(key, value, &raw)) return std::nullopt;
  }
  // Anything after the object (two records run together) leaves a position to report.
  const char* trailing = nullptr;
  if (!doc.current_location().get(trailing) || (seen & kRequired) != kRequired) return std::nullopt;
  if (raw.record != "collective" && raw.record != "p2p") return std::nullopt;
  if (!consistent(raw, &impl_->scratch)) return std::nullopt;
  raw.fields.p2p = raw.record == "p2p";
  raw.fields.enqueueTimed = raw.timing == "enqueue";
  return raw.fields;
}

}  // namespace railtune::analysis::profile
