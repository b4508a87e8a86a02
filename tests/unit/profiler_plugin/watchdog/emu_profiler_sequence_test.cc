// The emulator's NCCL profiler event order (emulator/profiler_sequence.h) through the real driver,
// against a recording profiler bound for each ABI version v1..v6: which events and states each
// version receives, their order, and that every parent, stop and state names a handle the profiler
// gave out. The profiler is in this program (no library file), bound as NCCL binds one.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "emulator/loader.h"
#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"
#include "formats/net_event.h"
#include "nccl/profiler_v1.h"
#include "nccl/profiler_v2.h"
#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v5.h"
#include "nccl/profiler_v6.h"

namespace railtune::emu {
namespace {

// One event as the recording profiler saw it.
struct Seen {
  uint64_t type = 0;
  size_t parent = 0;  // index + 1 of the parent event; 0: NULL
  bool stopped = false;
  int channel = -1, peer = -1, step = -1, groupDepth = -1;
  bool isSend = false;
  uint64_t seq = 0;
  std::string func, hca;
  int64_t netId = 0;
  uint64_t startTimer = 0, stopTimer = 0;
  std::vector<int> states;
};

// Every call in order: 'S'tart, 'E'nd (stop), 'R'ecord state, with the event's index.
struct Call {
  char kind;
  size_t event;
  int state = -1;
};

struct Recorder {
  int mask = 0;
  std::vector<Seen> events;
  std::vector<Call> calls;
  std::vector<std::string> violations;

  void* handleOf(size_t index) const { return reinterpret_cast<void*>(static_cast<uintptr_t>(0x10000 + 16 * index)); }
  // The index of a handle this profiler gave out, or SIZE_MAX.
  size_t indexOf(const void* handle) const {
    const auto v = reinterpret_cast<uintptr_t>(handle);
    if (v < 0x10000 || (v - 0x10000) % 16 != 0 || (v - 0x10000) / 16 >= events.size()) return SIZE_MAX;
    return (v - 0x10000) / 16;
  }
  size_t live(const void* handle, const char* what) {
    const size_t i = indexOf(handle);
    if (i == SIZE_MAX)
      violations.push_back(std::string(what) + " on a handle never given out");
    else if (events[i].stopped)
      violations.push_back(std::string(what) + " on a stopped event");
    return i;
  }
  std::vector<size_t> ofType(uint64_t type) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].type == type) out.push_back(i);
    }
    return out;
  }
  size_t count(uint64_t type) const { return ofType(type).size(); }
  size_t position(char kind, size_t event) const {
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].kind == kind && calls[i].event == event) return i;
    }
    return SIZE_MAX;
  }
};

Recorder g_recorder;

template <typename Descr>
void decode(const Descr* d, Seen& e) {
  switch (e.type) {
    case ncclProfileProxyOp:
      e.channel = d->proxyOp.channelId;
      e.peer = d->proxyOp.peer;
      e.isSend = d->proxyOp.isSend != 0;
      break;
    case ncclProfileProxyStep:
      e.step = d->proxyStep.step;
      break;
    case ncclProfileColl:
      e.seq = d->coll.seqNumber;
      if constexpr (requires { std::string(d->coll.func); }) e.func = d->coll.func;
      break;
    case ncclProfileP2p:
      e.peer = d->p2p.peer;
      if constexpr (requires { std::string(d->p2p.func); }) e.func = d->p2p.func;
      break;
    default:
      break;
  }
  if constexpr (requires { d->kernelCh; }) {
    if (e.type == ncclProfileKernelCh) e.channel = d->kernelCh.channelId;
    if constexpr (requires { d->kernelCh.pTimer; }) {
      if (e.type == ncclProfileKernelCh) e.startTimer = d->kernelCh.pTimer;
    }
  }
  if constexpr (requires { d->netPlugin; }) {
    if (e.type == ncclProfileNetPlugin) {
      e.netId = d->netPlugin.id;
      if ((e.netId & ~0xffffLL) == RAILTUNE_PROFILER_NET_TYPE) {
        e.hca = static_cast<const railtuneNetEventDescr_v1_t*>(d->netPlugin.data)->hca;
      }
    }
  }
  if constexpr (requires { d->groupApi; }) {
    if (e.type == ncclProfileGroupApi) e.groupDepth = d->groupApi.groupDepth;
  }
}

template <typename Descr>
ncclResult_t recordStart(void*, void** eHandle, Descr* d) {
  Recorder& r = g_recorder;
  Seen e;
  e.type = d->type;
  if (d->parentObj != nullptr) {
    const size_t parent = r.indexOf(d->parentObj);
    if (parent == SIZE_MAX) r.violations.push_back("a parent never given out");
    e.parent = parent == SIZE_MAX ? 0 : parent + 1;
  }
  decode(d, e);
  r.events.push_back(e);
  r.calls.push_back({'S', r.events.size() - 1});
  *eHandle = r.handleOf(r.events.size() - 1);
  return ncclSuccess;
}

ncclResult_t recordStop(void* eHandle) {
  Recorder& r = g_recorder;
  if (eHandle == nullptr) return ncclSuccess;  // NCCL may stop a NULL handle: nothing to record
  const size_t i = r.live(eHandle, "stopEvent");
  if (i == SIZE_MAX) return ncclSuccess;
  r.events[i].stopped = true;
  r.calls.push_back({'E', i});
  return ncclSuccess;
}

template <typename Args>
ncclResult_t recordState(void* eHandle, ncclProfilerEventState_t state, Args* args) {
  Recorder& r = g_recorder;
  const size_t i = r.live(eHandle, "recordEventState");
  if (i == SIZE_MAX) return ncclSuccess;
  r.events[i].states.push_back(static_cast<int>(state));
  if constexpr (requires { args->kernelCh.pTimer; }) {
    if (state == ncclProfilerKernelChStop && args != nullptr) r.events[i].stopTimer = args->kernelCh.pTimer;
  }
  r.calls.push_back({'R', i, static_cast<int>(state)});
  return ncclSuccess;
}

ncclResult_t initOld(void** ctx, int* mask) {
  *ctx = &g_recorder;
  *mask = g_recorder.mask;
  return ncclSuccess;
}
ncclResult_t initV4(void** ctx, int* mask, const char*, uint64_t, int, int, int, ncclDebugLogger_t) {
  return initOld(ctx, mask);
}
ncclResult_t initV5(void** ctx, uint64_t, int* mask, const char*, int, int, int, ncclDebugLogger_t) {
  return initOld(ctx, mask);
}
ncclResult_t finalize(void*) {
  return ncclSuccess;
}

const ncclProfiler_v1_t kV1 = {"recorder", initOld, recordStart, recordStop, recordState, finalize};
const ncclProfiler_v2_t kV2 = {"recorder", initOld, recordStart, recordStop, recordState, finalize};
const ncclProfiler_v3_t kV3 = {"recorder", initOld, recordStart, recordStop, recordState, finalize};
const ncclProfiler_v4_t kV4 = {"recorder", initV4, recordStart, recordStop, recordState, finalize};
const ncclProfiler_v5_t kV5 = {"recorder", initV5, recordStart, recordStop, recordState, finalize};
const ncclProfiler_v6_t kV6 = {"recorder", initV5, recordStart, recordStop, recordState, finalize};

// The recording profiler bound as `version`, initialised with `mask` for one communicator.
struct Bound {
  Binding binding;
  std::unique_ptr<ProfilerDriver> driver;
};

Bound bindRecorder(int version, int mask) {
  g_recorder = Recorder{};
  g_recorder.mask = mask;
  const void* tables[] = {nullptr, &kV1, &kV2, &kV3, &kV4, &kV5, &kV6};
  Bound b;
  b.binding.kind = PluginKind::Profiler;
  b.binding.library = std::make_shared<Library>(dlopen(nullptr, RTLD_NOW), "");
  b.binding.version = version;
  b.binding.table = tables[version];
  b.driver = std::make_unique<ProfilerDriver>(b.binding, version == 6 ? NcclBehaviour::V2_30 : NcclBehaviour::V2_28);
  EXPECT_EQ(b.driver->init(0x5eed, "comm", 2, 4, 1), ncclSuccess);
  return b;
}

constexpr int kAllEvents = 0xFFF;  // every event up to KernelLaunch

uint64_t parentType(const Recorder& r, size_t event) {
  const size_t p = r.events[event].parent;
  return p == 0 ? 0 : r.events[p - 1].type;
}

class ProfilerSequenceVersions : public ::testing::TestWithParam<int> {};

TEST_P(ProfilerSequenceVersions, RingAllReduceEventsParentsAndStatesPerVersion) {
  const int v = GetParam();
  Bound b = bindRecorder(v, kAllEvents);
  ProfilerSequence sequence(*b.driver, 1);
  const EmulatedOperation op = ringAllReduce(1, 4, 2, 1, 3, 1 << 20);  // 2 channels, 1 peer each way, 3 steps
  const SequenceStats stats = sequence.run(op);
  const Recorder& r = g_recorder;
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_TRUE(b.driver->violations().empty());
  EXPECT_EQ(stats.failures, 0);
  EXPECT_EQ(static_cast<size_t>(stats.handles), r.events.size());

  // Which events each version receives.
  const size_t api = v >= 5 ? 1 : 0;
  EXPECT_EQ(r.count(ncclProfileGroupApi), api);
  EXPECT_EQ(r.count(ncclProfileCollApi), api);
  EXPECT_EQ(r.count(ncclProfileKernelLaunch), api);
  EXPECT_EQ(r.count(ncclProfileGroup), 1u);
  EXPECT_EQ(r.count(ncclProfileColl), 1u);
  EXPECT_EQ(r.count(ncclProfileProxyOp), 4u);
  EXPECT_EQ(r.count(ncclProfileProxyStep), 12u);
  EXPECT_EQ(r.count(ncclProfileNetPlugin), v >= 3 ? 12u : 0u);
  EXPECT_EQ(r.count(ncclProfileKernelCh), v >= 3 ? 2u : 0u);

  // Parents: NCCL's hierarchy, the legacy Group for Coll before v5.
  const size_t coll = r.ofType(ncclProfileColl)[0];
  EXPECT_EQ(parentType(r, coll), v >= 5 ? uint64_t{ncclProfileCollApi} : uint64_t{ncclProfileGroup});
  for (size_t e : r.ofType(ncclProfileProxyOp)) EXPECT_EQ(r.events[e].parent, coll + 1);
  for (size_t e : r.ofType(ncclProfileKernelCh)) EXPECT_EQ(r.events[e].parent, coll + 1);
  for (size_t e : r.ofType(ncclProfileProxyStep)) EXPECT_EQ(parentType(r, e), uint64_t{ncclProfileProxyOp});
  for (size_t e : r.ofType(ncclProfileNetPlugin)) {
    ASSERT_EQ(parentType(r, e), uint64_t{ncclProfileProxyStep});
    const Seen& proxyOp = r.events[r.events[r.events[e].parent - 1].parent - 1];
    EXPECT_EQ(r.events[e].hca, "mlx5_" + std::to_string(proxyOp.channel));  // railtune's descriptor, decoded
  }
  if (v >= 5) {
    EXPECT_EQ(parentType(r, r.ofType(ncclProfileCollApi)[0]), uint64_t{ncclProfileGroupApi});
    EXPECT_EQ(parentType(r, r.ofType(ncclProfileKernelLaunch)[0]), uint64_t{ncclProfileGroupApi});
    EXPECT_EQ(r.events[r.ofType(ncclProfileGroupApi)[0]].groupDepth, 1);
  }
  // The ring's peers: sends to rank 2, receives from rank 0, on channels 0 and 1.
  for (size_t e : r.ofType(ncclProfileProxyOp)) EXPECT_EQ(r.events[e].peer, r.events[e].isSend ? 2 : 0);

  // Every event completes (nothing stalled).
  for (const Seen& e : r.events) EXPECT_TRUE(e.stopped) << "type " << e.type;
}

TEST_P(ProfilerSequenceVersions, StatesAndOrderPerVersion) {
  const int v = GetParam();
  Bound b = bindRecorder(v, kAllEvents);
  ProfilerSequence sequence(*b.driver, 1);
  sequence.run(ringAllReduce(1, 4, 1, 1, 2, 1 << 16));
  const Recorder& r = g_recorder;
  // Coll stop means "enqueued": it comes before the proxy's first event.
  const size_t coll = r.ofType(ncclProfileColl)[0];
  const size_t firstOp = r.ofType(ncclProfileProxyOp)[0];
  EXPECT_LT(r.position('E', coll), r.position('S', firstOp));
  for (size_t e : r.ofType(ncclProfileProxyOp)) {
    EXPECT_EQ(r.events[e].states, v >= 4 ? std::vector<int>{ncclProfilerProxyOpInProgress_v4} : std::vector<int>{});
  }
  for (size_t e : r.ofType(ncclProfileProxyStep)) {
    const bool send = r.events[r.events[e].parent - 1].isSend;
    std::vector<int> expected;
    if (send) {
      expected = {ncclProfilerProxyStepSendGPUWait, ncclProfilerProxyStepSendWait};
      if (v >= 4) expected.insert(expected.begin() + 1, ncclProfilerProxyStepSendPeerWait_v4);
    } else {
      expected = {ncclProfilerProxyStepRecvWait, ncclProfilerProxyStepRecvFlushWait, ncclProfilerProxyStepRecvGPUWait};
    }
    EXPECT_EQ(r.events[e].states, expected) << (send ? "send" : "recv") << " step " << r.events[e].step;
  }
  // A NetPlugin event lives inside its step: started after it, stopped before it.
  for (size_t e : r.ofType(ncclProfileNetPlugin)) {
    const size_t step = r.events[e].parent - 1;
    EXPECT_LT(r.position('S', step), r.position('S', e));
    EXPECT_LT(r.position('E', e), r.position('E', step));
  }
  // A channel's kernel stops after every ProxyOp of the collective, with a later GPU timer (v4+).
  for (size_t k : r.ofType(ncclProfileKernelCh)) {
    for (size_t op : r.ofType(ncclProfileProxyOp)) EXPECT_LT(r.position('E', op), r.position('E', k));
    EXPECT_EQ(r.events[k].states, v >= 4 ? std::vector<int>{ncclProfilerKernelChStop} : std::vector<int>{});
    if (v >= 4) {
      EXPECT_GT(r.events[k].stopTimer, r.events[k].startTimer);
    }
  }
  if (v >= 5) {
    const size_t groupApi = r.ofType(ncclProfileGroupApi)[0];
    EXPECT_EQ(r.calls.front().event, groupApi);
    EXPECT_EQ(r.events[groupApi].states,
              (std::vector<int>{ncclProfilerGroupStartApiStop, ncclProfilerGroupEndApiStart}));
    EXPECT_GT(r.position('E', groupApi), r.position('E', r.ofType(ncclProfileGroup)[0]));
  }
}

TEST_P(ProfilerSequenceVersions, SequenceNumbersCountPerFunction) {
  Bound b = bindRecorder(GetParam(), kAllEvents);
  ProfilerSequence sequence(*b.driver, 0);
  EmulatedOperation allGather = ringAllReduce(0, 2, 1, 1, 1, 4096);
  allGather.func = "AllGather";
  sequence.run(ringAllReduce(0, 2, 1, 1, 1, 4096));
  sequence.run(allGather);
  sequence.run(ringAllReduce(0, 2, 1, 1, 1, 4096));
  std::vector<uint64_t> seqs;
  for (size_t e : g_recorder.ofType(ncclProfileColl)) seqs.push_back(g_recorder.events[e].seq);
  EXPECT_EQ(seqs, (std::vector<uint64_t>{0, 0, 1}));
}

INSTANTIATE_TEST_SUITE_P(Abi, ProfilerSequenceVersions, ::testing::Values(1, 2, 3, 4, 5, 6),
                         [](const ::testing::TestParamInfo<int>& param) { return "v" + std::to_string(param.param); });

TEST(ProfilerSequence, SendRecvGroupOneGroupApiTwoP2p) {
  Bound b = bindRecorder(5, kAllEvents);
  ProfilerSequence sequence(*b.driver, 0);
  const std::vector<EmulatedOperation> group = {p2pOperation(true, 0, 1, 1 << 20, 2, 4),
                                                p2pOperation(false, 0, 1, 1 << 20, 2, 4)};
  sequence.run(group);
  const Recorder& r = g_recorder;
  EXPECT_TRUE(r.violations.empty());
  ASSERT_EQ(r.count(ncclProfileGroupApi), 1u);  // only the outermost group
  const size_t groupApi = r.ofType(ncclProfileGroupApi)[0];
  EXPECT_EQ(r.events[groupApi].groupDepth, 2);  // inside the application's ncclGroupStart
  EXPECT_EQ(r.events[groupApi].states, (std::vector<int>{ncclProfilerGroupStartApiStop, ncclProfilerGroupEndApiStart}));
  EXPECT_EQ(r.count(ncclProfileP2pApi), 2u);
  EXPECT_EQ(r.count(ncclProfileKernelLaunch), 1u);
  ASSERT_EQ(r.count(ncclProfileP2p), 2u);
  for (size_t e : r.ofType(ncclProfileP2p)) {
    EXPECT_EQ(parentType(r, e), uint64_t{ncclProfileP2pApi});
    EXPECT_EQ(r.events[e].peer, 1);
  }
  // Each ProxyOp under the P2p of its direction, two channels each.
  for (size_t e : r.ofType(ncclProfileProxyOp)) {
    EXPECT_EQ(r.events[r.events[e].parent - 1].func, r.events[e].isSend ? "Send" : "Recv");
  }
  EXPECT_EQ(r.count(ncclProfileProxyOp), 4u);
  EXPECT_EQ(r.count(ncclProfileKernelCh), 4u);  // per operation and channel
  // The GroupApi stays open until the launch is done: stopped after the Group event.
  EXPECT_GT(r.position('E', groupApi), r.position('E', r.ofType(ncclProfileGroup)[0]));
}

TEST(ProfilerSequence, AskingForProxyOpAlsoProducesItsAncestorsOnly) {
  Bound b = bindRecorder(5, ncclProfileProxyOp);
  ProfilerSequence sequence(*b.driver, 1);
  const SequenceStats stats = sequence.run(ringAllReduce(1, 4, 2, 1, 3, 1 << 20));
  const Recorder& r = g_recorder;
  EXPECT_TRUE(r.violations.empty());
  EXPECT_EQ(r.count(ncclProfileGroupApi), 1u);
  EXPECT_EQ(r.count(ncclProfileCollApi), 1u);
  EXPECT_EQ(r.count(ncclProfileKernelLaunch), 0u);
  EXPECT_EQ(r.count(ncclProfileGroup), 1u);
  EXPECT_EQ(r.count(ncclProfileColl), 1u);
  EXPECT_EQ(r.count(ncclProfileProxyOp), 4u);
  EXPECT_EQ(r.count(ncclProfileProxyStep) + r.count(ncclProfileNetPlugin) + r.count(ncclProfileKernelCh), 0u);
  EXPECT_EQ(stats.handles, static_cast<int>(r.events.size()));
  EXPECT_GT(stats.starts, stats.handles);  // NCCL's call sites for steps and kernels, dropped by the mask
}

TEST(ProfilerSequence, NetPluginAloneStillBringsItsSteps) {
  Bound b = bindRecorder(4, ncclProfileNetPlugin);
  ProfilerSequence sequence(*b.driver, 1);
  sequence.run(ringAllReduce(1, 4, 1, 1, 2, 1 << 20));
  const Recorder& r = g_recorder;
  EXPECT_EQ(r.count(ncclProfileProxyStep), 4u);
  EXPECT_EQ(r.count(ncclProfileNetPlugin), 4u);
  EXPECT_EQ(r.count(ncclProfileKernelCh), 0u);
}

TEST(ProfilerSequence, RingPeersPerChannelGoBothWays) {
  const EmulatedOperation op = ringAllReduce(0, 8, 3, 2, 5, 1 << 20);
  ASSERT_EQ(op.flows.size(), 12u);  // 3 channels x 2 peers x send and receive
  std::vector<std::pair<int, int>> sends, recvs;
  for (const ProxyFlow& flow : op.flows) (flow.send ? sends : recvs).emplace_back(flow.channel, flow.peer);
  EXPECT_EQ(sends, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 1}, {2, 2}}));
  EXPECT_EQ(recvs, (std::vector<std::pair<int, int>>{{0, 7}, {0, 6}, {1, 7}, {1, 6}, {2, 7}, {2, 6}}));
  EXPECT_EQ(op.count * 4, size_t{1} << 20);
}

TEST(ProfilerSequence, MaskZeroSendsNothing) {
  Bound b = bindRecorder(6, 0);
  ProfilerSequence sequence(*b.driver, 1);
  const SequenceStats stats = sequence.run(ringAllReduce(1, 4, 2, 1, 3, 1 << 20));
  EXPECT_TRUE(g_recorder.events.empty());
  EXPECT_EQ(stats.handles, 0);
}

TEST(ProfilerSequence, AStalledCollectiveLeavesItsStepOutstanding) {
  Bound b = bindRecorder(6, kAllEvents);
  ProfilerSequence sequence(*b.driver, 1);
  EmulatedOperation op = ringAllReduce(1, 4, 2, 1, 4, 1 << 20);
  op.stallAtStep = 1;
  sequence.run(op);
  const Recorder& r = g_recorder;
  EXPECT_TRUE(r.violations.empty());
  EXPECT_TRUE(r.events[r.ofType(ncclProfileColl)[0]].stopped);  // enqueued
  for (size_t e : r.ofType(ncclProfileProxyOp)) EXPECT_FALSE(r.events[e].stopped);
  for (size_t e : r.ofType(ncclProfileKernelCh)) EXPECT_FALSE(r.events[e].stopped);
  EXPECT_EQ(r.count(ncclProfileProxyStep), 8u);  // steps 0 and 1 of four ops
  for (size_t e : r.ofType(ncclProfileProxyStep)) {
    EXPECT_EQ(r.events[e].stopped, r.events[e].step == 0) << "step " << r.events[e].step;
  }
  for (size_t e : r.ofType(ncclProfileNetPlugin)) {
    EXPECT_EQ(r.events[e].stopped, r.events[r.events[e].parent - 1].step == 0);
  }
}

// A net plugin as railtune's behaves towards NCCL's profiler callback: an event started in
// isend/irecv with its own descriptor under the phandle NCCL gave, stopped in test() if it started.
class FakeNetPlugin final : public NetTransfers {
 public:
  void post(const ProxyFlow& flow, int step, size_t bytes, void* phandle) override {
    railtuneNetEventDescr_v1_t event{};
    event.type = flow.send ? railtuneNetEventSend : railtuneNetEventRecv;
    event.hca = "mlx5_7";
    event.netdev = "";
    event.peerHost = "peer";
    event.peerRank = flow.peer;
    event.bytes = bytes;
    void* handle = nullptr;
    EXPECT_EQ(netProfilerCallback(&handle, ncclProfilerNetEventStart, phandle,
                                  RAILTUNE_PROFILER_NET_TYPE | RAILTUNE_PROFILER_NET_VERSION, &event),
              ncclSuccess);
    inFlight[{flow.channel, flow.send, step}] = handle;
    ++posted;
  }
  bool complete(const ProxyFlow& flow, int step) override {
    void* handle = inFlight[{flow.channel, flow.send, step}];
    if (handle != nullptr) {
      EXPECT_EQ(netProfilerCallback(&handle, ncclProfilerNetEventUpdateAndStop, nullptr, 0, nullptr), ncclSuccess);
    }
    return true;
  }
  std::map<std::tuple<int, bool, int>, void*> inFlight;
  int posted = 0;
};

TEST(ProfilerSequence, ARealNetPluginsEventsGoUnderTheirSteps) {
  Bound b = bindRecorder(5, kAllEvents);
  FakeNetPlugin net;
  setNetProfilerDriver(b.driver.get());
  ProfilerSequence sequence(*b.driver, 1);
  sequence.setNetTransfers(&net);
  sequence.run(ringAllReduce(1, 4, 2, 1, 3, 1 << 20));
  setNetProfilerDriver(nullptr);
  const Recorder& r = g_recorder;
  EXPECT_TRUE(r.violations.empty());
  EXPECT_EQ(net.posted, 12);
  ASSERT_EQ(r.count(ncclProfileNetPlugin), 12u);
  for (size_t e : r.ofType(ncclProfileNetPlugin)) {
    const Seen& event = r.events[e];
    ASSERT_EQ(parentType(r, e), uint64_t{ncclProfileProxyStep});
    EXPECT_EQ(event.hca, "mlx5_7");  // what the plugin said, not the sequence's own NIC
    EXPECT_TRUE(event.stopped);
    EXPECT_EQ(event.states, std::vector<int>{ncclProfilerNetPluginUpdate});
    EXPECT_LT(r.position('E', e), r.position('E', event.parent - 1));  // done before its step stops
  }
}

TEST(ProfilerSequence, TheNetCallbackWithoutAProfilerDoesNothing) {
  setNetProfilerDriver(nullptr);
  void* handle = nullptr;
  ProxyEventHandle proxy;
  EXPECT_EQ(netProfilerCallback(&handle, ncclProfilerNetEventStart, &proxy, 0, nullptr), ncclSuccess);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(netProfilerCallback(&handle, ncclProfilerNetEventStop, nullptr, 0, nullptr), ncclSuccess);
}

// The real railtune profiler, every version and both NCCL modes, driven through a plain collective, a
// Send/Recv group and a stalled collective. Once with the mask it asked for, once with every event:
// NCCL's mask is one int per process, so another communicator may have asked for more.
class RailtuneProfilerSequence : public ::testing::TestWithParam<std::tuple<NcclBehaviour, int>> {};

TEST_P(RailtuneProfilerSequence, TakesNcclsOrderWithoutErrorsOrOverruns) {
  const auto [behaviour, version] = GetParam();
  for (bool everyEvent : {false, true}) {
    const Binding binding =
        Loader::bindVersion(PluginKind::Profiler, RAILTUNE_PLUGIN_DIR "/libnccl-profiler-railtune.so", version);
    ASSERT_TRUE(binding) << "libnccl-profiler-railtune.so lacks ncclProfiler_v" << version;
    ProfilerDriver driver(binding, behaviour);
    ASSERT_EQ(driver.init(0xfeed, "seq", 2, 4, 1), ncclSuccess);
    if (everyEvent) binding.library->state().profilerEventMask = kAllEvents;
    ProfilerSequence sequence(driver, 1);
    EmulatedOperation stalled = ringAllReduce(1, 4, 2, 1, 4, 1 << 20);
    stalled.stallAtStep = 2;
    const std::vector<EmulatedOperation> sendRecv = {p2pOperation(true, 1, 2, 1 << 20, 2, 2),
                                                     p2pOperation(false, 1, 0, 1 << 20, 2, 2)};
    for (const SequenceStats& stats :
         {sequence.run(ringAllReduce(1, 4, 4, 1, 8, 8 << 20)), sequence.run(sendRecv), sequence.run(stalled)}) {
      EXPECT_EQ(stats.failures, 0);
    }
    EXPECT_EQ(driver.finalize(), ncclSuccess);
    EXPECT_TRUE(driver.violations().empty()) << driver.violations().front();
  }
}

INSTANTIATE_TEST_SUITE_P(Abi, RailtuneProfilerSequence,
                         ::testing::Combine(::testing::Values(NcclBehaviour::V2_28, NcclBehaviour::V2_30),
                                            ::testing::Values(1, 2, 3, 4, 5, 6)),
                         [](const ::testing::TestParamInfo<std::tuple<NcclBehaviour, int>>& param) {
                           return std::string(std::get<0>(param.param) == NcclBehaviour::V2_28 ? "nccl228"
                                                                                               : "nccl230") +
                                  "_v" + std::to_string(std::get<1>(param.param));
                         });

}  // namespace
}  // namespace railtune::emu
