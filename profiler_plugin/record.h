// What the profiler's capture hands its writers: one record per completed collective (or P2p
// operation), with the network steps under it summarised per channel and peer, and one record per
// hang the watchdog finds. Fixed-size and heap-free, so that the thread that completes a collective
// (an NCCL proxy or application thread) can queue one without allocating; the writers render them
// (collective log, network summary, Chrome trace, Prometheus textfile) on their own thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace railtune::profiler {

// Text of at most N-1 characters kept inline; longer text is cut (names and labels, not data).
template <size_t N>
struct InlineText {
  char chars[N] = {};
  void assign(std::string_view text) {
    const size_t n = text.size() < N - 1 ? text.size() : N - 1;
    for (size_t i = 0; i < n; ++i) chars[i] = text[i];
    chars[n] = '\0';
  }
  std::string_view view() const { return std::string_view(chars); }
};

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

enum class RecordKind : uint8_t { Collective, P2p, Hang };

struct OperationRecord {
  RecordKind kind = RecordKind::Collective;
  std::optional<uint64_t> comm;  // NCCL's commId (v4+)
  int rank = -1;
  int nRanks = 0;
  uint64_t seq = 0;          // NCCL's seqNumber (collectives); a per-comm counter for P2p
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
  uint64_t eventsDropped = 0;  // events this communicator could not record since the last record
};

// nccl-tests' formulas: algbw = bytes / time; busbw = algbw x factor, the factor by operation:
// AllReduce 2(n-1)/n; ReduceScatter, AllGather (n-1)/n; Broadcast, Reduce, Send/Recv 1; AllToAll
// (n-1)/n. Time in seconds > 0; GB/s = 1e9 bytes per second. 0 when the time is 0.
double algorithmBandwidthGBps(const OperationRecord& record);
double busBandwidthGBps(const OperationRecord& record);

}  // namespace railtune::profiler
