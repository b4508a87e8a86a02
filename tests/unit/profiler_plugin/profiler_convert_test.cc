#include "profiler_plugin/descr_convert.h"

#include <gtest/gtest.h>

#include "nccl/profiler_v1.h"
#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v5.h"
#include "nccl/profiler_v6.h"

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

TEST(ProfilerConvertTest, V1NumbersBecomeNcclsNames) {
  ncclProfilerEventDescr_v1_t in{};
  int parent = 0;
  in.type = ncclProfileColl;
  in.parentObj = &parent;
  in.rank = 2;
  in.coll.seqNumber = 7;
  in.coll.func = 4;      // AllReduce
  in.coll.datatype = 9;  // bfloat16
  in.coll.count = 256;
  in.coll.nMaxChannels = 12;
  in.coll.algo = 1;   // Ring
  in.coll.proto = 2;  // Simple
  const EventDescriptor out = convertDescriptorV1(in);
  EXPECT_EQ(out.type, EventType::Coll);
  EXPECT_EQ(out.parent, &parent);
  EXPECT_EQ(out.rank, 2);
  EXPECT_EQ(out.coll.seqNumber, 7u);
  EXPECT_STREQ(out.coll.func, "AllReduce");
  EXPECT_STREQ(out.coll.datatype, "ncclBfloat16");
  EXPECT_EQ(out.coll.count, 256u);
  EXPECT_EQ(out.coll.nChannels, 12);
  EXPECT_STREQ(out.coll.algo, "Ring");
  EXPECT_STREQ(out.coll.proto, "Simple");

  ncclProfilerEventDescr_v1_t p2p{};
  p2p.type = ncclProfileP2p;
  p2p.p2p.func = 6;        // Send
  p2p.p2p.datatype = 200;  // past NCCL's list
  p2p.p2p.peer = 5;
  const EventDescriptor sent = convertDescriptorV1(p2p);
  EXPECT_STREQ(sent.p2p.func, "Send");
  EXPECT_STREQ(sent.p2p.datatype, "unknown");
  EXPECT_EQ(sent.p2p.peer, 5);
}

TEST(ProfilerConvertTest, V1ProxyEventsConvertAsInEveryVersion) {
  ncclProfilerEventDescr_v1_t in{};
  in.type = ncclProfileProxyOp;
  in.proxyOp.channelId = 3;
  in.proxyOp.peer = 4;
  in.proxyOp.isSend = 0;
  const EventDescriptor out = convertDescriptorV1(in);
  EXPECT_EQ(out.proxyOp.channelId, 3);
  EXPECT_EQ(out.proxyOp.peer, 4);
  EXPECT_FALSE(out.proxyOp.isSend);
  EXPECT_EQ(out.coll.func, nullptr);
}

TEST(ProfilerConvertTest, V6CopyEngineEventsCarryTypeParentAndRank) {
  ncclProfilerEventDescr_v6_t in{};
  int parent = 0;
  in.type = ncclProfileCeColl;
  in.parentObj = &parent;
  in.rank = 1;
  in.ceColl.func = "AllGather";
  const EventDescriptor out = convertDescriptor(in);
  EXPECT_EQ(out.type, EventType::CeColl);
  EXPECT_EQ(out.parent, &parent);
  EXPECT_EQ(out.rank, 1);
  EXPECT_EQ(out.coll.func, nullptr);
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
