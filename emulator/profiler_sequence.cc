// ProfilerSequence: NCCL's profiler call sites (src/plugin/profiler.cc, enqueue.cc, group.cc, proxy.cc,
// transport/net.cc, transport/profiler.cc) replayed in order for one group of operations.
#include "emulator/profiler_sequence.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "formats/net_event.h"

namespace railtune::emu {

struct ProfilerSequence::Flow {
  const ProxyFlow* spec = nullptr;
  void* op = nullptr;                          // ProxyOp
  std::vector<void*> steps;                    // ProxyStep per step
  std::vector<void*> net;                      // NetPlugin per step (NULL when not started)
  std::vector<ProxyEventHandle> proxyHandles;  // per step: the phandle a real net plugin gets
};

struct ProfilerSequence::Task {
  const EmulatedOperation* op = nullptr;
  void* groupApi = nullptr;  // the GroupApi handle when the call was made
  void* api = nullptr;       // CollApi / P2pApi
  void* task = nullptr;      // Coll / P2p
  std::vector<Flow> flows;
  std::vector<void*> kernelCh;        // per channel
  std::vector<uint64_t> kernelStart;  // per channel: its KernelCh's GPU start
  bool self = false;                  // a Send/Recv with the rank itself: no proxy op, no kernel channel events
  bool aborted = false;               // the job was aborted under it: its events stay open
  bool stalled() const { return op->stallAtStep >= 0; }
  bool stepDone(int step) const { return !stalled() || step < op->stallAtStep; }
  bool stepPosted(int step) const { return step < op->nSteps && (!stalled() || step <= op->stallAtStep); }
};

ProfilerSequence::ProfilerSequence(ProfilerDriver& driver, int rank)
    : driver_(driver), rank_(rank), pid_(static_cast<int>(getpid())) {}

void* ProfilerSequence::start(ncclProfilerEventDescr_v7_t& descr) {
  void* handle = nullptr;
  if (driver_.startEvent(&descr, &handle) != ncclSuccess) ++stats_.failures;
  ++stats_.starts;
  if (handle != nullptr) ++stats_.handles;
  return handle;
}

void ProfilerSequence::stop(void* handle) {
  if (driver_.stopEvent(handle) != ncclSuccess) ++stats_.failures;
  ++stats_.stops;
}

void ProfilerSequence::state(void* handle, ncclProfilerEventState_t s, const ncclProfilerEventStateArgs_v7_t* args) {
  ncclProfilerEventStateArgs_v7_t copy{};
  if (args != nullptr) copy = *args;
  if (driver_.recordEventState(handle, s, args != nullptr ? &copy : nullptr) != ncclSuccess) ++stats_.failures;
  ++stats_.states;
}

SequenceStats ProfilerSequence::run(std::span<const EmulatedOperation> group) {
  stats_ = {};
  std::vector<Task> tasks(group.size());
  for (size_t i = 0; i < group.size(); ++i) {
    tasks[i].op = &group[i];
    tasks[i].self = group[i].p2p && group[i].peer == rank_;
  }
  int groupDepth = 0;
  const bool userGroup = group.size() > 1;
  if (userGroup) ++groupDepth;  // ncclGroupStart
  for (Task& task : tasks) {
    apiCall(task, groupDepth);
    groupEnd(groupDepth, tasks);  // every call closes its implicit group; the last level launches
  }
  if (userGroup) groupEnd(groupDepth, tasks);  // ncclGroupEnd
  proxy(tasks);
  return stats_;
}

// ncclEnqueueCheck and taskAppend: the implicit group around each call, the outermost GroupApi
// event, and the call's own CollApi/P2pApi event, stopped when the call returns.
void ProfilerSequence::apiCall(Task& task, int& groupDepth) {
  if (profilerGroupDepth_ > 0) ++profilerGroupDepth_;
  ++groupDepth;  // ncclGroupStartInternal
  // NCCL tracks the outermost group only while the mask asks for an event at or below GroupApi.
  if (profilerGroupDepth_ == 0 && profilerEventWanted(ncclProfileGroupApi, driver_.activationMask())) {
    ncclProfilerEventDescr_v7_t d{};
    d.type = ncclProfileGroupApi;
    d.groupApi.groupDepth = groupDepth;
    groupApi_ = start(d);
    profilerGroupDepth_ = groupDepth;
    groupApiState_ = 1;
  }
  if (groupApiState_ == 1) {
    groupApiState_ = 2;
    if (groupApi_ != nullptr) state(groupApi_, ncclProfilerGroupStartApiStop, nullptr);
  }
  const EmulatedOperation& op = *task.op;
  ncclProfilerEventDescr_v7_t d{};
  d.parentObj = groupApi_;
  if (op.p2p) {
    d.type = ncclProfileP2pApi;
    d.p2pApi = {op.func.c_str(), op.count, op.datatype.c_str(), nullptr, false, v231() ? op.userTag : 0};
  } else {
    d.type = ncclProfileCollApi;
    d.collApi = {op.func.c_str(), op.count, op.datatype.c_str(), op.root, nullptr, false, v231() ? op.userTag : 0};
  }
  task.groupApi = groupApi_;
  task.api = start(d);
  if (task.api != nullptr) stop(task.api);
}

// ncclGroupEndInternal: the GroupEndApiStart state when the outermost group closes, the launch when
// the last level closes, and the GroupApi stop on the way out.
void ProfilerSequence::groupEnd(int& groupDepth, std::vector<Task>& tasks) {
  if (profilerGroupDepth_ > 0) --profilerGroupDepth_;
  if (profilerGroupDepth_ == 0 && groupApiState_ == 2) {
    groupApiState_ = 0;
    if (groupApi_ != nullptr) state(groupApi_, ncclProfilerGroupEndApiStart, nullptr);
  }
  if (--groupDepth == 0) launch(tasks);
  if (groupApi_ != nullptr && profilerGroupDepth_ == 0) {
    stop(groupApi_);
    groupApi_ = nullptr;
  }
}

// ncclLaunchKernel then hostStreamPlanTask: KernelLaunch, the Group event, the task events (the
// plan's collectives first, then its P2p operations), stopped once the proxy ops are handed over.
void ProfilerSequence::launch(std::vector<Task>& tasks) {
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileKernelLaunch;
  d.parentObj = tasks.front().groupApi;
  if (void* kernelLaunch = start(d)) stop(kernelLaunch);

  ncclProfilerEventDescr_v7_t g{};
  g.type = ncclProfileGroup;
  void* group = start(g);
  std::vector<Task*> plan;
  for (Task& t : tasks) {
    if (!t.op->p2p) plan.push_back(&t);
  }
  for (Task& t : tasks) {
    if (t.op->p2p) plan.push_back(&t);
  }
  for (Task* t : plan) {
    if (t->op->taskEvent && (!t->op->symmetric || v231())) startTask(*t, group);
  }
  for (Task* t : plan) {
    if (t->task != nullptr && !t->op->stopTaskLast) stop(t->task);
  }
  if (group != nullptr) stop(group);
}

void ProfilerSequence::startTask(Task& task, void* group) {
  const EmulatedOperation& op = *task.op;
  ncclProfilerEventDescr_v7_t d{};
  d.parentObj = task.api;
  d.rank = rank_;
  if (op.p2p) {
    d.type = ncclProfileP2p;
    d.p2p.func = op.func.c_str();
    d.p2p.count = op.count;
    d.p2p.datatype = op.datatype.c_str();
    d.p2p.peer = op.peer;
    d.p2p.nChannels = static_cast<uint8_t>(op.announcedChannels >= 0 ? op.announcedChannels : op.nChannels);
    d.p2p.parentGroup = group;
    d.p2p.userTag = v231() ? op.userTag : 0;
  } else {
    d.coll.parentGroup = group;
    setCollDescriptor(op, d);
  }
  task.task = start(d);
}

// ncclProfilerStartTaskEvents: a symmetric kernel's Coll event names the kernel (2.31).
void ProfilerSequence::setCollDescriptor(const EmulatedOperation& op, ncclProfilerEventDescr_v7_t& d) {
  d.type = ncclProfileColl;
  d.coll.seqNumber = seqNumbers_[op.func]++;  // counted whether or not the event is recorded
  d.coll.func = op.func.c_str();
  d.coll.count = op.count;
  d.coll.root = op.root;
  d.coll.datatype = op.datatype.c_str();
  d.coll.nChannels = static_cast<uint8_t>(op.announcedChannels >= 0 ? op.announcedChannels : op.nChannels);
  d.coll.nWarps = static_cast<uint8_t>(op.nWarps);
  d.coll.algo = op.algo.c_str();
  d.coll.proto = op.proto.c_str();
  if (!v231()) return;
  d.coll.userTag = op.userTag;
  d.coll.isSymColl = op.symmetric;
  if (op.symmetric) {
    const char* variant = op.kernelVariant.c_str();
    const char* underscore = std::strchr(variant, '_');
    d.coll.kernelVariant = variant;
    d.coll.algo = underscore != nullptr ? underscore + 1 : variant;
    d.coll.proto = "";
  }
}

// The proxy thread: each ProxyOp starts when its op is appended, the profiler's own proxy op
// starts each channel's KernelCh when the kernel reaches it, then every step of every op is posted
// before any completes (several steps in flight across channels, as NCCL's progress loop leaves them),
// and the ops and channels stop last. A stalled operation stops at its stall step.
void ProfilerSequence::proxy(std::vector<Task>& tasks) {
  int maxSteps = 0;
  for (Task& task : tasks) {
    if (!task.op->taskEvent || task.self || (task.op->symmetric && !v231())) continue;  // no proxy op of any kind
    task.flows.resize(task.op->flows.size());
    for (size_t i = 0; i < task.flows.size(); ++i) {
      task.flows[i].spec = &task.op->flows[i];
      startProxyOp(task, task.flows[i]);
    }
    maxSteps = std::max(maxSteps, task.op->nSteps);
  }
  for (Task& task : tasks) {
    if (task.op->taskEvent && !task.self && (!task.op->symmetric || v231())) startKernelChannels(task);
  }
  for (Task& task : tasks) {
    for (Flow& flow : task.flows) {
      if (flow.op != nullptr) state(flow.op, ncclProfilerProxyOpInProgress_v4, nullptr);
    }
  }
  for (int step = 0; step < maxSteps; ++step) {
    for (Task& task : tasks) {
      for (Flow& flow : task.flows) {
        if (!task.aborted && task.stepPosted(step)) postStep(task, flow, step);
      }
    }
    for (Task& task : tasks) {
      for (Flow& flow : task.flows) {
        if (!task.aborted && task.stepPosted(step) && task.stepDone(step) && !completeStep(task, flow, step)) {
          task.aborted = true;
        }
      }
    }
  }
  for (Task& task : tasks) finishTask(task);
  for (Task& task : tasks) {
    if (task.task != nullptr && task.op->stopTaskLast && !task.aborted) stop(task.task);
  }
}

void ProfilerSequence::startProxyOp(Task& task, Flow& flow) {
  const ProxyFlow& spec = *flow.spec;
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileProxyOp;
  d.parentObj = task.task;
  d.rank = rank_;
  d.proxyOp.pid = pid_;
  d.proxyOp.channelId = static_cast<uint8_t>(spec.channel);
  d.proxyOp.peer = spec.peer;
  d.proxyOp.nSteps = task.op->nSteps;
  d.proxyOp.chunkSize = task.op->chunkSize;
  d.proxyOp.isSend = spec.send ? 1 : 0;
  flow.op = start(d);
  flow.steps.assign(static_cast<size_t>(task.op->nSteps), nullptr);
  flow.net.assign(static_cast<size_t>(task.op->nSteps), nullptr);
  flow.proxyHandles.assign(static_cast<size_t>(task.op->nSteps), ProxyEventHandle{});
}

void ProfilerSequence::startKernelChannels(Task& task) {
  task.kernelCh.assign(static_cast<size_t>(task.op->nChannels), nullptr);
  task.kernelStart.assign(static_cast<size_t>(task.op->nChannels), 0);
  for (int c = 0; c < task.op->nChannels; ++c) {
    ncclProfilerEventDescr_v7_t d{};
    d.type = ncclProfileKernelCh;
    d.parentObj = task.task;
    d.rank = rank_;
    d.kernelCh.channelId = static_cast<uint8_t>(c);
    d.kernelCh.pTimer = gpuClockNs_ += 1000;
    task.kernelStart[static_cast<size_t>(c)] = d.kernelCh.pTimer;
    task.kernelCh[static_cast<size_t>(c)] = start(d);
  }
}

// transport/net.cc: a send step waits for the GPU, then for the peer (v4+), then on the network;
// a receive step is posted to the network at once. The net plugin's event starts inside
// isend/irecv, under the step.
void ProfilerSequence::postStep(Task& task, Flow& flow, int step) {
  const size_t i = static_cast<size_t>(step);
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileProxyStep;
  d.parentObj = flow.op;
  d.rank = rank_;
  d.proxyStep.step = step;
  flow.steps[i] = start(d);
  void* handle = flow.op != nullptr ? flow.steps[i] : nullptr;  // NCCL records states only under a ProxyOp
  ncclProfilerEventStateArgs_v7_t args{};
  args.proxyStep.transSize = static_cast<size_t>(task.op->chunkSize);
  if (flow.spec->send) {
    if (handle != nullptr) state(handle, ncclProfilerProxyStepSendGPUWait, &args);
    if (handle != nullptr) state(handle, ncclProfilerProxyStepSendPeerWait_v4, &args);
    postTransfer(flow, step, args.proxyStep.transSize);
    if (handle != nullptr) state(handle, ncclProfilerProxyStepSendWait, &args);
  } else {
    postTransfer(flow, step, args.proxyStep.transSize);
    if (handle != nullptr) state(handle, ncclProfilerProxyStepRecvWait, &args);
  }
}

// test() reports the transfer done (the net plugin stops its event), a receive is flushed and handed
// to the GPU, and the step stops.
bool ProfilerSequence::completeStep(Task& task, Flow& flow, int step) {
  const size_t i = static_cast<size_t>(step);
  if (transfers_ != nullptr) {
    if (!transfers_->complete(*flow.spec, step)) return false;  // the plugin stops its own event inside test()
  } else if (flow.net[i] != nullptr) {
    stop(flow.net[i]);  // railtune's net plugin stops only what started
  }
  void* handle = flow.op != nullptr ? flow.steps[i] : nullptr;
  ncclProfilerEventStateArgs_v7_t args{};
  args.proxyStep.transSize = static_cast<size_t>(task.op->chunkSize);
  if (!flow.spec->send && handle != nullptr) {
    state(handle, ncclProfilerProxyStepRecvFlushWait, &args);
    state(handle, ncclProfilerProxyStepRecvGPUWait, &args);
  }
  if (flow.steps[i] != nullptr) stop(flow.steps[i]);
  return true;
}

// isend/irecv: through the real net plugin when one carries the steps, else railtune's event made here.
void ProfilerSequence::postTransfer(Flow& flow, int step, size_t bytes) {
  const size_t i = static_cast<size_t>(step);
  if (transfers_ == nullptr) {
    flow.net[i] = netEvent(flow, flow.steps[i], bytes);
    return;
  }
  flow.proxyHandles[i] = ProxyEventHandle{flow.steps[i], rank_};
  transfers_->post(*flow.spec, step, bytes, &flow.proxyHandles[i]);
}

// NCCL's ncclProfilerCallback(Start) for railtune's net plugin: a NetPlugin event under the step,
// carrying railtune's descriptor, valid during the call only.
void* ProfilerSequence::netEvent(Flow& flow, void* stepHandle, size_t bytes) {
  const NetNic& nic = flow.spec->nic;
  railtuneNetEventDescr_v1_t event{};
  event.type = flow.spec->send ? railtuneNetEventSend : railtuneNetEventRecv;
  event.connection = nic.connection;
  event.device = nic.device;
  event.hca = nic.hca.c_str();
  event.netdev = nic.netdev.c_str();
  event.rail = nic.rail;
  event.plane = nic.plane;
  event.peerHost = nic.peerHost.c_str();
  event.peerRank = flow.spec->peer;
  event.bytes = bytes;
  ncclProfilerEventDescr_v7_t d{};
  d.type = ncclProfileNetPlugin;
  d.parentObj = stepHandle;
  d.rank = rank_;
  d.netPlugin.id = RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION;
  d.netPlugin.data = &event;
  return start(d);
}

// The ops stop when their last step is done; the kernel's channels after them, with the GPU timer.
// A stalled operation leaves all of these open, as a hung collective does.
void ProfilerSequence::finishTask(Task& task) {
  if (task.stalled() || task.aborted) return;
  if (transfers_ != nullptr && !task.kernelCh.empty() && !transfers_->kernelEnded()) {
    task.aborted = true;
    return;
  }
  for (Flow& flow : task.flows) {
    if (flow.op != nullptr) stop(flow.op);
  }
  for (size_t c = 0; c < task.kernelCh.size(); ++c) {
    void* channel = task.kernelCh[c];
    if (channel == nullptr) continue;
    const uint64_t phasesEnd = kernelPhases(task, c);
    ncclProfilerEventStateArgs_v7_t args{};
    gpuClockNs_ = std::max(gpuClockNs_ + 50000, phasesEnd);
    args.kernelCh.pTimer = gpuClockNs_;
    state(channel, ncclProfilerKernelChStop, &args);
    stop(channel);
  }
}

// profilerFireKernelPhaseEvents (2.31): per phase with a non-zero duration, a KernelPhase start under the
// channel's KernelCh (GPU start in the descriptor), its KernelPhaseStop state (GPU end in kernelCh.pTimer),
// its stop; from the channel's start on. Returns the last phase's end (0: none).
uint64_t ProfilerSequence::kernelPhases(Task& task, size_t channel) {
  const EmulatedOperation& op = *task.op;
  if (!v231() || op.phaseNs.empty()) return 0;
  static constexpr const char* kNames[] = {"initial_sync", "compute", "final_sync"};
  const std::array<uint64_t, 3>& ns = op.phaseNs[channel % op.phaseNs.size()];
  uint64_t at = task.kernelStart[channel];
  for (size_t i = 0; i < ns.size(); ++i) {
    if (ns[i] == 0) continue;  // "skip zero-duration (synthesized) boundary"
    ncclProfilerEventDescr_v7_t d{};
    d.type = ncclProfileKernelPhase;
    d.parentObj = task.kernelCh[channel];
    d.rank = 0;  // NCCL leaves it unset
    d.kernelPhase.channelId = static_cast<uint8_t>(channel);
    d.kernelPhase.phaseId = static_cast<uint8_t>(i < op.phaseIds.size() ? op.phaseIds[i] : static_cast<int>(i));
    d.kernelPhase.phaseName = kNames[i];
    d.kernelPhase.pTimer = at;
    at += ns[i];
    if (void* phase = start(d)) {
      ncclProfilerEventStateArgs_v7_t args{};
      args.kernelCh.pTimer = at;
      state(phase, ncclProfilerKernelPhaseStop, &args);
      stop(phase);
    }
  }
  return at;
}

}  // namespace railtune::emu
