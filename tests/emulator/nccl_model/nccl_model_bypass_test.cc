// ncclBypass (emulator/nccl_model/bypass.h): the paths NCCL takes without letting a tuner change them, per
// release, read from NCCL's sources; every case states the condition it turns.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "emulator/nccl_model/bypass.h"

namespace railtune::ncclmodel {
namespace {

using formats::Collective;
using formats::Protocol;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// One GB300 NVL72 rack under MNNVL: one NCCL node of 72 Blackwell GPUs with NVLS.
BypassComm rack() {
  return BypassComm{72, 1, 103, true};
}

BypassQuery query(BypassRelease r, Collective c, uint64_t nBytes, Registration reg) {
  BypassQuery q;
  q.release = r;
  q.collective = c;
  q.nBytes = nBytes;
  q.registration = reg;
  return q;
}

bool mentions(const BypassVerdict& v, const std::string& text) {
  for (const std::string& c : v.conditions)
    if (c.find(text) != std::string::npos) return true;
  return false;
}

TEST(NcclBypass, UnregisteredBuffersAreTunedInEveryRelease) {
  for (BypassRelease r : {BypassRelease::V2_28, BypassRelease::V2_30, BypassRelease::V2_31})
    for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter}) {
      const BypassVerdict v = ncclBypass(rack(), query(r, c, 4 * kMiB, Registration::None));
      EXPECT_EQ(v.path, BypassPath::Tuned) << bypassReleaseName(r) << " " << formats::collectiveName(c);
    }
}

TEST(NcclBypass, SymmetricWindowsPickASymmetricKernel) {
  for (BypassRelease r : {BypassRelease::V2_28, BypassRelease::V2_30, BypassRelease::V2_31}) {
    const BypassVerdict v = ncclBypass(rack(), query(r, Collective::AllReduce, 4 * kMiB, Registration::Symmetric));
    EXPECT_EQ(v.path, BypassPath::Symmetric) << bypassReleaseName(r);
    EXPECT_EQ(v.summary, "NCCL decides without a tuner: symmetric kernel");
    EXPECT_EQ(v.tunerAsked, r == BypassRelease::V2_31);
  }
}

TEST(NcclBypass, BroadcastAndReduceHaveNoSymmetricKernel) {
  for (Collective c : {Collective::Broadcast, Collective::Reduce}) {
    const BypassVerdict v = ncclBypass(rack(), query(BypassRelease::V2_30, c, 4 * kMiB, Registration::Symmetric));
    EXPECT_EQ(v.path, BypassPath::Tuned);
    EXPECT_TRUE(mentions(v, "fails: AllGather, AllReduce or ReduceScatter")) << v.summary;
  }
}

TEST(NcclBypass, ReductionsNeedSumOnFloats) {
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllReduce, 4 * kMiB, Registration::Symmetric);
  q.op = RedOp::Max;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q.op = RedOp::Avg;  // avg joined sum in 2.30 (ncclDevSumPostDiv), not in 2.28
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
  q.release = BypassRelease::V2_28;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q = query(BypassRelease::V2_30, Collective::ReduceScatter, 4 * kMiB, Registration::Symmetric);
  q.dataType = DataType::Double;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q.dataType = DataType::Int32;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q.dataType = DataType::Bfloat16;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
  q.collective = Collective::AllGather;  // AllGather moves any type
  q.dataType = DataType::Int32;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
}

TEST(NcclBypass, SeveralNodesHaveNoSymmetricSupport) {
  BypassComm twoRacks = rack();
  twoRacks.nRanks = 144;
  twoRacks.nNodes = 2;
  for (Collective c : {Collective::AllReduce, Collective::AllGather}) {
    const BypassVerdict v = ncclBypass(twoRacks, query(BypassRelease::V2_30, c, 64 * kMiB, Registration::Symmetric));
    EXPECT_EQ(v.path, BypassPath::Tuned);
    EXPECT_NE(v.summary.find("directly over NVLink"), std::string::npos) << v.summary;
    EXPECT_TRUE(v.caveat.empty());
  }
}

TEST(NcclBypass, ZeroCtaPolicyAcrossNodesIsTunedWithACaveat) {
  // ncclHierCeAvailable needs NCCL's RMA proxy, which is not emulated: neither path is claimed outright.
  BypassComm twoRacks = rack();
  twoRacks.nRanks = 144;
  twoRacks.nNodes = 2;
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllGather, 64 * kMiB, Registration::Symmetric);
  q.cta = CtaPolicy{false, true};
  BypassVerdict v = ncclBypass(twoRacks, q);
  EXPECT_EQ(v.path, BypassPath::Tuned);
  EXPECT_NE(v.caveat.find("unless NCCL's RMA proxy is up: then copy engine (hierarchical"), std::string::npos);
  q.release = BypassRelease::V2_28;  // 2.28's CE path is one node only
  EXPECT_TRUE(ncclBypass(twoRacks, q).caveat.empty());
  q.release = BypassRelease::V2_31;
  q.registration = Registration::Local;
  EXPECT_TRUE(ncclBypass(twoRacks, q).caveat.empty());
}

TEST(NcclBypass, WindowsOffMeansTuned) {
  BypassQuery q = query(BypassRelease::V2_31, Collective::AllReduce, 4 * kMiB, Registration::Symmetric);
  q.env.winEnable = false;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
}

TEST(NcclBypass, BusBytesLimitSymmetricKernels) {
  // 64 GiB of bus bytes and more: no symmetric kernel at all (32-bit chunk counters).
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllReduce, 64 * kGiB, Registration::Symmetric);
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q.nBytes = 64 * kGiB - 1024;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
}

TEST(NcclBypass, NoWindowsRunsTheLLKernelOnlyWhenAskedAndTheTunedPickIsLL) {
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllReduce, 64 * 1024, Registration::Local);
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);  // NCCL_SYM_NOWIN_ENABLE=0 by default
  q.env.symNoWinEnable = true;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);  // the tuned pick unknown: not claimed
  q.tunedProtocol = Protocol::Simple;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q.tunedProtocol = Protocol::LL;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
  q.nBytes = 2 * kGiB;  // LL kernels stop at 2 GiB of bus bytes
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
}

TEST(NcclBypass, ForcedKernelMustNameTheCollective) {
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllReduce, 4 * kMiB, Registration::Symmetric);
  q.env.symKernel = "AllGather_ST";
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
  q.env.symKernel = "AllReduce_AGxLL_R";
  q.registration = Registration::None;  // forced LL kernel runs without windows
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
  q.env.symKernel = "AllReduce_RSxLD_AGxST";  // not LL: needs windows
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
}

TEST(NcclBypass, LargeAllGatherGoesToTheCopyEnginesFrom230) {
  // 72 ranks, float: 8 Mi elements per rank is 32 MiB per rank, 2304 MiB in all.
  const uint64_t atThreshold = uint64_t{8} * kMiB * 4 * 72;
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllGather, atThreshold, Registration::Symmetric);
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);  // count > threshold is strict
  q.nBytes = atThreshold * 2;
  const BypassVerdict v = ncclBypass(rack(), q);
  EXPECT_EQ(v.path, BypassPath::CopyEngine);
  EXPECT_EQ(v.summary, "NCCL decides without a tuner: copy engine (AllGather above NCCL_SYM_CE_THRESHOLD)");
  q.release = BypassRelease::V2_28;  // 2.28 has no automatic CE AllGather
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
  q.release = BypassRelease::V2_30;
  q.registration = Registration::Local;  // the receive buffer must be a symmetric window
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
}

TEST(NcclBypass, CopyEngineThresholdIsAVariableAndHopperNeverQualifies) {
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllGather, 72 * 4 * kMiB, Registration::Symmetric);
  q.env.symCeThreshold = 1024;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::CopyEngine);
  BypassComm hopper{8, 1, 90, true};
  q.nBytes = 8 * 4 * 16 * kMiB;
  EXPECT_EQ(ncclBypass(hopper, q).path, BypassPath::Symmetric);
}

TEST(NcclBypass, Release231QuadruplesTheThresholdWithoutMulticast) {
  // Without NVLS (no LSA multicast) and with TMA kernels on Blackwell, 2.31 raises the default 4x.
  BypassComm noNvls{8, 1, 100, false};
  const uint64_t above = uint64_t{16} * kMiB * 4 * 8;  // 16 Mi floats per rank: above 8 Mi, below 32 Mi
  BypassQuery q = query(BypassRelease::V2_30, Collective::AllGather, above, Registration::Symmetric);
  EXPECT_EQ(ncclBypass(noNvls, q).path, BypassPath::CopyEngine);
  q.release = BypassRelease::V2_31;
  EXPECT_EQ(ncclBypass(noNvls, q).path, BypassPath::Symmetric);
  q.env.symTmaEnable = false;
  EXPECT_EQ(ncclBypass(noNvls, q).path, BypassPath::CopyEngine);
  q.env.symTmaEnable.reset();
  q.env.symCeThreshold = 8 * kMiB;  // set explicitly: no quadrupling
  EXPECT_EQ(ncclBypass(noNvls, q).path, BypassPath::CopyEngine);
}

TEST(NcclBypass, ZeroCtaPolicySendsAllGatherToTheCopyEngines) {
  BypassQuery q = query(BypassRelease::V2_28, Collective::AllGather, 64 * 1024, Registration::Symmetric);
  q.cta = CtaPolicy{false, true};
  for (BypassRelease r : {BypassRelease::V2_28, BypassRelease::V2_30, BypassRelease::V2_31}) {
    q.release = r;
    const BypassVerdict v = ncclBypass(rack(), q);
    EXPECT_EQ(v.path, BypassPath::CopyEngine) << bypassReleaseName(r);
    EXPECT_EQ(v.summary, "NCCL decides without a tuner: copy engine (zero-SM CTA policy)");
  }
  q.collective = Collective::AllReduce;  // no CE AllReduce: the symmetric kernel still runs
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Symmetric);
  q.collective = Collective::AllGather;
  q.registration = Registration::Local;
  EXPECT_EQ(ncclBypass(rack(), q).path, BypassPath::Tuned);
}

TEST(NcclBypass, EveryConditionNamesItsSource) {
  const BypassVerdict v =
      ncclBypass(rack(), query(BypassRelease::V2_30, Collective::AllGather, 64 * kMiB, Registration::Symmetric));
  ASSERT_FALSE(v.conditions.empty());
  for (const std::string& c : v.conditions) EXPECT_NE(c.find("@v2.30.7]"), std::string::npos) << c;
}

TEST(NcclBypass, SingleRankIsNeverBypassed) {
  const BypassVerdict v = ncclBypass(BypassComm{1, 1, 100, true},
                                     query(BypassRelease::V2_31, Collective::AllReduce, kMiB, Registration::Symmetric));
  EXPECT_EQ(v.path, BypassPath::Tuned);
}

TEST(NcclBypassNames, ParseWhatNcclAndNcclTestsAccept) {
  EXPECT_EQ(parseRegistration("2"), Registration::Symmetric);
  EXPECT_EQ(parseRegistration("LOCAL"), Registration::Local);
  EXPECT_FALSE(parseRegistration("window"));
  EXPECT_EQ(parseCtaPolicy("2"), (CtaPolicy{false, true}));
  EXPECT_EQ(parseCtaPolicy("zero|Efficiency"), (CtaPolicy{true, true}));
  EXPECT_EQ(parseCtaPolicy("DEFAULT"), CtaPolicy{});
  EXPECT_FALSE(parseCtaPolicy("fast"));
  EXPECT_FALSE(parseCtaPolicy("7"));
  EXPECT_EQ(ctaPolicyName(CtaPolicy{true, true}), "efficiency|zero");
  EXPECT_EQ(parseDataType("bfloat16"), DataType::Bfloat16);
  EXPECT_EQ(parseDataType("float32"), DataType::Float);
  EXPECT_EQ(dataTypeSize(DataType::Half), 2u);
  EXPECT_FALSE(parseDataType("float128"));
  EXPECT_EQ(parseRedOp("avg"), RedOp::Avg);
  EXPECT_FALSE(parseRedOp("mulsum"));
  EXPECT_EQ(parseBypassRelease("2.31"), BypassRelease::V2_31);
  EXPECT_FALSE(parseBypassRelease("2.29"));
  EXPECT_STREQ(bypassPathName(BypassPath::CopyEngine), "copy_engine");
}

TEST(NcclBypassNames, EnvironmentIsReadAsNcclReadsIt) {
  std::map<std::string, std::string> vars{
      {"NCCL_SYM_CE_THRESHOLD", "0x100000"}, {"NCCL_SYM_NOWIN_ENABLE", "1"}, {"NCCL_SYM_KERNEL", "AllGather_ST"}};
  auto get = [&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
  BypassEnv env = readBypassEnv(get);
  EXPECT_EQ(env.symCeThreshold, 1 << 20);
  EXPECT_TRUE(env.symNoWinEnable);
  EXPECT_TRUE(env.winEnable);
  EXPECT_FALSE(env.symTmaEnable.has_value());
  EXPECT_EQ(env.symKernel, "AllGather_ST");
  vars["NCCL_WIN_ENABLE"] = "yes";
  try {
    readBypassEnv(get);
    FAIL() << "a non-number was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL_WIN_ENABLE='yes'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace railtune::ncclmodel
