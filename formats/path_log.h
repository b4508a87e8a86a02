// Path log records (railtune.path_log.v1, docs/formats/path-log.schema.json): one JSON line each.
//   connect   one per connection: both ends (device, HCA, netdev, rail, plane, GPU; the peer's host,
//             pid, device, HCA, rail, plane, rank), streams or QPs, expected vs actual rail, digests
//   snapshot  written periodically while a connection's counters move: bytes and messages each way,
//             busy time
//   close     the final counters when the connection closes
//   dropped   only when records were lost (queue full) and no other record could say so
// Connections of transport "ib" add the verbs facts to their connect record ("verbs": port, GID, link layer, MTU,
// the QP numbers of both ends) and the bytes each QP carried to their snapshot and close records ("bytes_per_qp").
// A connect record rebuilt from NCCL's INFO logs (`railtune paths import`) says so: source "nccl-log", and an
// "nccl" object with what NCCL's Channel line said; it has no digests, and what the log did not say
// (streams, the peer's pid when its log is absent) is 0 or unknown, never guessed.
// Every record carries the identity fields of architecture rule 6 (schema, job, host, pid; comm and
// rank where known). A PathRecord holds no heap memory, so the data path can queue one without
// allocating; rendering and parsing happen on the writer's side (and in readers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/identity.h"
#include "formats/handshake.h"
#include "formats/inline_text.h"
#include "formats/schemas.h"

namespace railtune::formats::path_log {

enum class RecordKind { Connect, Snapshot, Close, Dropped };
enum class Direction { Send, Recv };
enum class Source { NetPlugin, NcclLog };  // who wrote a connect record: railtune's net plugin, or the import

// What NCCL's own log line said about a connection (source nccl-log only).
struct NcclLogFacts {
  InlineText<64> net;  // NCCL's network name: "IB", "IBext_v8", "Socket", "AWS Libfabric"
  int channel = -1;
  int connIndex = -1;   // connIndex ("Channel 00/1"); -1: the NCCL version prints none
  int port = -1;        // the HCA port from the device list; -1: unknown
  InlineText<16> link;  // "IB", "RoCE"; empty: unknown
  bool gdr = false;     // "/GDRDMA"
  bool shared = false;  // "/Shared"
  int proxyRank = -1;   // PXN: the rank whose proxy drives the NIC ("NET/IB/5(2)"); -1: none
  bool operator==(const NcclLogFacts& other) const {
    return net.view() == other.net.view() && channel == other.channel && connIndex == other.connIndex &&
           port == other.port && link.view() == other.link.view() && gdr == other.gdr && shared == other.shared &&
           proxyRank == other.proxyRank;
  }
};

struct LocalEnd {
  int device = -1;
  InlineText<64> hca;
  InlineText<32> netdev;
  int rail = -1;   // -1: unknown
  int plane = -1;  // -1: single plane or unknown
  int gpu = -1;    // the CUDA device the connection serves; -1: unknown
};

struct RemoteEnd {
  InlineText<256> host;
  int pid = 0;
  int device = -1;
  InlineText<64> hca;
  int rail = -1;
  int plane = -1;
  int rank = -1;  // -1: unknown
};

// The most QPs a record lists: NCCL_IB_QPS_PER_CONNECTION's whole range (1..128), which is also what railtune's
// ib transport opens at most per connection.
inline constexpr int kMaxQpsRecorded = 128;

// What the verbs layer says about a connection: connect records of transport "ib" only, rendered as "verbs".
struct VerbsFacts {
  bool present = false;
  int port = 0;              // the HCA port (the HCA itself is local.hca)
  InlineText<48> gid;        // the local GID as sysfs prints it: "fe80:0000:0000:0000:0c42:a1ff:fe5b:b220"
  int gidIndex = -1;         // -1: unknown
  InlineText<16> linkLayer;  // "InfiniBand" or "RoCE"
  int mtu = 0;               // the path MTU in bytes: 256, 512, 1024, 2048 or 4096
  int qpCount = 0;           // QPs of the connection, == streams
  uint32_t localQpn[kMaxQpsRecorded] = {};   // [0, qpCount)
  uint32_t remoteQpn[kMaxQpsRecorded] = {};  // the peer's QP each local one is connected to
  bool adaptiveRouting = false;
  bool operator==(const VerbsFacts& other) const {
    if (present != other.present || port != other.port || gid.view() != other.gid.view() ||
        gidIndex != other.gidIndex || linkLayer.view() != other.linkLayer.view() || mtu != other.mtu ||
        qpCount != other.qpCount || adaptiveRouting != other.adaptiveRouting) {
      return false;
    }
    for (int i = 0; i < kMaxQpsRecorded; ++i) {
      if (localQpn[i] != other.localQpn[i] || remoteQpn[i] != other.remoteQpn[i]) return false;
    }
    return true;
  }
};

struct Traffic {
  uint64_t bytesSent = 0, bytesReceived = 0, messagesSent = 0, messagesReceived = 0, busyUs = 0;
  int qpCount = 0;                            // ib connections: QPs counted in bytesPerQp; 0: absent
  uint64_t bytesPerQp[kMaxQpsRecorded] = {};  // bytes each QP carried (both directions), [0, qpCount)
  bool operator==(const Traffic&) const = default;
};

struct PathRecord {
  RecordKind kind = RecordKind::Connect;
  int64_t timeUs = 0;            // microseconds since the Unix epoch
  uint64_t connection = 0;       // unique within the writing process
  std::optional<uint64_t> comm;  // NCCL's commId, when the connection knows it
  int rank = -1;                 // the writer's rank; -1: unknown
  uint64_t dropped = 0;          // records lost before this one (0: none)
  // connect
  Source source = Source::NetPlugin;
  NcclLogFacts nccl;  // source NcclLog only
  Direction direction = Direction::Send;
  InlineText<16> transport;  // "socket", "ib"
  int streams = 0;           // TCP streams or QPs
  LocalEnd local;
  RemoteEnd remote;
  int expectedRail = -1;  // the rail the served GPU maps to in the rail map; -1: unknown
  uint64_t localDigest = 0, remoteDigest = 0;
  VerbsFacts verbs;  // transport "ib" only
  // snapshot, close
  Traffic traffic;
};

// The path log file of one writer: "<job>-<host>-<pid>.<tag>.jsonl" ("<job>-<host>-<pid>.jsonl" without a tag, as
// earlier versions named it), with every character outside [A-Za-z0-9._-] replaced by '_' so that a job or host name
// cannot leave the directory or make an awkward file name.
std::string pathLogFileName(const Identity& identity, std::string_view tag = "");

// Fills a connect record's remote end and digests from the peer's handshake header.
void describePeer(const HandshakeHeader& peer, uint64_t localDigest, PathRecord* connect);

// Whether the connection's rail is the one its GPU maps to; empty when either is unknown (-1). The
// path log writes it as rail_match, and every reader that checks rails asks it the same question.
std::optional<bool> railMatch(int expectedRail, int actualRail);

// "railtune" (written as no "source" key), "nccl-log".
const char* sourceName(Source source);

// "connect", "snapshot", "close", "dropped".
const char* recordKindName(RecordKind kind);

// One JSON line without its newline, keys sorted, so the same record always gives the same bytes.
std::string renderRecord(const Identity& identity, const PathRecord& record);

// A record read back. Identity travels with it because a reader joins many writers' files.
struct ParsedRecord {
  Identity identity;
  PathRecord record;
};

struct ParseResult {
  std::optional<ParsedRecord> parsed;
  std::string error;  // "FILE:LINE:COLUMN: reason" (column 1 unless the JSON itself is malformed)
};

// Strict: unknown keys, missing or mistyped fields and derived fields (rail_match, digest.match)
// that disagree with the values they derive from are errors.
ParseResult parseRecord(std::string_view line, const std::string& file, int lineNumber);

// Every line of a JSONL text; stops at the first error.
struct ParseAllResult {
  std::vector<ParsedRecord> records;
  std::string error;
};
ParseAllResult parseRecords(std::string_view text, const std::string& file);

}  // namespace railtune::formats::path_log
