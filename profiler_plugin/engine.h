// The profiler engine interface, in railtune's own types: the adapters convert NCCL's per-version
// event descriptors into EventDescriptor; the engine never sees an NCCL struct.
// startEvent/stopEvent/recordEventState run on NCCL's hot paths (application, proxy and net
// threads concurrently): no allocation on the way in, no process-wide lock, no I/O.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/log.h"

namespace railtune::profiler {

// Event kinds; the values are NCCL's activation-mask bits.
enum class EventType : uint64_t {
  Group = 1ULL << 0,
  Coll = 1ULL << 1,
  P2p = 1ULL << 2,
  ProxyOp = 1ULL << 3,
  ProxyStep = 1ULL << 4,
  ProxyCtrl = 1ULL << 5,
  KernelCh = 1ULL << 6,
  NetPlugin = 1ULL << 7,
  GroupApi = 1ULL << 8,
  CollApi = 1ULL << 9,
  P2pApi = 1ULL << 10,
  KernelLaunch = 1ULL << 11,
  CeColl = 1ULL << 12,
  CeSync = 1ULL << 13,
  CeBatch = 1ULL << 14,
  KernelPhase = 1ULL << 15,  // v7: one barrier phase of a kernel channel, under its KernelCh
};
using EventMask = uint64_t;  // OR of EventType values

// NCCL's event-state codes (one numbering for every ABI version), kept as numbers: engines compare
// them with the named constants below.
enum class EventState : int {
  ProxyOpSendPosted = 0,
  ProxyOpRecvDone = 7,
  ProxyStepSendGpuWait = 8,
  ProxyStepSendWait = 9,
  ProxyStepRecvWait = 10,
  ProxyStepRecvFlushWait = 11,
  ProxyStepRecvGpuWait = 12,
  ProxyCtrlIdle = 13,
  ProxyCtrlActive = 14,
  ProxyCtrlSleep = 15,
  ProxyCtrlWakeup = 16,
  ProxyCtrlAppend = 17,
  ProxyCtrlAppendEnd = 18,
  ProxyOpInProgress = 19,
  ProxyStepSendPeerWait = 20,
  NetPluginUpdate = 21,
  KernelChStop = 22,
  GroupStartApiStop = 23,
  GroupEndApiStart = 24,
  CeCollStart = 25,
  CeBatchComplete = 30,
  KernelPhaseStop = 31,  // v7: StateArgs::pTimer is the phase's end
};

struct CommInfo {
  std::optional<uint64_t> commId;  // v4+
  std::string commName;            // v4+; empty when NCCL gave none
  std::optional<int> nNodes, nRanks, rank;
};

// What an engine may read about an event. Fields an ABI version lacks stay zero/NULL.
struct EventDescriptor {
  EventType type = EventType::Group;
  void* parent = nullptr;  // the parent event's handle as NCCL passed it (ours, or NULL)
  int rank = -1;
  struct {
    uint64_t seqNumber = 0;
    const char* func = nullptr;
    size_t count = 0;
    int root = -1;
    const char* datatype = nullptr;
    int nChannels = 0;
    int nWarps = 0;
    const char* algo = nullptr;
    const char* proto = nullptr;
    const char* kernelVariant = nullptr;  // v7: the symmetric kernel, NULL when none
    bool isSymColl = false;               // v7
    uint64_t userTag = 0;                 // v7: the application's tag (0: untagged)
  } coll;
  struct {
    const char* func = nullptr;
    size_t count = 0;
    const char* datatype = nullptr;
    int peer = -1;
    int nChannels = 0;
    uint64_t userTag = 0;  // v7
  } p2p;
  struct {
    pid_t pid = 0;  // with PXN not always this process: never dereference a foreign parent
    int channelId = -1;
    int peer = -1;
    int nSteps = 0;
    int chunkSize = 0;
    bool isSend = false;
  } proxyOp;
  struct {
    int step = -1;
  } proxyStep;
  struct {
    int channelId = -1;
    uint64_t pTimer = 0;
  } kernelCh;
  struct {
    int64_t id = 0;
    void* data = nullptr;
  } netPlugin;
  struct {  // v6+: a copy-engine collective
    uint64_t seqNumber = 0;
    const char* func = nullptr;
    size_t count = 0;
    int root = -1;
    const char* datatype = nullptr;
    uint64_t userTag = 0;  // v7
  } ceColl;
  struct {  // v7
    int channelId = -1;
    int phaseId = -1;  // 0 initial_sync, 1 compute, 2 final_sync; NCCL may add more
    uint64_t pTimer = 0;
  } kernelPhase;
};

// The arguments of a state change; only the member that fits the state is set.
struct StateArgs {
  size_t transSize = 0;      // ProxyStep (v4+), ProxyOp (v1..v3)
  int steps = 0;             // ProxyOp (v1..v3)
  int appendedProxyOps = 0;  // ProxyCtrl append states
  void* netPluginData = nullptr;
  uint64_t pTimer = 0;  // KernelCh stop, KernelPhase stop (v7)
};

class Engine;

// Every handle an engine returns starts with this, so that stopEvent/recordEventState (which get
// only the handle) reach the engine that made it.
struct Event {
  Engine* engine = nullptr;
};

// One engine per communicator. Methods may throw; the boundary contains every exception.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  virtual EventMask activationMask() const = 0;
  virtual Event* startEvent(const EventDescriptor& descr) = 0;  // NULL: not recorded
  virtual void stopEvent(Event* event) = 0;
  virtual void recordEventState(Event* event, EventState state, const StateArgs& args) = 0;
};

// Records nothing: mask 0, so NCCL generates no events (tests of the boundary).
class NullEngine final : public Engine {
 public:
  const char* name() const override { return "none"; }
  EventMask activationMask() const override { return 0; }
  Event* startEvent(const EventDescriptor&) override { return nullptr; }
  void stopEvent(Event*) override {}
  void recordEventState(Event*, EventState, const StateArgs&) override {}
};

// The communicator's engine (engine.cc): its event capture, the process's writers and watchdog.
// abiVersion: the profiler ABI NCCL bound (which events exist).
std::unique_ptr<Engine> makeEngine(const CommInfo& comm, int abiVersion, const Log& log);

}  // namespace railtune::profiler
