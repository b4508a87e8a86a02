// The decomposition's coefficients, caps and factors against NCCL's formulas worked by hand for the
// hand-written DGX H100 topologies of nccl_model_test_support.h (lines cite src/graph/tuning.cc at
// v2.30.7; the same formulas sit at v2.28.9 where given), the constants' names and layout, and the GPU
// to profile map.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "emulator/nccl_model/graph_data.h"
#include "emulator/nccl_model/terms.h"
#include "tests/emulator/nccl_model/nccl_model_test_support.h"

namespace railtune::ncclmodel {
namespace {

constexpr auto kAR = Collective::AllReduce;
const CostModelConstants kDefaults = defaultCostModelConstants(NcclVersion::V2_30);

double coefOf(const LatencyTerms& t, ConstId id) {
  for (uint8_t i = 0; i < t.n; i++)
    if (t.terms[i].id == id) return t.terms[i].coef;
  return 0;
}

// Ring on one node (tuning.cc:384, :412; :353, :379@v2.28.9): base + 2(n-1) NVLink hops, no offset; the
// net overhead is 0 on one node (:405-409), so the LL hop (0.6 us) stays a constant.
TEST(NcclModelTermsFormula, RingOneNodeAllReduce) {
  const ShapeModel sm(NcclVersion::V2_30, CommShape{8, 1}, testing::dgxH100OneHost());
  for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
    const LatencyTerms t = sm.latencyTerms(kDefaults, kAR, Algorithm::Ring, p);
    EXPECT_EQ(t.n, 2);
    EXPECT_EQ(coefOf(t, baseLatencyId(Algorithm::Ring, p)), 1);
    EXPECT_EQ(coefOf(t, hwLatencyId(HwLink::Nvlink, Algorithm::Ring, p)), 14);  // 2 x (8 - 1)
    EXPECT_EQ(t.offset, 0);
    EXPECT_FALSE(t.netOverheadBinds);
  }
  // LL128 (:328-329): min(0.92 x 12 ch x 30 GB/s, 12 x perChMaxRingLL128Bws[Hopper][1NODE] 36.7) x 8/14.
  const BandwidthTerms ll128 = sm.bandwidthTerms(kDefaults, kAR, Algorithm::Ring, Protocol::LL128);
  EXPECT_DOUBLE_EQ(ll128.graphBus, 360);
  EXPECT_DOUBLE_EQ(ll128.factor, 0.92);
  ASSERT_EQ(ll128.nCaps, 1);
  EXPECT_STREQ(constName(ll128.caps[0].id), "perChMaxRingLL128Bws[Hopper][1NODE]");
  EXPECT_EQ(ll128.caps[0].scale, 12);
  EXPECT_DOUBLE_EQ(ll128.ratio, 8.0 / 14);
  EXPECT_EQ(ll128.binding, -1);  // 331.2 < 440.4: the graph binds
  EXPECT_NEAR(ll128.algBw, 331.2 * 8 / 14, 1e-9);
  // LL (:327): min(llMaxBws[Hopper][1NODE] 141, 0.5 x 360): the cap binds, scale 1.
  const BandwidthTerms ll = sm.bandwidthTerms(kDefaults, kAR, Algorithm::Ring, Protocol::LL);
  ASSERT_EQ(ll.nCaps, 1);
  EXPECT_STREQ(constName(ll.caps[0].id), "llMaxBws[Hopper][1NODE]");
  EXPECT_EQ(ll.caps[0].scale, 1);
  EXPECT_EQ(ll.binding, 0);
  EXPECT_NEAR(ll.algBw, 141.0 * 8 / 14, 1e-9);
  // Broadcast on the same channels (:393-397): base + one hop.
  const LatencyTerms bcast = sm.latencyTerms(kDefaults, Collective::Broadcast, Algorithm::Ring, Protocol::Simple);
  EXPECT_EQ(bcast.n, 2);
  EXPECT_EQ(coefOf(bcast, hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::Simple)), 1);
}

// Tree AllReduce on 2 hosts of 8 (:414-417; :381-385@v2.28.9): base + 2((8-1) NVLink + log2(2) NET
// hops), and each NET hop carries the NIC latency, twice for Simple (:389-391).
TEST(NcclModelTermsFormula, TreeMultiNodeAllReduce) {
  TopologyFacts topo = testing::dgxH100Hosts();
  topo.tree.latencyInter = 1.5f;
  const ShapeModel sm(NcclVersion::V2_30, CommShape{16, 2}, topo);
  const LatencyTerms simple = sm.latencyTerms(kDefaults, kAR, Algorithm::Tree, Protocol::Simple);
  EXPECT_EQ(simple.n, 3);
  EXPECT_EQ(coefOf(simple, baseLatencyId(Algorithm::Tree, Protocol::Simple)), 1);
  EXPECT_EQ(coefOf(simple, hwLatencyId(HwLink::Nvlink, Algorithm::Tree, Protocol::Simple)), 14);
  EXPECT_EQ(coefOf(simple, hwLatencyId(HwLink::Net, Algorithm::Tree, Protocol::Simple)), 2);
  EXPECT_DOUBLE_EQ(simple.offset, 2 * (2 * 1.5));
  EXPECT_DOUBLE_EQ(sm.latencyTerms(kDefaults, kAR, Algorithm::Tree, Protocol::LL).offset, 2 * 1.5);
  // LL (:330-332): min(min(0.92 x 8 x 48, 8 x perChMaxTreeBws 41.4) / 3.8, llMaxBws 39), then x 0.5
  // (:380). Across nodes llMaxBws' row is the CPU's: Intel is row 0 (:269-271).
  const BandwidthTerms ll = sm.bandwidthTerms(kDefaults, kAR, Algorithm::Tree, Protocol::LL);
  EXPECT_DOUBLE_EQ(ll.graphBus, 384);
  EXPECT_DOUBLE_EQ(ll.factor, 0.92 / 3.8);
  ASSERT_EQ(ll.nCaps, 2);
  EXPECT_STREQ(constName(ll.caps[0].id), "perChMaxTreeBws[Hopper][2NODES]");
  EXPECT_EQ(ll.caps[0].scale, 8);
  EXPECT_DOUBLE_EQ(ll.caps[0].capFactor, 1 / 3.8);
  EXPECT_STREQ(constName(ll.caps[1].id), "llMaxBws[OtherCPU][2NODES]");
  EXPECT_EQ(ll.binding, 1);
  EXPECT_DOUBLE_EQ(ll.ratio, 0.5);
  EXPECT_NEAR(ll.algBw, 39.0 * 0.5, 1e-9);
  // LL128 across nodes (:333-335): x 120/128, then perChMaxTreeLL128Bws 36.7 per channel binds.
  const BandwidthTerms ll128 = sm.bandwidthTerms(kDefaults, kAR, Algorithm::Tree, Protocol::LL128);
  ASSERT_EQ(ll128.nCaps, 2);
  EXPECT_DOUBLE_EQ(ll128.caps[0].capFactor, 120.0 / 128);
  EXPECT_STREQ(constName(ll128.caps[1].id), "perChMaxTreeLL128Bws[Hopper][2NODES]");
  EXPECT_EQ(ll128.binding, 1);
  EXPECT_NEAR(ll128.algBw, 8 * 36.7 * 0.5, 1e-9);
  topo.cpuVendor = CpuVendor::Amd;  // AMD reads row 1
  const ShapeModel amd(NcclVersion::V2_30, CommShape{16, 2}, topo);
  EXPECT_STREQ(constName(amd.bandwidthTerms(kDefaults, kAR, Algorithm::Tree, Protocol::LL).caps[1].id),
               "llMaxBws[AmdCPU][2NODES]");
}

// NVLS on one node (:424-426): the NVLink hop replaces the base; bandwidth (:308-322) min(40 x 0.85 x
// 7/8 x 2, 60) = 59.5 per head, 8 heads, no cap, x 8/14 (:379).
TEST(NcclModelTermsFormula, NvlsOneNode) {
  const ShapeModel sm(NcclVersion::V2_30, CommShape{8, 1}, testing::dgxH100OneHost());
  const LatencyTerms t = sm.latencyTerms(kDefaults, kAR, Algorithm::Nvls, Protocol::Simple);
  ASSERT_EQ(t.n, 1);
  EXPECT_STREQ(constName(t.terms[0].id), "hwLatencies[NVLINK][NVLS][Simple]");
  EXPECT_EQ(t.terms[0].coef, 1);
  EXPECT_EQ(t.offset, 0);
  const BandwidthTerms b = sm.bandwidthTerms(kDefaults, kAR, Algorithm::Nvls, Protocol::Simple);
  EXPECT_NEAR(b.graphBus, 8 * 59.5, 1e-4);
  EXPECT_EQ(b.nCaps, 0);
  EXPECT_DOUBLE_EQ(b.ratio, 8.0 / 14);
  EXPECT_FALSE(sm.offered(kAR, Algorithm::NvlsTree, Protocol::Simple));  // NVLSTree needs 2+ nodes (:502)
}

// NVLSTree on 2 hosts (:428; :395@v2.28.9): base + NVLink hop + 2 log2(2) NET hops; its cap
// perChMaxNVLSTreeBws (57.7 per channel) is a per-channel min beside 59.5 and 2 x 48 (:319-322).
TEST(NcclModelTermsFormula, NvlsTreeTwoNodes) {
  const ShapeModel sm(NcclVersion::V2_30, CommShape{16, 2}, testing::dgxH100Hosts());
  const LatencyTerms t = sm.latencyTerms(kDefaults, kAR, Algorithm::NvlsTree, Protocol::Simple);
  EXPECT_EQ(t.n, 3);
  EXPECT_EQ(coefOf(t, baseLatencyId(Algorithm::NvlsTree, Protocol::Simple)), 1);
  EXPECT_EQ(coefOf(t, hwLatencyId(HwLink::Nvlink, Algorithm::NvlsTree, Protocol::Simple)), 1);
  EXPECT_EQ(coefOf(t, hwLatencyId(HwLink::Net, Algorithm::NvlsTree, Protocol::Simple)), 2);
  const BandwidthTerms b = sm.bandwidthTerms(kDefaults, kAR, Algorithm::NvlsTree, Protocol::Simple);
  ASSERT_EQ(b.nCaps, 1);
  EXPECT_STREQ(constName(b.caps[0].id), "perChMaxNVLSTreeBws[Hopper][2NODES]");
  EXPECT_EQ(b.caps[0].scale, 8);
  EXPECT_EQ(b.binding, 0);
  EXPECT_NEAR(b.algBw, 8 * 57.7 * 16 / 30, 1e-4);
  EXPECT_FALSE(sm.offered(kAR, Algorithm::Nvls, Protocol::Simple));  // NVLS across nodes needs CollNet (:505)
}

// A ring across nodes (:403-412): 2(n-1) = 30 steps, 2(nNodes-1) = 2 of them over the network; the
// others cost max(NVLink hop, net overhead 1 us, x3 for Simple). LL's 0.6 us hop is under it: offset.
TEST(NcclModelTermsFormula, RingAcrossNodesNetOverhead) {
  const ShapeModel sm(NcclVersion::V2_30, CommShape{16, 2}, testing::dgxH100Hosts());
  const LatencyTerms ll = sm.latencyTerms(kDefaults, kAR, Algorithm::Ring, Protocol::LL);
  EXPECT_TRUE(ll.netOverheadBinds);
  EXPECT_DOUBLE_EQ(ll.offset, 28 * 1.0);
  EXPECT_EQ(coefOf(ll, hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::LL)), 0);
  EXPECT_EQ(coefOf(ll, hwLatencyId(HwLink::Net, Algorithm::Ring, Protocol::LL)), 2);
  const LatencyTerms simple = sm.latencyTerms(kDefaults, kAR, Algorithm::Ring, Protocol::Simple);
  EXPECT_FALSE(simple.netOverheadBinds);  // 3.4 us > 3 x 1 us
  EXPECT_EQ(coefOf(simple, hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::Simple)), 28);
  CostModelConstants slowLink = kDefaults;
  constRef(slowLink, hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::LL)) = 1.2;  // now above 1 us
  EXPECT_EQ(coefOf(sm.latencyTerms(slowLink, kAR, Algorithm::Ring, Protocol::LL),
                   hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::LL)),
            28);
}

// PAT with one rank per node (:386-388, :430-433): the network hop is Tree's, a third and a half of it per
// log2(nNodes), plus 2.8 us per rank; bandwidth x 0.75 (:337), not converted for AllGather (:377).
TEST(NcclModelTermsFormula, PatOneRankPerNode) {
  const ShapeModel sm(NcclVersion::V2_30, CommShape{4, 4}, testing::dgxH100Hosts());
  const LatencyTerms t = sm.latencyTerms(kDefaults, Collective::AllGather, Algorithm::Pat, Protocol::Simple);
  EXPECT_EQ(t.n, 2);
  EXPECT_DOUBLE_EQ(coefOf(t, hwLatencyId(HwLink::Net, Algorithm::Tree, Protocol::Simple)), 2 / 3.5);
  EXPECT_DOUBLE_EQ(t.offset, 4 * 2.8);
  const BandwidthTerms b = sm.bandwidthTerms(kDefaults, Collective::AllGather, Algorithm::Pat, Protocol::Simple);
  EXPECT_DOUBLE_EQ(b.factor, 0.75);
  EXPECT_EQ(b.ratio, 1);
  EXPECT_EQ(b.nCaps, 0);
}

// On POWER NCCL copies Ring/Simple's PCI latency over Tree/Simple's after the tuner's init (:278-280):
// the constant that moves Tree/Simple over PCI is Ring's.
TEST(NcclModelTermsFormula, PowerReadsRingForTreeSimpleOverPci) {
  TopologyFacts topo = testing::dgxH100OneHost();
  topo.cpuArch = CpuArch::Power;
  topo.tree.typeIntra = PathType::PXB;
  const ShapeModel sm(NcclVersion::V2_30, CommShape{8, 1}, topo);
  EXPECT_EQ(coefOf(sm.latencyTerms(kDefaults, kAR, Algorithm::Tree, Protocol::Simple),
                   hwLatencyId(HwLink::Pci, Algorithm::Ring, Protocol::Simple)),
            14);
  EXPECT_EQ(coefOf(sm.latencyTerms(kDefaults, kAR, Algorithm::Tree, Protocol::LL),
                   hwLatencyId(HwLink::Pci, Algorithm::Tree, Protocol::LL)),
            14);
}

// ncclTopoGetAlgoTime (:630-654; :584-600@v2.28.9): the tree correction at log2(1 MiB / 64) = 14 is
// LL128's 0.6; the ring plateau x1.4 from 64 B per channel and rank (16 channels x 16 ranks); latCount.
TEST(NcclModelTermsFormula, PerCallFactorsAndTheTime) {
  const ShapeModel sm(NcclVersion::V2_30, CommShape{16, 2}, testing::dgxH100Hosts());
  EXPECT_FLOAT_EQ(sm.perCall(kAR, Algorithm::Tree, Protocol::LL128, 1 << 20).bandwidthFactor, 0.6f);
  EXPECT_FLOAT_EQ(sm.perCall(kAR, Algorithm::Ring, Protocol::Simple, 64 << 20).latencyFactor, 1.4f);
  EXPECT_FLOAT_EQ(sm.perCall(kAR, Algorithm::Ring, Protocol::Simple, 8192).latencyFactor, 1.0f);  // 32 B < 64
  EXPECT_EQ(sm.perCall(kAR, Algorithm::Ring, Protocol::Simple, 8192, 13).latCount, 13);
  EXPECT_EQ(sm.perCall(kAR, Algorithm::Tree, Protocol::Simple, 8192, 13).latCount, 2);  // ceil(13 / 10)
  // The time from the linear views: lat x factor x count + n / (1000 x bw x factor).
  const size_t n = 64 << 20;
  const LatencyTerms lat = sm.latencyTerms(kDefaults, kAR, Algorithm::Ring, Protocol::Simple);
  const BandwidthTerms bw = sm.bandwidthTerms(kDefaults, kAR, Algorithm::Ring, Protocol::Simple);
  const PerCallFactors k = sm.perCall(kAR, Algorithm::Ring, Protocol::Simple, n);
  const double t = lat.value(kDefaults) * static_cast<double>(k.latencyFactor) * k.latCount +
                   static_cast<double>(n) / (1000 * bw.value(kDefaults) * static_cast<double>(k.bandwidthFactor));
  EXPECT_NEAR(static_cast<double>(sm.timeUs(kDefaults, kAR, Algorithm::Ring, Protocol::Simple, n)), t, 1e-5 * t);
}

// The Blackwell Ring/LL128 cap is the constant 2.30 lowered (tuning.cc:189@v2.30.7: 40 per channel;
// :179@v2.28.9: 2 x 36.7 = 73.4): one id, two versions' defaults.
TEST(NcclModelTermsFormula, VersionsShareIdsNotValues) {
  const GraphShape& tray = builtinGraphData("gb300-nvl72").shapeFor(CommShape{4, 1});
  for (NcclVersion v : {NcclVersion::V2_28, NcclVersion::V2_30}) {
    const ShapeModel sm(v, CommShape{4, 1}, tray.factsFor(v));
    const BandwidthTerms b = sm.bandwidthTerms(defaultCostModelConstants(v), kAR, Algorithm::Ring, Protocol::LL128);
    ASSERT_EQ(b.nCaps, 1);
    EXPECT_STREQ(constName(b.caps[0].id), "perChMaxRingLL128Bws[Blackwell][1NODE]");
    EXPECT_EQ(constValue(defaultCostModelConstants(v), b.caps[0].id), v == NcclVersion::V2_30 ? 40.0 : 73.4);
  }
}

TEST(NcclModelTermsConstants, NamesFollowNcclsLayout) {
  EXPECT_STREQ(constName(hwLatencyId(HwLink::Nvlink, Algorithm::Ring, Protocol::LL128)),
               "hwLatencies[NVLINK][Ring][LL128]");
  EXPECT_STREQ(constName(baseLatencyId(Algorithm::Tree, Protocol::LL)), "baseLatencies[Tree][LL]");
  EXPECT_STREQ(constName(capId(CapArray::LlMax, 3, 0)), "llMaxBws[Blackwell][1NODE]");
  EXPECT_STREQ(constName(capId(CapArray::LlMax, 1, 2)), "llMaxBws[AmdCPU][4NODES]");
  EXPECT_STREQ(constName(capId(CapArray::NvlsTree, 3, 2)), "perChMaxNVLSTreeBws[Blackwell][4NODES]");
  EXPECT_EQ(static_cast<int>(capId(CapArray::NvlsTree, 3, 2)), kNumConstIds - 1);
  EXPECT_STREQ(constName(static_cast<ConstId>(kNumConstIds)), "invalid");
  EXPECT_FALSE(constIdByName("hwLatencies[NVLINK][Ring]"));
  EXPECT_THROW(constValue(kDefaults, kNoConst), std::out_of_range);
  std::set<std::string> seen;
  for (int i = 0; i < kNumConstIds; i++) {
    const auto id = static_cast<ConstId>(i);
    EXPECT_TRUE(seen.insert(constName(id)).second) << constName(id);
    EXPECT_EQ(constIdByName(constName(id)), id);
    // Id i is the i-th double of the struct, as in ncclTunerConstants_v5_t.
    CostModelConstants c{};
    constRef(c, id) = 1.0;
    double flat[kNumConstIds];
    std::memcpy(flat, &c, sizeof flat);
    for (int j = 0; j < kNumConstIds; j++) ASSERT_EQ(flat[j], j == i ? 1.0 : 0.0) << constName(id);
    EXPECT_EQ(constValue(c, id), 1.0);
  }
}

TEST(NcclModelTermsProfiles, GpuNamesMapToBuiltinProfiles) {
  EXPECT_EQ(profileForGpu("NVIDIA GB300"), "gb300-nvl72");
  EXPECT_EQ(profileForGpu("NVIDIA GB200"), "gb200-nvl72");
  EXPECT_EQ(profileForGpu("NVIDIA B200"), "dgx-b200");
  EXPECT_EQ(profileForGpu("NVIDIA H100 80GB HBM3"), "dgx-h100");
  EXPECT_EQ(profileForGpu("GB300"), "gb300-nvl72");
  for (const char* other : {"NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200", "NVIDIA A100-SXM4-80GB",
                            "NVIDIA GB300 ", "nvidia gb300", ""})
    EXPECT_EQ(profileForGpu(other), std::nullopt) << other;
  for (const std::string& profile : builtinGraphProfiles()) {
    const std::optional<std::string> gpu = gpuForProfile(profile);
    ASSERT_TRUE(gpu) << profile;
    EXPECT_EQ(profileForGpu(*gpu), profile);
  }
  EXPECT_EQ(gpuForProfile("dgx-a100"), std::nullopt);
}

}  // namespace
}  // namespace railtune::ncclmodel
