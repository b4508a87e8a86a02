// The verbs transport's connections. A send comm and a receive comm each own a completion queue and N RC QPs
// on one HCA port (N: the QP policy, common/qp_policy.h), plus registered control memory; both are driven only
// by the thread NCCL calls them from, so the data path takes no lock and allocates nothing.
//
// Protocol (NCCL's IB transport's, src/transport/net_ib/p2p.cc@v2.30.7, in railtune's own layouts):
//   - both ends build the same number of QPs, decided once by the sender (its QP policy, 1..128) and carried
//     in its metadata; the receiver follows it;
//   - irecv posts one zero-SGE receive on each of the request's QPs (wr_id: FIFO slot and QP index, ib_wr_id.h) and
//     RDMA-writes one clear-to-send element per buffer (ib_wire.h) into the sender's FIFO at that slot, on QP 0;
//   - a request uses M of the connection's N QPs: all of them when data is split, else one, and request `id`
//     uses QPs (id*M + i) mod N (NCCL 2.30's choice), so successive requests rotate over them;
//   - isend waits (returns NULL) until the slot's elements are whole and numbered for it, matches its tag, and
//     once every buffer of the slot is matched posts one chain on each of the request's QPs: the RDMA writes
//     of that QP's 128-byte aligned share of each buffer (unsignaled), then one signaled write with immediate
//     so that the receiver counts one completion per QP. As in NCCL's ncclIbMultiSend, that write is the last
//     data write itself for a single buffer, unless adaptive routing is on and the message is larger than
//     NCCL_IB_AR_THRESHOLD (then a zero-length write follows the data, which may arrive by any path); for a
//     grouped receive it is QP 0's write of the sizes record (a zero-length one on the other QPs);
//   - the immediate of each QP is the number of data bytes that QP wrote for the request: the receiver's size
//     of a single buffer is their sum, so it is what was written, and for a grouped receive the sum must equal
//     the sizes record's total (else the request fails naming both);
//   - a request is done when the completions of all its QPs are in (sender: its signaled writes; receiver: the
//     receives they consumed).
// A closed comm releases its verbs objects at once but stays as a small shell until the engine goes, so a call
// on it is a clear error rather than a crash.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/qp_policy.h"
#include "net_plugin/transports/ib/ib_devices.h"
#include "net_plugin/transports/ib/ib_qp.h"
#include "net_plugin/transports/ib/ib_wire.h"
#include "net_plugin/transports/ib/ib_wr_id.h"
#include "net_plugin/transports/tcp_setup/tcp_socket.h"
#include "net_plugin/transports/transport.h"

namespace railtune::net::ib {

enum class IbCommKind : uint32_t { Send = 0x53424952, Recv = 0x52424952, Listen = 0x4c424952 };

struct IbCommBase {
  IbCommKind kind;
  void* object = nullptr;
  bool closed = false;
  int device = -1;
  std::string peer = "unknown";
  int qps = 0;
  std::array<std::byte, kPreambleBytes> peerPreamble{};
  Attachments attached{};
};

enum class IbRequestKind : uint8_t { Send, Recv, Flush };

struct IbRequestBase {
  IbRequestKind kind = IbRequestKind::Send;
  bool posted = false;  // handed to NCCL and not yet reported done
  void* owner = nullptr;
};

// A registered buffer as NCCL holds it (its mhandle).
struct IbRegion {
  IbPort* port = nullptr;
  IbvMr* mr = nullptr;
};

inline constexpr int kMaxInFlight = 32;          // NCCL_NET_MAX_REQUESTS: receives in flight per comm
inline constexpr int kSendQueueDepth = 512;      // NCCL's sender data QPs
inline constexpr int kRecvQueueDepth = 256;      // receives per QP (>= kMaxInFlight)
inline constexpr int kChainMax = kMaxRecvs + 2;  // WRs of one slot on one QP: data, sizes, the write-with-immediate
inline constexpr int kCtsSignalEvery = 32;       // receiver: one clear-to-send write in 32 is signaled
static_assert(kFifoDepth <= kWrSlotLimit && kMaxInFlight <= kWrSlotLimit, "a slot or flush index fits its wr_id bits");
static_assert(kMaxQps <= kWrQpLimit, "a QP index fits its wr_id bits");
static_assert(kCtsSignalEvery < kWrFreedLimit, "the entries a clear-to-send frees fit its wr_id bits");

// What both comms share: the port, the CQ, the QPs and how full each send queue is.
struct QpSet {
  IbPort* port = nullptr;
  IbvCq* cq = nullptr;
  int count = 0;
  std::array<IbvQp*, kMaxQps> qps{};
  std::array<int, kMaxQps> sqUsed{};  // WRs posted whose slot a polled completion has not freed yet
  int sqDepth = 0;
  int perMessage = 1;            // QPs each request uses: count when data is split, else 1
  size_t splitMinBytes = 0;      // sender: messages below this travel on one QP even when split
  bool adaptiveRouting = false;  // sender: NCCL_IB_ADAPTIVE_ROUTING as the policy decided
  size_t arThresholdBytes = 0;   // sender: NCCL_IB_AR_THRESHOLD
  size_t qpOf(uint64_t id, int i) const {
    return static_cast<size_t>((id * static_cast<uint64_t>(perMessage) + static_cast<uint64_t>(i)) %
                               static_cast<uint64_t>(count));
  }
  // The same walk for the data path's loops: one division per request, then a compare per QP.
  size_t firstQpOf(uint64_t id) const { return perMessage == count ? 0 : qpOf(id, 0); }
  size_t nextQp(size_t q) const { return q + 1 == static_cast<size_t>(count) ? 0 : q + 1; }
  FatalState fatal;  // CQ or QP errors (the async thread and the completions set it)
  uint32_t remoteQpn[kMaxQps] = {};
  int pathMtu = kIbvMtu4096;  // the smaller of both ports' active MTUs (IbvMtu)
  tcp_setup::Fd oob;          // the setup's TCP stream, kept to watch the peer
  uint64_t oobCheckedMs = 0;
  int indexOf(uint32_t qpn) const;
  // Of the request's QPs, those that carry bytes of a buffer of `bytes` (1..perMessage): as many as
  // 128-byte aligned chunks fill (common/qp_policy.h chunkBytesFor), one when not split or below splitMinBytes.
  int dataQpsFor(size_t bytes) const;
};

// Throws the connection's failure, or its port's, when either has been marked (by a completion in error or the
// async-event watcher): the first thing every data-path call does.
void throwIfFailed(const IbCommBase& base, const QpSet& set);
// Destroys the set's QPs, then its CQ, and closes the out-of-band stream (teardown of either comm). A verbs call that
// fails is appended to `failures` ("ibv_destroy_qp(QP 0x1a2b): Device or resource busy; ..."): the caller logs them
// once.
void releaseQpSet(const VerbsTable& verbs, QpSet& set, std::string& failures);

// The completion-queue entries a set of QPs needs so that an error flush, which completes every outstanding
// work request (unsignaled ones too), cannot overrun it: the sum of the QPs' send and receive queue depths.
int cqEntriesFor(int qps, int sendDepth, int recvDepth, int extra);

// While a request waits: at most every 100 ms, whether the peer's process is still there (its end of the
// out-of-band stream open). Throws NetError(Remote) when it closed: a peer that died mid-transfer.
void watchPeer(const IbCommBase& base, QpSet& set);

// Page-aligned, zeroed, registered control memory.
struct ControlMemory {
  std::byte* data = nullptr;
  size_t bytes = 0;
  IbvMr* mr = nullptr;
  void allocate(const VerbsTable& verbs, IbPort& port, size_t size, int access);
  void release(const VerbsTable& verbs, std::string& failures);
};

// A failure of this connection as the engine reports it: the HCA and port, the peer, what happened.
NetError connectionError(const IbCommBase& base, const QpSet& set, ErrorKind kind, const std::string& what);

// "IBV_WC_RETRY_EXC_ERR (12)" and what it usually means, for the WARN.
std::string completionStatusText(int status);

// Polls the set's CQ (up to 16 completions per call) and hands each good one to `handle`; a completion in
// error marks the connection failed and throws NetError(Remote) naming the status, the QP and the port.
template <typename Handle>
void pollCompletions(const VerbsTable& verbs, const IbCommBase& base, QpSet& set, Handle&& handle) {
  (void)verbs;
  IbvWc wc[16];
  const int n = set.cq->context->ops.pollCq(set.cq, 16, wc);
  if (n < 0) throw connectionError(base, set, ErrorKind::System, "ibv_poll_cq failed (" + std::to_string(n) + ")");
  for (int i = 0; i < n; ++i) {
    if (wc[i].status != kIbvWcSuccess) {
      const std::string what = "a work request on QP " + std::to_string(wc[i].qpNum) + " completed with " +
                               completionStatusText(wc[i].status);
      set.fatal.set(what);
      throw connectionError(base, set, ErrorKind::Remote, what);
    }
    handle(wc[i]);
  }
}

struct IbSendRequest : IbRequestBase {
  uint64_t id = 0;  // the FIFO index (head) this send belongs to
  int slot = 0;
  int index = 0;  // which buffer of the slot
  const std::byte* data = nullptr;
  size_t size = 0;
  int dataQps = 1;   // of the request's QPs, those that carry bytes of this buffer (common/qp_policy.h)
  size_t chunk = 0;  // bytes per data QP, 128-byte aligned
  uint32_t lkey = 0;
  bool matched = false;
  void* event = nullptr;
  void* profilerHandle = nullptr;
  std::array<void*, kMaxRecvs> qpEvents{};  // NCCL's IB descriptor per QP (at most 8, as NCCL keeps)
  int qpEventCount = 0;
};

class IbSendComm {
 public:
  explicit IbSendComm(const VerbsTable& verbs);
  IbCommBase base{IbCommKind::Send};
  QpSet set;
  ControlMemory control;  // the FIFO (kFifoDepth x kMaxRecvs elements), then the sizes source
  uint64_t remoteRecordsAddr = 0;
  uint32_t remoteRecordsRkey = 0;

  IbSendRequest* post(const void* data, size_t size, int tag, const IbRegion* region, void* profilerHandle);
  Completion test(IbSendRequest& request);
  std::string close();  // the teardown failures, "" when none

 private:
  struct Slot {
    int nreqs = 0;
    int matched = 0;
    int reported = 0;
    int pending = 0;  // QPs whose signaled write has not completed
    bool posted = false;
    std::array<uint8_t, kMaxQps> wrs{};  // WRs posted on each QP for this slot (at most kChainMax)
  };
  std::byte* fifoElement(int slot, int index) const;
  int32_t* sizesOf(int slot) const;
  void postSlot(int slot);
  int buildChain(int slot, int i, size_t q, IbvSendWr* wrs, IbvSge* sges);
  void startQpEvents(int slot, int i, uint64_t wrId, uint32_t qpNum);
  void progress();
  bool roomForChain();

  const VerbsTable& verbs_;
  uint64_t head_ = 0;
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<IbSendRequest[]> requests_;  // kFifoDepth x kMaxRecvs
  std::array<FifoElement, kMaxRecvs> elements_{};
};

struct IbRecvRequest : IbRequestBase {
  uint64_t id = 0;
  int slot = 0;
  int count = 0;
  int pending = 0;
  uint64_t written = 0;  // the sum of the QPs' immediates: data bytes the sender wrote for this request
  std::array<size_t, kMaxRecvs> capacity{};
  std::array<void*, kMaxRecvs> events{};
  std::array<void*, kMaxRecvs> qpEvents{};
  int qpEventCount = 0;
};

// Stops the per-QP profiler events of a request (they end with the request, as NCCL's ncclIbRequestComplete).
inline void stopQpEvents(TransferObserver* observer, std::array<void*, kMaxRecvs>& events, int& count) {
  for (int i = 0; i < count; ++i)
    if (events[static_cast<size_t>(i)] != nullptr) observer->stopped(events[static_cast<size_t>(i)]);
  count = 0;
}

struct IbFlushRequest : IbRequestBase {
  int pending = 0;
};

class IbRecvComm {
 public:
  explicit IbRecvComm(const VerbsTable& verbs);
  IbCommBase base{IbCommKind::Recv};
  QpSet set;
  ControlMemory control;  // the clear-to-send shadow (kFifoDepth x kMaxRecvs elements), then the size records
  uint64_t remoteFifoAddr = 0;
  uint32_t remoteFifoRkey = 0;
  // Flush: a loopback QP on the same port reading one byte (NCCL's iflush), when GPU memory needs it.
  IbvQp* flushQp = nullptr;
  ControlMemory flushTarget;
  IbFlushRequest doneFlush{{IbRequestKind::Flush, false, this}};

  IbRecvRequest* post(std::span<const RecvBuffer> buffers);
  IbFlushRequest* flush(std::span<const RecvBuffer> buffers);
  Completion test(IbRecvRequest& request);
  Completion testFlush(IbFlushRequest& request);
  std::string close();  // the teardown failures, "" when none

  static size_t shadowBytes() { return kFifoDepth * kMaxRecvs * kFifoElementBytes; }

 private:
  void progress();
  void postReceives(IbRecvRequest& request, int slot, std::span<const RecvBuffer> buffers);
  void postClearToSend(int slot, int count);
  size_t groupedSizes(const IbRecvRequest& request, Completion& done) const;
  const VerbsTable& verbs_;
  uint64_t head_ = 0;
  int inFlight_ = 0;
  int ctsUnsignaled_ = 0;
  std::unique_ptr<IbRecvRequest[]> requests_;  // by slot
  std::array<IbFlushRequest, kMaxInFlight> flushes_{};
};

}  // namespace railtune::net::ib
