#include "profiler_plugin/descr_convert.h"

#include <gtest/gtest.h>

#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v5.h"

namespace railtune::profiler {
namespace {

TEST(ProfilerConvertTest, V5CollectiveCarriesItsFields) {
  ncclProfilerEventDescr_v5_t in{};
  int parent = 0;
  in.type = ncclProfileColl;
  in.parentObj = &parent;
  in.rank = 3;
  in.coll.seqNumber = 42;
  in.coll.func = "AllReduce";
  in.coll.count = 1024;
  in.coll.datatype = "ncclFloat32";
  in.coll.nChannels = 16;
  in.coll.nWarps = 8;
  in.coll.algo = "RING";
  in.coll.proto = "SIMPLE";
  const EventDescriptor out = convertDescriptor(in);
  EXPECT_EQ(out.type, EventType::Coll);
  EXPECT_EQ(out.parent, &parent);
  EXPECT_EQ(out.rank, 3);
  EXPECT_EQ(out.coll.seqNumber, 42u);
  EXPECT_STREQ(out.coll.func, "AllReduce");
  EXPECT_EQ(out.coll.count, 1024u);
  EXPECT_EQ(out.coll.nChannels, 16);
  EXPECT_EQ(out.coll.nWarps, 8);
  EXPECT_STREQ(out.coll.algo, "RING");
}

TEST(ProfilerConvertTest, V3UsesNMaxChannelsAndHasNoKernelTimer) {
  ncclProfilerEventDescr_v3_t in{};
  in.type = ncclProfileColl;
  in.coll.func = "AllGather";
  in.coll.nMaxChannels = 4;
  EXPECT_EQ(convertDescriptor(in).coll.nChannels, 4);

  ncclProfilerEventDescr_v3_t kernel{};
  kernel.type = ncclProfileKernelCh;
  kernel.kernelCh.channelId = 5;
  const EventDescriptor out = convertDescriptor(kernel);
  EXPECT_EQ(out.kernelCh.channelId, 5);
  EXPECT_EQ(out.kernelCh.pTimer, 0u);
}

TEST(ProfilerConvertTest, OnlyTheActiveUnionMemberIsRead) {
  ncclProfilerEventDescr_v4_t in{};
  in.type = ncclProfileProxyStep;
  in.proxyStep.step = 9;
  const EventDescriptor out = convertDescriptor(in);
  EXPECT_EQ(out.proxyStep.step, 9);
  EXPECT_EQ(out.coll.func, nullptr);
  EXPECT_EQ(out.proxyOp.peer, -1);
}

TEST(ProfilerConvertTest, ProxyOpFieldsSurvive) {
  ncclProfilerEventDescr_v4_t in{};
  in.type = ncclProfileProxyOp;
  in.proxyOp.pid = 1234;
  in.proxyOp.channelId = 2;
  in.proxyOp.peer = 7;
  in.proxyOp.nSteps = 8;
  in.proxyOp.chunkSize = 524288;
  in.proxyOp.isSend = 1;
  const EventDescriptor out = convertDescriptor(in);
  EXPECT_EQ(out.proxyOp.pid, 1234);
  EXPECT_EQ(out.proxyOp.peer, 7);
  EXPECT_EQ(out.proxyOp.chunkSize, 524288);
  EXPECT_TRUE(out.proxyOp.isSend);
}

TEST(ProfilerConvertTest, StateArgsFollowTheState) {
  ncclProfilerEventStateArgs_v5_t v5{};
  v5.proxyStep.transSize = 4096;
  EXPECT_EQ(convertStateArgs(EventState::ProxyStepSendWait, &v5).transSize, 4096u);
  v5.kernelCh.pTimer = 777;
  EXPECT_EQ(convertStateArgs(EventState::KernelChStop, &v5).pTimer, 777u);
  v5.proxyCtrl.appendedProxyOps = 3;
  EXPECT_EQ(convertStateArgs(EventState::ProxyCtrlAppendEnd, &v5).appendedProxyOps, 3);

  ncclProfilerEventStateArgs_v3_t v3{};
  v3.proxyOp.transSize = 100;
  v3.proxyOp.steps = 2;
  const StateArgs old = convertStateArgs(EventState::ProxyOpSendPosted, &v3);
  EXPECT_EQ(old.transSize, 100u);
  EXPECT_EQ(old.steps, 2);
  EXPECT_EQ(
      convertStateArgs(EventState::ProxyCtrlIdle, static_cast<ncclProfilerEventStateArgs_v3_t*>(nullptr)).transSize,
      0u);
}

}  // namespace
}  // namespace railtune::profiler
