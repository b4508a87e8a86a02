// What the profiler's capture hands its writers: one record per completed collective (or P2p
// operation), with the network steps under it summarised per channel and peer, and one record per
// hang the watchdog finds. Fixed-size and heap-free, so that the thread that completes a collective
// (an NCCL proxy or application thread) can queue one without allocating; the writers render them
// (collective log, network summary, Chrome trace, Prometheus textfile) on their own thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "formats/inline_text.h"

namespace railtune::formats::profile {

// Where a record's start and end times came from, best first.
enum class TimingSource : uint8_t {
  Kernel,   // KernelCh start/stop (GPU timer, v4+): what the GPU spent on the collective
  Proxy,    // first ProxyOp start .. last ProxyOp stop (network collectives without KernelCh events)
  Enqueue,  // Coll start .. Coll stop: only when nothing else was seen (stop means "enqueued")
};
const char* timingSourceName(TimingSource source);  // "kernel", "proxy", "enqueue"

// Both clocks, so records join across hosts (realtime) and order within one (monotonic).
struct Timestamp {
  int64_t realtimeNs = 0;   // CLOCK_REALTIME
  int64_t monotonicNs = 0;  // CLOCK_MONOTONIC
};

// The network steps of one collective on one channel towards one peer in one direction.
struct NetFlow {
  int channel = -1;
  int peer = -1;  // the peer rank as ProxyOp reports it
  bool send = false;
  uint64_t bytes = 0;        // sum of the steps' transSize
  uint32_t steps = 0;        // ProxyStep events seen
  uint64_t waitNs = 0;       // time in the steps' wait states (send: SendWait/PeerWait; recv: RecvWait)
  uint32_t outstanding = 0;  // steps started and not stopped (the watchdog's view)
  // From NetPlugin events when the net plugin reported them (railtune's own event type, or NCCL's
  // socket / IB descriptors); -1 / empty when it did not.
  int device = -1;
  InlineText<32> hca;  // "mlx5_3", or "socket fd 17" style labels for NCCL's own transports
  int rail = -1;
  int plane = -1;
};

inline constexpr size_t kMaxFlowsPerRecord = 64;

// Which of NCCL's paths ran the operation ("path" in the collective log): the tuned kernels (NCCL's or a
// tuner's choice of algorithm and protocol), a symmetric-memory kernel (profiler v7's coll.isSymColl; NCCL
// picks it without asking a tuner), or the copy engines (a CeColl event, profiler v6+). Analyses never
// compare operations of different paths as if they were the same choice.
enum class OperationPath : uint8_t { Tuned, Symmetric, CopyEngine };
const char* operationPathName(OperationPath path);  // "tuned", "symmetric", "copy_engine"

// The kernel's barrier phases of one operation (profiler v7 KernelPhase events, one per channel and
// phase): per phase the longest channel's duration, from NCCL's GPU timer. NCCL sends no event for a phase
// of zero duration or one the kernel did not time (profiler.cc, profilerFireKernelPhaseEvents@v2.31.2).
enum class KernelPhase : uint8_t { InitialSync = 0, Compute = 1, FinalSync = 2 };
inline constexpr size_t kKernelPhases = 3;
struct KernelPhases {
  uint32_t channels = 0;                            // channels that sent at least one phase event
  std::array<uint64_t, kKernelPhases> longestNs{};  // valid where timed[i]
  std::array<bool, kKernelPhases> timed{};          // at least one channel's phase started and stopped
  uint32_t unknown = 0;                             // phase events with an id NCCL 2.31 does not define (> 2)
  bool incomplete = false;                          // a phase event without its stop time (left out of the max)
  bool present() const { return channels > 0 || unknown > 0 || incomplete; }
};

// Collective and P2p: a completed operation. Hang: the watchdog's view of one still incomplete.
// Lost: a communicator's notice that operations or events could not be recorded (pools full); it is
// written as a "dropped" line within two seconds of the loss, never folded into a later record.
enum class RecordKind : uint8_t { Collective, P2p, Hang, Lost };

// How the capture decided that an operation was over, and so what its timing is worth
// (docs/profiler.md, "When an operation is complete").
enum class CloseReason : uint8_t {
  Events,     // "events": every event it awaited stopped (one KernelCh per channel, or its ProxyOps)
  Enqueued,   // "enqueued": nothing more can come (self P2p; a mask without KernelCh and ProxyOp)
  Overtaken,  // "overtaken": a later operation's kernel or proxy work started while it had no open event
  Age,        // "age": no open event, and nothing came for the close-after time
  Evicted,    // "evicted": the pool was full; the oldest operation without an open event was assumed done
  Finalize,   // "finalize": the communicator was finalized while it waited for events that never came
};
const char* closeReasonName(CloseReason reason);  // the quoted names above

struct OperationRecord {
  OperationRecord() = default;
  // Copies move the flows in use only: a record is copied into the writer's queue and out of it once
  // per operation, and the 64 inline flows are 5 KiB of which a collective uses a handful.
  OperationRecord(const OperationRecord& other) { *this = other; }
  OperationRecord& operator=(const OperationRecord& other);

  RecordKind kind = RecordKind::Collective;
  std::optional<uint64_t> comm;  // NCCL's commId (v4+)
  int rank = -1;
  int nRanks = 0;
  // Collectives: NCCL's comm->seqNumber[func], counted per collective type. P2p: this rank's count of
  // earlier operations of the same kind (Send or Recv) with the same peer, so that the k-th Send from
  // rank r to p pairs with p's k-th Recv from r.
  uint64_t seq = 0;
  InlineText<24> operation;  // "AllReduce", "Send", "Recv"...
  uint64_t bytes = 0;        // count x datatype size: the message size nccl-tests reports
  InlineText<16> datatype;   // "ncclFloat32"
  InlineText<16> algorithm;  // "RING", "TREE", ... (NCCL's names); empty for P2p
  InlineText<16> protocol;   // "LL", "LL128", "SIMPLE"
  int channels = 0;
  int peer = -1;  // P2p only
  Timestamp start, end;
  TimingSource timing = TimingSource::Enqueue;
  // The network summary: at most kMaxFlowsPerRecord flows, the rest counted.
  std::array<NetFlow, kMaxFlowsPerRecord> flows{};
  uint32_t nFlows = 0;
  uint32_t flowsDropped = 0;
  // Hang records: how long the operation has been incomplete when the watchdog wrote this.
  uint64_t stuckForNs = 0;
  // Collective/P2p: events of this operation (KernelCh, ProxyOp, ProxyStep) that a full pool dropped.
  // Lost: events of the communicator whose operation is unknown.
  uint64_t eventsDropped = 0;
  CloseReason closedBy = CloseReason::Events;  // Collective and P2p records
  uint64_t operationsDropped = 0;              // Lost: Coll/P2p events a full pool dropped since the last notice
  // Profiler v7 (NCCL 2.31+); absent (nullopt, empty) when the bound version did not say.
  std::optional<uint64_t> userTag;  // the application's tag of the call (ncclCollConfig_t); 0: untagged
  InlineText<24> kernelVariant;     // the symmetric kernel NCCL named ("AGxLL_R"); empty: none
  std::optional<bool> symColl;      // coll.isSymColl
  OperationPath path = OperationPath::Tuned;
  KernelPhases phases;  // Collective and P2p records; phases.present() false: none seen
};

// Inline: the capture, the writer and the readers each copy records, from libraries of their own.
inline OperationRecord& OperationRecord::operator=(const OperationRecord& other) {
  if (this == &other) return *this;
  kind = other.kind;
  comm = other.comm;
  rank = other.rank;
  nRanks = other.nRanks;
  seq = other.seq;
  operation = other.operation;
  bytes = other.bytes;
  datatype = other.datatype;
  algorithm = other.algorithm;
  protocol = other.protocol;
  channels = other.channels;
  peer = other.peer;
  start = other.start;
  end = other.end;
  timing = other.timing;
  nFlows = other.nFlows < kMaxFlowsPerRecord ? other.nFlows : static_cast<uint32_t>(kMaxFlowsPerRecord);
  std::copy_n(other.flows.begin(), nFlows, flows.begin());
  flowsDropped = other.flowsDropped;
  stuckForNs = other.stuckForNs;
  eventsDropped = other.eventsDropped;
  closedBy = other.closedBy;
  operationsDropped = other.operationsDropped;
  userTag = other.userTag;
  kernelVariant = other.kernelVariant;
  symColl = other.symColl;
  path = other.path;
  phases = other.phases;
  return *this;
}

// nccl-tests' formulas: algbw = bytes / time; busbw = algbw x factor, the factor by operation:
// AllReduce 2(n-1)/n; ReduceScatter, AllGather (n-1)/n; Broadcast, Reduce, Send/Recv 1; AllToAll
// (n-1)/n. Time in seconds > 0; GB/s = 1e9 bytes per second. 0 when the time is 0.
double algorithmBandwidthGBps(const OperationRecord& record);
double busBandwidthGBps(const OperationRecord& record);

}  // namespace railtune::formats::profile
