// The fixed records behind the profiler output's golden files (docs/formats/profile-*.example.jsonl,
// tests/data/golden/profile/): one of each kind and case, shared by the rendering, trace and
// Prometheus tests.
#pragma once

#include <string>
#include <vector>

#include "common/identity.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::testing {

inline Identity exampleIdentity() {
  return Identity{"gb300-r01-t05", "48213", 4121};
}

inline NetFlow flow(int channel, int peer, bool send, uint64_t bytes, uint32_t steps, uint64_t waitNs, int rail) {
  NetFlow f;
  f.channel = channel;
  f.peer = peer;
  f.send = send;
  f.bytes = bytes;
  f.steps = steps;
  f.waitNs = waitNs;
  if (rail >= 0) {
    f.device = rail;
    f.hca.assign("mlx5_" + std::to_string(rail));
    f.rail = rail;
  }
  return f;
}

inline OperationRecord operation(RecordKind kind, const char* op, uint64_t seq, uint64_t bytes, int64_t startNs,
                                 int64_t durationNs) {
  OperationRecord r;
  r.kind = kind;
  r.comm = 0x5d3c0f1e2a4b6c7dULL;
  r.rank = 3;
  r.nRanks = 144;
  r.seq = seq;
  r.operation.assign(op);
  r.bytes = bytes;
  r.datatype.assign("ncclFloat32");
  r.protocol.assign("SIMPLE");
  r.channels = 16;
  r.start = Timestamp{1764480000000000000 + startNs, 5000000000000 + startNs};
  r.end = Timestamp{r.start.realtimeNs + durationNs, r.start.monotonicNs + durationNs};
  r.timing = TimingSource::Kernel;
  return r;
}

inline void addFlow(OperationRecord* r, const NetFlow& f) {
  r->flows[r->nFlows++] = f;
}

// A 1 GiB AllReduce over the rails; an AllGather whose NICs the net plugin did not report; a Send;
// a Broadcast from a communicator without an id (NCCL before v4); a hang with outstanding steps.
// Their close reasons differ.
inline std::vector<OperationRecord> exampleRecords() {
  std::vector<OperationRecord> records;
  OperationRecord allReduce = operation(RecordKind::Collective, "AllReduce", 17, 1073741824, 0, 5123456);
  allReduce.algorithm.assign("RING");
  addFlow(&allReduce, flow(0, 75, true, 67108864, 128, 1250000, 3));
  addFlow(&allReduce, flow(0, 75, false, 67108864, 128, 842113, 3));
  addFlow(&allReduce, flow(1, 75, true, 67108864, 128, 1190500, 3));
  addFlow(&allReduce, flow(1, 75, false, 67108864, 128, 901001, 3));
  records.push_back(allReduce);
  OperationRecord allGather = operation(RecordKind::Collective, "AllGather", 18, 67108864, 6000000, 987001);
  allGather.algorithm.assign("RING");
  allGather.protocol.assign("LL128");
  allGather.channels = 8;
  allGather.timing = TimingSource::Proxy;
  allGather.closedBy = CloseReason::Overtaken;
  allGather.eventsDropped = 2;
  addFlow(&allGather, flow(2, 4, true, 33554432, 64, 0, -1));
  addFlow(&allGather, flow(2, 2, false, 33554432, 64, 120000, -1));
  allGather.flowsDropped = 6;
  records.push_back(allGather);
  OperationRecord send = operation(RecordKind::P2p, "Send", 1, 4194304, 8000000, 250000);
  send.peer = 75;
  send.channels = 2;
  NetFlow twoPlane = flow(0, 75, true, 4194304, 8, 3000, 1);
  twoPlane.plane = 1;
  addFlow(&send, twoPlane);
  records.push_back(send);
  OperationRecord broadcast = operation(RecordKind::Collective, "Broadcast", 3, 8192, 9000000, 21000);
  broadcast.comm.reset();
  broadcast.rank = -1;
  broadcast.nRanks = 8;
  broadcast.algorithm.assign("RING");
  broadcast.protocol.assign("LL");
  broadcast.channels = 1;
  broadcast.timing = TimingSource::Enqueue;
  broadcast.closedBy = CloseReason::Enqueued;
  records.push_back(broadcast);
  OperationRecord hang = operation(RecordKind::Hang, "ReduceScatter", 42, 268435456, 10000000, 0);
  hang.algorithm.assign("RING");
  hang.stuckForNs = 300000000000;
  NetFlow stuck = flow(5, 11, false, 1048576, 3, 299000000000, 1);
  stuck.outstanding = 2;
  stuck.plane = 0;
  addFlow(&hang, stuck);
  records.push_back(hang);
  return records;
}

// Profiler v7 (NCCL 2.31): a tagged AllGather a symmetric kernel ran, with its kernel phases, and a Recv
// whose tag is the largest a uint64 holds. The collective example's lines after exampleRecords().
inline std::vector<OperationRecord> exampleV7Records() {
  std::vector<OperationRecord> records;
  OperationRecord symmetric = operation(RecordKind::Collective, "AllGather", 19, 1048576, 11000000, 41250);
  symmetric.algorithm.assign("LL_R");
  symmetric.protocol.assign("");
  symmetric.channels = 4;
  symmetric.userTag = 2;
  symmetric.symColl = true;
  symmetric.kernelVariant.assign("AGxLL_R");
  symmetric.path = OperationPath::Symmetric;
  symmetric.phases.channels = 4;
  symmetric.phases.timed = {true, true, true};
  symmetric.phases.longestNs = {12500, 24000, 3125};
  records.push_back(symmetric);
  OperationRecord tagged = operation(RecordKind::P2p, "Recv", 2, 4194304, 12000000, 250000);
  tagged.peer = 76;
  tagged.channels = 2;
  tagged.userTag = UINT64_MAX;
  tagged.phases.channels = 2;
  tagged.phases.timed = {false, true, false};
  tagged.phases.longestNs = {0, 240000, 0};
  tagged.phases.unknown = 1;
  tagged.phases.incomplete = true;
  records.push_back(tagged);
  return records;
}

// A capture's notice that its pools were full: operations and events it could not record.
inline OperationRecord exampleLost() {
  OperationRecord r;
  r.kind = RecordKind::Lost;
  r.comm = 0x5d3c0f1e2a4b6c7dULL;
  r.rank = 3;
  r.end = Timestamp{1764480300000000000, 5000300000000000};
  r.operationsDropped = 2;
  r.eventsDropped = 40;
  return r;
}

}  // namespace railtune::profiler::testing
