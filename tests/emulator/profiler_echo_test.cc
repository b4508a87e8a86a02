// Sentinel echo through every profiler version (v1..v6): init argument orders, descriptors narrowed as
// NCCL's adapters do (codes for v1, name/commHash for v1-v3, the legacy group as parent before v5),
// events and states an old version does not know, the activation mask, and init failure per behaviour.
#include <cstring>

#include "emulator/logger.h"
#include "emulator/profiler_driver.h"
#include "nccl/tuner_common.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

constexpr uint64_t profCtx(int version) {
  return 0xC0C00000u + static_cast<unsigned>(version);
}
constexpr uint64_t kParent = 0xBA5E0000u;
constexpr uint64_t kGroup = 0x60B00000u;
const char* const kCommName = "rt-comm";
const char* const kFunc = "AllReduce";
const char* const kType = "ncclFloat32";
const char* const kAlgo = "RING";
const char* const kProto = "LL128";

class ProfilerEchoTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    binding = Loader::bindVersion(PluginKind::Profiler, pluginPath("libnccl-profiler-all.so"), GetParam());
    ASSERT_TRUE(binding) << joined(binding.log);
    resetEcho(binding);
    echo = echoOf(binding);
    driver = std::make_unique<ProfilerDriver>(binding, NcclBehaviour::V2_30);
    ASSERT_EQ(driver->init(kCommId, kCommName, static_cast<int>(kNodes), static_cast<int>(kRanks), kRank), ncclSuccess);
  }
  int version() const { return GetParam(); }
  const rtEchoCall* last(const char* func) { return findCall(echo, func, countCalls(echo, func) - 1); }
  ncclProfilerEventDescr_v6_t descr(uint64_t type) {
    ncclProfilerEventDescr_v6_t d;
    std::memset(&d, 0, sizeof(d));
    d.type = type;
    d.parentObj = fakePointer(kParent);
    d.rank = kRank;
    return d;
  }
  ncclProfilerEventDescr_v6_t collDescr(char* send, char* recv) {
    ncclProfilerEventDescr_v6_t d = descr(ncclProfileColl);
    d.coll = {0x5E9, kFunc, send, recv, 0xC0, 0x2, kType, 0x11, 0x9, kAlgo, kProto, fakePointer(kGroup)};
    return d;
  }

  Binding binding;
  rtEchoRecord* echo = nullptr;
  std::unique_ptr<ProfilerDriver> driver;
};
INSTANTIATE_TEST_SUITE_P(Versions, ProfilerEchoTest, ::testing::Range(1, 7), versionTestName);

TEST_P(ProfilerEchoTest, InitArgumentsInEachVersionsOrder) {
  const rtEchoCall* c = findCall(echo, "profiler.init");
  ASSERT_NE(c, nullptr);
  const uint64_t mask = bits(&binding.library->state().profilerEventMask);
  const uint64_t logger = bits(reinterpret_cast<void*>(pluginLogger()));
  std::vector<uint64_t> expect;
  if (version() <= 3) expect = {c->args[0], mask};
  if (version() == 4) expect = {c->args[0], mask, bits(kCommName), kCommId, kNodes, kRanks, 3, logger};
  if (version() >= 5) expect = {c->args[0], kCommId, mask, bits(kCommName), kNodes, kRanks, 3, logger};
  ASSERT_EQ(c->nArgs, static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(c->args[i], expect[i]) << "init argument " << i;
  EXPECT_NE(c->args[0], 0u);
  EXPECT_EQ(driver->activationMask(), 0x7FFF);
  EXPECT_EQ(bits(driver->context()), profCtx(version()));
}

TEST_P(ProfilerEchoTest, CollDescriptorNarrowedPerVersion) {
  char send[8], recv[8];
  ncclProfilerEventDescr_v6_t d = collDescr(send, recv);
  void* handle = nullptr;
  ASSERT_EQ(driver->startEvent(&d, &handle), ncclSuccess);
  EXPECT_EQ(bits(handle), 0xE0000002u);
  const rtEchoCall* c = last("profiler.startEvent");
  ASSERT_NE(c, nullptr);
  const uint64_t parent = version() >= 5 ? kParent : kGroup;  // before v5 the parent is the legacy group
  std::vector<uint64_t> expect{profCtx(version()), bits(&handle), ncclProfileColl, parent, kRank};
  const std::vector<uint64_t> names{bits(kFunc), bits(send), bits(recv), 0xC0, 0x2, bits(kType)};
  if (version() == 1) {
    const std::vector<uint64_t> codes{
        0, 0,    0x5E9, ncclFuncAllReduce, bits(send),       bits(recv), 0xC0, 0x2, ncclFloat32, 0,
        0, 0x11, 0x9,   NCCL_ALGO_RING,    NCCL_PROTO_LL128, 0,          0};
    expect.insert(expect.end(), codes.begin(), codes.end());
  } else if (version() <= 3) {
    expect.insert(expect.end(), {0, 0, 0x5E9});
    expect.insert(expect.end(), names.begin(), names.end());
    expect.insert(expect.end(), {0x11, 0x9, bits(kAlgo), bits(kProto)});
    if (version() == 2) expect.push_back(0);  // trafficBytes
  } else {
    expect.push_back(0x5E9);
    expect.insert(expect.end(), names.begin(), names.end());
    expect.insert(expect.end(), {0x11, 0x9, bits(kAlgo), bits(kProto)});
    if (version() >= 5) expect.push_back(kGroup);
  }
  ASSERT_EQ(c->nArgs, static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(c->args[i], expect[i]) << "descriptor field " << i;
}

TEST_P(ProfilerEchoTest, ProxyOpDescriptor) {
  ncclProfilerEventDescr_v6_t d = descr(ncclProfileProxyOp);
  d.proxyOp = {0x1234, 5, 6, 7, 0x800, 1};
  void* handle = nullptr;
  ASSERT_EQ(driver->startEvent(&d, &handle), ncclSuccess);
  const rtEchoCall* c = last("profiler.startEvent");
  std::vector<uint64_t> expect{
      profCtx(version()), bits(&handle), ncclProfileProxyOp, kParent, kRank, 0x1234, 5, 6, 7, 0x800, 1};
  ASSERT_EQ(c->nArgs, static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(c->args[i], expect[i]) << "proxyOp field " << i;
}

TEST_P(ProfilerEchoTest, EventsAnOldVersionDoesNotKnowAreNotDelivered) {
  struct Case {
    uint64_t type;
    int since;
  };
  for (Case k : {Case{ncclProfileKernelCh, 3}, Case{ncclProfileNetPlugin, 3}, Case{ncclProfileCollApi, 5},
                 Case{ncclProfileKernelLaunch, 5}, Case{ncclProfileCeColl, 6}}) {
    ncclProfilerEventDescr_v6_t d = descr(k.type);
    if (k.type == ncclProfileKernelCh) d.kernelCh = {4, 0x77AA};
    if (k.type == ncclProfileNetPlugin) d.netPlugin = {0x20001, fakePointer(0xDA7A0000u)};
    void* handle = fakePointer(1);
    const int before = countCalls(echo, "profiler.startEvent");
    ASSERT_EQ(driver->startEvent(&d, &handle), ncclSuccess);
    const bool delivered = version() >= k.since;
    EXPECT_EQ(countCalls(echo, "profiler.startEvent"), before + (delivered ? 1 : 0)) << "type " << k.type;
    EXPECT_EQ(handle == nullptr, !delivered);
    if (!delivered) continue;
    const rtEchoCall* c = last("profiler.startEvent");
    if (k.type == ncclProfileKernelCh) {
      EXPECT_EQ(c->args[5], 4u);
      if (version() >= 4) {
        EXPECT_EQ(c->args[6], 0x77AAu);
      }
    }
    if (k.type == ncclProfileNetPlugin) {
      EXPECT_EQ(c->args[5], 0x20001u);
      EXPECT_EQ(c->args[6], 0xDA7A0000u);
    }
  }
}

TEST_P(ProfilerEchoTest, StateArgumentsNarrowedPerVersion) {
  void* h = fakePointer(0xE0000010u);
  ncclProfilerEventStateArgs_v6_t args;
  std::memset(&args, 0, sizeof(args));
  args.proxyCtrl.appendedProxyOps = 0x2A;
  ASSERT_EQ(driver->recordEventState(h, ncclProfilerProxyCtrlAppend, &args), ncclSuccess);
  const rtEchoCall* c = last("profiler.recordEventState");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->args[0], 0xE0000010u);
  EXPECT_EQ(c->args[1], static_cast<uint64_t>(ncclProfilerProxyCtrlAppend));
  int appended = 0;
  std::memcpy(&appended, c->bytes, sizeof(appended));
  EXPECT_EQ(appended, 0x2A);

  std::memset(&args, 0, sizeof(args));
  args.proxyStep.transSize = kBytes;
  ASSERT_EQ(driver->recordEventState(h, ncclProfilerProxyStepSendWait, &args), ncclSuccess);
  size_t trans = 1;
  std::memcpy(&trans, last("profiler.recordEventState")->bytes, sizeof(trans));
  EXPECT_EQ(trans, version() >= 4 ? kBytes : 0u) << "v1-v3 get ProxyStep states with empty arguments";

  const int before = countCalls(echo, "profiler.recordEventState");
  ASSERT_EQ(driver->recordEventState(h, ncclProfilerKernelChStop, &args), ncclSuccess);
  ASSERT_EQ(driver->recordEventState(h, ncclProfilerProxyStepSendPeerWait_v4, &args), ncclSuccess);
  EXPECT_EQ(countCalls(echo, "profiler.recordEventState"), before + (version() >= 4 ? 2 : 0));
}

TEST_P(ProfilerEchoTest, StopAndFinalize) {
  ASSERT_EQ(driver->stopEvent(fakePointer(0xE0000002u)), ncclSuccess);
  EXPECT_EQ(last("profiler.stopEvent")->args[0], 0xE0000002u);
  ASSERT_EQ(driver->stopEvent(nullptr), ncclSuccess);
  EXPECT_EQ(last("profiler.stopEvent")->args[0], 0u);
  ASSERT_EQ(driver->finalize(), ncclSuccess);
  EXPECT_EQ(last("profiler.finalize")->args[0], profCtx(version()));
}

TEST_P(ProfilerEchoTest, MaskStartsAncestorsOfRequestedEventsOnly) {
  binding.library->state().profilerEventMask = ncclProfileProxyOp;  // as a plugin changing it at run time
  char send[8], recv[8];
  ncclProfilerEventDescr_v6_t coll = collDescr(send, recv);
  ncclProfilerEventDescr_v6_t ctrl = descr(ncclProfileProxyCtrl);
  ncclProfilerEventDescr_v6_t step = descr(ncclProfileProxyStep);
  void* h = nullptr;
  ASSERT_EQ(driver->startEvent(&coll, &h), ncclSuccess);
  EXPECT_NE(h, nullptr) << "a Coll is started because a ProxyOp below it is wanted";
  ASSERT_EQ(driver->startEvent(&ctrl, &h), ncclSuccess);
  EXPECT_EQ(h, nullptr);
  ASSERT_EQ(driver->startEvent(&step, &h), ncclSuccess);
  EXPECT_EQ(h, nullptr);
}

class ProfilerInitFailure : public BehaviourTest {};
RAILTUNE_BOTH_BEHAVIOURS(ProfilerInitFailure);

TEST_P(ProfilerInitFailure, Keeps228WithMaskZeroUnloads230) {
  Binding b = loader({{"NCCL_PROFILER_PLUGIN", "initfail"}}).openProfiler();
  ASSERT_TRUE(b) << joined(b.log);
  resetEcho(b);
  ProfilerDriver d(b, behaviour());
  EXPECT_EQ(d.init(kCommId, "c", 1, 2, 0), ncclSuccess) << "NCCL never fails the communicator for its profiler";
  EXPECT_TRUE(logHas(d.log(), "Profiler init failed with error '3'"));
  EXPECT_TRUE(logHas(d.log(), "Continue without profiler."));
  EXPECT_EQ(d.loaded(), !is230());
  EXPECT_EQ(b.library->state().profilerUnloaded, is230());
  EXPECT_EQ(d.activationMask(), 0);
  ncclProfilerEventDescr_v6_t e;
  std::memset(&e, 0, sizeof(e));
  e.type = ncclProfileGroup;
  void* h = nullptr;
  EXPECT_EQ(d.startEvent(&e, &h), ncclSuccess);
  EXPECT_EQ(d.stopEvent(nullptr), ncclSuccess);
  EXPECT_EQ(countCalls(echoOf(b), "profiler.startEvent"), 0);
  EXPECT_EQ(countCalls(echoOf(b), "profiler.stopEvent"), is230() ? 0 : 1) << "2.28 still calls the kept plugin";
}

}  // namespace
}  // namespace railtune::emu::test
