// Collective-log lines for the hang and loss tests, one call per line: an 8-rank job "gap-job" on two
// trays, each operation 100 µs long starting at `atUs` after a fixed instant on every host. Written with
// the profiler's renderers (so the strict reader takes them), and as files of earlier versions wrote
// them (no "closed_by") where a test says so.
#pragma once

#include <string>

#include "formats/profile_logs.h"

namespace railtune::analysis::profile::testing {

namespace pl = formats::profile;

constexpr uint64_t kGapComm = 0x00000000000000cdULL;
constexpr int kGapRanks = 8;
constexpr int64_t kEpochNs = 1764480000000000000LL;

inline Identity gapIdentity(int rank) {
  return Identity{rank < 4 ? "r001-t00" : "r001-t01", "gap-job", 200 + rank};
}

inline pl::OperationRecord gapRecord(pl::RecordKind kind, int rank, const std::string& op, uint64_t seq, double atUs) {
  pl::OperationRecord r;
  r.kind = kind, r.comm = kGapComm, r.rank = rank, r.nRanks = kGapRanks, r.seq = seq;
  r.operation.assign(op), r.datatype.assign("ncclFloat32"), r.protocol.assign("SIMPLE");
  if (kind != pl::RecordKind::P2p) r.algorithm.assign("RING");
  r.channels = 1, r.bytes = 1 << 20;
  const auto at = static_cast<int64_t>(atUs * 1000.0);
  r.start = {kEpochNs + at, 9000000000LL + at};
  r.end = {r.start.realtimeNs + 100000, r.start.monotonicNs + 100000};
  r.timing = pl::TimingSource::Kernel;
  return r;
}

// A completed collective; closedBy "events" unless told.
inline std::string collLine(int rank, const std::string& op, uint64_t seq, double atUs,
                            pl::CloseReason closedBy = pl::CloseReason::Events) {
  pl::OperationRecord r = gapRecord(pl::RecordKind::Collective, rank, op, seq, atUs);
  r.closedBy = closedBy;
  return formats::profile::renderCollectiveLine(gapIdentity(rank), r);
}

// The same line as versions before "closed_by" wrote it.
inline std::string oldFormat(std::string line) {
  const std::string field = "\"closed_by\":\"events\",";
  const size_t at = line.find(field);
  if (at != std::string::npos) line.erase(at, field.size());
  return line;
}

// A Send or Recv of `rank` with `peer`; seq counts its earlier ones of that kind with that peer.
inline std::string p2pLine(int rank, const std::string& op, int peer, uint64_t seq, double atUs) {
  pl::OperationRecord r = gapRecord(pl::RecordKind::P2p, rank, op, seq, atUs);
  r.peer = peer;
  return formats::profile::renderCollectiveLine(gapIdentity(rank), r);
}

// The watchdog's record: stuck since atUs for stuckS seconds, one outstanding flow towards `flowPeer`.
inline std::string hangLine(int rank, const std::string& op, uint64_t seq, double atUs, double stuckS, int flowPeer,
                            bool send, int peer = -1) {
  pl::OperationRecord r = gapRecord(pl::RecordKind::Hang, rank, op, seq, atUs);
  r.peer = peer;
  r.stuckForNs = static_cast<uint64_t>(stuckS * 1e9);
  pl::NetFlow& f = r.flows[r.nFlows++];
  f.channel = 0, f.peer = flowPeer, f.send = send, f.steps = 2, f.bytes = 4096, f.outstanding = 2;
  return formats::profile::renderCollectiveLine(gapIdentity(rank), r);
}

// A "dropped" line: the writer's lost records, or (operations, events) of the rank's communicator.
inline std::string droppedLine(int rank, double atUs, uint64_t records, uint64_t operations = 0, uint64_t events = 0) {
  formats::profile::DroppedNotice notice;
  notice.realtimeNs = kEpochNs + static_cast<int64_t>(atUs * 1000.0);
  notice.records = records, notice.operations = operations, notice.events = events;
  if (operations > 0 || events > 0) notice.comm = kGapComm, notice.rank = rank;
  return formats::profile::renderDroppedLine(gapIdentity(rank), notice);
}

}  // namespace railtune::analysis::profile::testing
