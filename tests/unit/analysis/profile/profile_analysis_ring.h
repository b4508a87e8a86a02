// A stalled ring for the hang tests and the CLI fixture, built with the profiler's and the net
// plugin's own renderers: 8 ranks on two trays, ring 0 -> 1 -> ... -> 7 -> 0 on channel 0, the link
// 5 -> 6 losing data at the hung collective.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "formats/path_log.h"
#include "formats/profile_logs.h"

namespace railtune::analysis::profile::testing {

namespace po = formats::profile;

constexpr uint64_t kComm = 0x00000000000000abULL;
constexpr int kRanks = 8;

inline std::string hostOf(int rank) {
  return rank < 4 ? "r000-t00" : "r000-t01";
}

inline Identity identityOf(int rank) {
  return Identity{hostOf(rank), "ring-job", 100 + rank};
}

inline std::unique_ptr<formats::profile::OperationRecord> operation(int rank, uint64_t seq,
                                                                    formats::profile::RecordKind kind) {
  auto r = std::make_unique<formats::profile::OperationRecord>();
  r->kind = kind, r->comm = kComm, r->rank = rank, r->nRanks = kRanks, r->seq = seq;
  r->operation.assign("AllReduce"), r->datatype.assign("ncclFloat32"), r->algorithm.assign("RING");
  r->protocol.assign("SIMPLE"), r->channels = 1, r->bytes = 1 << 20;
  r->start = {1764480000000000000LL + static_cast<int64_t>(seq) * 1000000,
              5000000000LL + static_cast<int64_t>(seq) * 1000000};
  r->end = {r->start.realtimeNs + 500000, r->start.monotonicNs + 500000};
  r->timing = formats::profile::TimingSource::Kernel;
  return r;
}

inline void addFlow(formats::profile::OperationRecord* r, int peer, bool send, uint32_t outstanding, int rail) {
  formats::profile::NetFlow& f = r->flows[r->nFlows++];
  f.channel = 0, f.peer = peer, f.send = send, f.steps = 4, f.bytes = 4096, f.outstanding = outstanding;
  f.device = rail, f.rail = rail;
  f.hca.assign("mlx5_" + std::to_string(rail));
}

// Ring 0 -> 1 -> ... -> 7 -> 0 on channel 0; seqs below `hungSeq` complete everywhere; at hungSeq
// the link 5 -> 6 loses data: 5's sends to 6 and 6's receives from 5 stay outstanding, and every other
// rank waits on a receive from its predecessor.
inline std::vector<std::string> ringLines(int rank, uint64_t hungSeq, int lastSeq) {
  std::vector<std::string> lines;
  for (int seq = 0; seq <= lastSeq; ++seq)
    lines.push_back(po::renderCollectiveLine(
        identityOf(rank), *operation(rank, static_cast<uint64_t>(seq), formats::profile::RecordKind::Collective), 0));
  if (hungSeq == 0) return lines;
  auto hang = operation(rank, hungSeq, formats::profile::RecordKind::Hang);
  hang->stuckForNs = 300000000000ULL;
  const int next = (rank + 1) % kRanks, previous = (rank + kRanks - 1) % kRanks;
  addFlow(hang.get(), next, true, rank == 5 ? 3 : 0, rank % 4);
  addFlow(hang.get(), previous, false, rank == 5 ? 0 : (rank == 6 ? 2 : 1), rank % 4);
  lines.push_back(po::renderCollectiveLine(identityOf(rank), *hang, 0));
  return lines;
}

inline std::string pathLogLine(int rank, int peer) {
  formats::path_log::PathRecord r;
  r.kind = formats::path_log::RecordKind::Connect;
  r.comm = kComm, r.rank = rank, r.direction = formats::path_log::Direction::Send;
  r.transport.assign("socket"), r.streams = 1, r.timeUs = 1764480000000000;
  r.local.device = 1, r.local.hca.assign("mlx5_1"), r.local.rail = 1, r.local.gpu = 1;
  r.remote.host.assign(hostOf(peer)), r.remote.pid = 100 + peer, r.remote.device = 2, r.remote.hca.assign("mlx5_2");
  r.remote.rail = 2, r.remote.rank = peer;
  r.expectedRail = 1;
  return formats::path_log::renderRecord(identityOf(rank), r);
}

}  // namespace railtune::analysis::profile::testing
