// The simulator's objects and its one per-process state. Every ABI object the caller sees (IbvContext,
// IbvPd, IbvMr, IbvCq, IbvQp, IbvDevice) is the first member of a simulator object, so a pointer the caller
// hands back converts to ours; it is accepted only while it is in the live set of its kind, which turns a
// dangling, foreign or NULL pointer into EINVAL instead of a crash.
//
// One mutex (Sim::mu) guards everything: the posting threads, the pollers and the agent thread (sim_agent.h)
// all take it. The simulator favours being obviously free of races (TSan) over throughput; the hot calls
// still allocate nothing (the queues are rings sized at creation) and make no system call except the
// agent's wake-up when it sleeps.
#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "emulator/verbs_sim/sim_fabric.h"
#include "net_plugin/transports/ib/verbs_abi.h"

namespace railtune::verbs_sim {

namespace ib = railtune::net::ib;

struct Context;
struct Qp;
struct Cq;

struct Device {
  ib::IbvDevice abi{};  // first: the caller's IbvDevice* is ours
  int index = 0;        // in the host's device list
  const SimDeviceDesc* desc = nullptr;
};

struct Context {
  ib::IbvContext abi{};
  Device* device = nullptr;
  int asyncPipe[2] = {-1, -1};  // [0] is abi.asyncFd: one byte per queued event
  std::deque<ib::IbvAsyncEvent> events;
  int objects = 0;  // PDs and CQs still open on it
};

struct Pd {
  ib::IbvPd abi{};
  Context* context = nullptr;
  int mrs = 0;
  int qps = 0;
};

struct Mr {
  ib::IbvMr abi{};
  Pd* pd = nullptr;
  uint8_t* host = nullptr;  // where iova maps to in this process
  uint64_t iova = 0;
  uint64_t length = 0;
  unsigned access = 0;
  void* mapped = nullptr;  // a mapped dma-buf, unmapped at dereg
  size_t mappedLength = 0;
};

// One completion and what polling it retires: the send queue up to and including wrIndex, or one receive.
struct CqEntry {
  ib::IbvWc wc;
  Qp* qp;
  uint64_t wrIndex;
  bool recv;
};

struct Cq {
  ib::IbvCq abi{};
  Context* context = nullptr;
  std::vector<CqEntry> ring;  // capacity = cqe
  size_t head = 0;            // next to poll
  size_t count = 0;
  bool overrun = false;  // IBV_EVENT_CQ_ERR raised: the CQ is unusable
  int users = 0;         // QPs using it
  uint32_t eventsReported = 0;
  // poll_cq's lock-free answer "nothing there": a poller spinning on an empty CQ (NCCL's progress thread)
  // must not keep the agent from the lock. `available` mirrors count (all ones after an overrun, to send the
  // poller to the locked path); a destroyed CQ keeps its memory (Sim::retiredCqs) with live = 0, so the
  // unlocked read is never of freed memory.
  std::atomic<uint32_t> live{0};
  std::atomic<size_t> available{0};
};
constexpr uint32_t kLiveCq = 0x4c495645;
constexpr int kMaxCqe = 4194303;  // the device's max_cqe
constexpr int kCompVectors = 32;  // completion vectors per context

struct SendSlot {
  uint64_t wrId = 0;
  int opcode = 0;
  unsigned flags = 0;
  bool signaled = false;
  uint32_t imm = 0;
  uint64_t remoteAddr = 0;
  uint32_t rkey = 0;
  uint32_t length = 0;  // total bytes
  int numSge = 0;
  bool isInline = false;
  bool done = false;
};

struct RecvSlot {
  uint64_t wrId = 0;
  int numSge = 0;
};

struct QpStats {
  uint64_t bytesSent = 0, bytesReceived = 0, wrsPosted = 0, wrsCompleted = 0, packetsSent = 0, packetsReceived = 0,
           retries = 0, rnrNaks = 0;
};

struct Qp {
  ib::IbvQp abi{};
  Context* context = nullptr;
  Pd* pd = nullptr;
  Cq* sendCq = nullptr;
  Cq* recvCq = nullptr;
  ib::IbvQpCap cap{};
  bool sigAll = false;
  int state = ib::kIbvQpsReset;  // the real state; abi.state is what the caller last set or queried
  uint64_t guid = 0;             // the device's node GUID: with qpn, the QP's address
  std::string registryFile;

  // Attributes (ibv_modify_qp).
  int port = 0;
  uint16_t pkeyIndex = 0;
  unsigned access = 0;
  int pathMtu = 0;
  uint32_t destQpn = 0, rqPsn = 0, sqPsn = 0;
  ib::IbvAhAttr ah{};
  uint8_t maxDestRdAtomic = 0, maxRdAtomic = 0, minRnrTimer = 0, timeout = 0, retryCnt = 0, rnrRetry = 0;

  // The send queue: a ring of cap.maxSendWr slots indexed by a running WR index.
  std::vector<SendSlot> sq;
  std::vector<ib::IbvSge> sqSges;  // maxSendSge per slot
  std::vector<uint8_t> sqInline;   // maxInlineData per slot
  uint64_t sqHead = 0;             // WRs posted
  uint64_t sqRetired = 0;          // slots freed by polled completions
  uint64_t ackNext = 0;            // the oldest WR not yet completed
  uint64_t sendNext = 0;           // the next WR to transmit
  uint64_t sentHigh = 0;           // one past the highest WR transmitted since RTS
  uint64_t psnBase = 0;            // the WR index whose PSN is sqPsn
  std::chrono::steady_clock::time_point lastProgress{};
  std::chrono::steady_clock::time_point rnrResume{};
  int retriesLeft = 0, rnrLeft = 0;

  // The receive queue.
  std::vector<RecvSlot> rq;
  std::vector<ib::IbvSge> rqSges;
  uint64_t rqHead = 0, rqConsumed = 0, rqRetired = 0;

  // The responder side.
  uint32_t expectedPsn = 0;

  // The peer, resolved from the address vector at RTR.
  uint64_t peerGuid = 0;
  std::string peerSocket;  // "" until the registry names it

  uint32_t eventsReported = 0;
  QpStats stats;
};

// One scheduled fault of RAILTUNE_VERBS_SIM_FAULTS.
struct ScheduledFault {
  std::chrono::steady_clock::time_point at;
  std::string command;
};

struct Agent;

constexpr uint64_t kDefaultSeed = 0x5eed;  // of the shuffles and key salts, without RAILTUNE_VERBS_SIM_SEED

struct Sim {
  std::mutex mu;
  bool initialised = false;
  std::string initError;
  SimFabric fabric;
  int host = 0;
  std::vector<std::unique_ptr<Device>> devices;
  std::map<std::pair<uint64_t, int>, bool> portDown;  // (guid, port) -> down, over the description

  std::set<const void*> contexts, pds, mrs, cqs, qps;
  std::vector<std::unique_ptr<Cq>> retiredCqs;  // destroyed CQs' shells (Cq::live)
  std::unordered_map<uint32_t, Mr*> mrByKey;
  std::map<std::pair<uint64_t, uint32_t>, Qp*> qpByAddress;  // (guid, qpn)
  std::vector<Qp*> qpList;                                   // the agent's scan order
  uint32_t nextKey = 0x1000;
  std::map<uint64_t, uint32_t> nextQpn;  // per device guid

  // Settings (control API and environment).
  double timeScale = 1.0;
  bool adversarial = false;
  bool dropAcks = false;
  std::string dir;  // RAILTUNE_VERBS_SIM_DIR
  std::mt19937_64 rng{kDefaultSeed};
  std::vector<ScheduledFault> faults;

  Agent* agent = nullptr;
  uint64_t posts = 0;  // wakeAgent calls: the agent rescans when it changed while it did not hold the lock
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();  // faults count from here

  // The protocol clock (ACK timeouts, RNR waits): the steady clock, or stopped and stepped by the control
  // commands `clock stop|step|run`, so that a test, not the machine's speed, decides when a timer fires.
  bool clockStopped = false;
  std::chrono::steady_clock::time_point clockStoppedAt{};  // protocol time while stopped
  std::chrono::steady_clock::duration clockBehind{};       // protocol time = steady clock - this, while it runs
  uint64_t clockSteps = 0;                                 // `clock step` commands so far
  uint64_t clockStepsSeen = 0;                             // the last of them the agent has run its timers at
  std::condition_variable clockSeen;

  // Devices of a fabric forgotten by `reset`: kept (never freed), so that a device pointer from an earlier
  // ibv_get_device_list is refused (EINVAL) rather than dangling.
  std::vector<std::unique_ptr<Device>> retiredDevices;
};

// The process's simulator, created on first use (never destroyed: the agent thread may outlive static
// destruction order; an exit handler stops it and removes its files).
Sim& sim();
// Reads the fabric and host once. Caller holds sim().mu. False with sim().initError when the description
// is bad.
bool ensureInitialised(Sim& s);

// errno set to `error`, as the verbs that fail through errno do: returns `error`, or nullptr.
inline int fail(int error) {
  errno = error;
  return error;
}
template <typename T>
T* failNull(int error) {
  errno = error;
  return nullptr;
}

// --- helpers shared by the files, all called with sim().mu held ------------------------------------------
template <typename T>
T* live(const std::set<const void*>& set, const void* p) {
  return p != nullptr && set.count(p) != 0 ? static_cast<T*>(const_cast<void*>(p)) : nullptr;
}
const SimPortDesc* portOf(const Device& device, int port);
bool portIsUp(Sim& s, const Device& device, int port);
void queueEvent(Context* context, const ib::IbvAsyncEvent& event);
// A completion into a CQ; an overrun marks the CQ unusable, raises IBV_EVENT_CQ_ERR and moves the QPs using
// it to ERR.
void pushCompletion(Sim& s, Cq* cq, const CqEntry& entry);
// The QP's completions out of the CQ (a QP reset or destroyed), the others kept in order.
void purgeCompletions(Cq* cq, const Qp* qp);
// The QP to ERR: outstanding send WRs from ackNext complete with `status` (the first) and WR_FLUSH_ERR (the
// rest); posted receives are flushed.
void moveToError(Sim& s, Qp* qp, int firstStatus);
void flushReceives(Sim& s, Qp* qp);
void completeSend(Sim& s, Qp* qp, uint64_t index, int status, uint32_t byteLen);
uint32_t psnOf(const Qp* qp, uint64_t index);
double scaledSeconds(const Sim& s, double realSeconds);
// Starts the agent if needed; false (errno set) without a rendezvous directory.
bool ensureAgent(Sim& s);
// Stops this process's agent thread and removes its socket (`reset`); `lock` holds sim().mu and is released
// while the thread is joined.
void stopAgent(Sim& s, std::unique_lock<std::mutex>& lock);
// Now on the protocol clock (Sim::clockStopped).
std::chrono::steady_clock::time_point protocolNow(const Sim& s);
void wakeAgent(Sim& s);
// In a forked child (called with the lock held): the parent's agent thread does not exist here, so its
// sockets are closed and a new agent starts with the child's first QP. Inherited QPs are unusable (as with
// real verbs after fork) and no longer own their registry files, which stay the parent's.
void forgetAgentInChild(Sim& s);
std::string agentSocketPath(Sim& s);
std::string registryPath(const Sim& s, uint64_t guid, uint32_t qpn);
// Applies one control command (sim_control.cc); "" on success, else the reason.
std::string applyControl(Sim& s, const std::string& command);

}  // namespace railtune::verbs_sim
