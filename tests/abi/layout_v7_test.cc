// sizeof/offsetof of profiler ABI v7 (nccl/profiler_v7.h), computed by hand from NCCL 2.31.2's
// src/include/plugin/profiler/profiler_v7.h on LP64: the v6 members where v6 has them (an old plugin's
// view of an event is a prefix of the new one), the v7 members after them.
#include <cstddef>

#include <gtest/gtest.h>

#include "nccl/profiler_v6.h"
#include "nccl/profiler_v7.h"

TEST(AbiLayout, ProfilerDescrV7) {
  EXPECT_EQ(sizeof(ncclProfilerEventDescr_v7_t), 136u);  // v6: 112; coll grew by three members
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, type), 0u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, parentObj), 8u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, rank), 16u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, collApi.graphCaptured), 64u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, collApi.userTag), 72u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, p2pApi.graphCaptured), 56u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, p2pApi.userTag), 64u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.nChannels), 80u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.nWarps), 81u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.parentGroup), 104u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.kernelVariant), 112u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.isSymColl), 120u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.userTag), 128u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, p2p.nChannels), 60u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, p2p.parentGroup), 64u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, p2p.userTag), 72u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, proxyOp.isSend), 44u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, kernelCh.pTimer), 32u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, ceColl.stream), 104u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, ceColl.userTag), 112u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.channelId), 24u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.phaseId), 25u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.phaseName), 32u);
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, kernelPhase.pTimer), 40u);
}

// Every v6 member of a v7 descriptor sits where v6 has it.
TEST(AbiLayout, ProfilerDescrV7KeepsV6Offsets) {
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, coll.proto), offsetof(ncclProfilerEventDescr_v6_t, coll.proto));
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, p2p.parentGroup),
            offsetof(ncclProfilerEventDescr_v6_t, p2p.parentGroup));
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, ceColl.stream), offsetof(ncclProfilerEventDescr_v6_t, ceColl.stream));
  EXPECT_EQ(offsetof(ncclProfilerEventDescr_v7_t, ceCollBatch.useIntraSync),
            offsetof(ncclProfilerEventDescr_v6_t, ceCollBatch.useIntraSync));
}

TEST(AbiLayout, ProfilerStateArgsV7) {
  EXPECT_EQ(sizeof(ncclProfilerEventStateArgs_v7_t), 8u);
  EXPECT_EQ(offsetof(ncclProfilerEventStateArgs_v7_t, kernelCh.pTimer), 0u);
  EXPECT_EQ(offsetof(ncclProfilerEventStateArgs_v7_t, proxyStep.transSize), 0u);
}

TEST(AbiLayout, ProfilerV7) {
  EXPECT_EQ(sizeof(ncclProfiler_v7_t), 48u);
  EXPECT_EQ(offsetof(ncclProfiler_v7_t, startEvent), 16u);
  EXPECT_EQ(offsetof(ncclProfiler_v7_t, recordEventState), 32u);
  EXPECT_EQ(offsetof(ncclProfiler_v7_t, finalize), 40u);
}

TEST(AbiLayout, ProfilerV7Constants) {
  EXPECT_EQ(ncclProfileKernelPhase, 1 << 15);  // nccl_profiler.h:29@v2.31.2
  EXPECT_EQ(ncclProfilerKernelPhaseStop, 31);  // nccl_profiler.h:78@v2.31.2
}
