// Sentinel echo through every tuner version's call sites: each argument the driver passes must come
// out of the plugin (which declares its own types) in its own slot.
#include <cstring>

#include "emulator/logger.h"
#include "emulator/tuner_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

constexpr uint64_t tunerCtx(int version) {
  return 0x7C7C0000u + static_cast<unsigned>(version);
}

class TunerEchoTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    binding = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-all.so"), GetParam());
    ASSERT_TRUE(binding) << joined(binding.log);
    resetEcho(binding);
    echo = echoOf(binding);
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; a++)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; p++) table[a][p] = static_cast<float>(a * 10 + p) + 0.5f;
    table[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] = -1.0f;
    table[NCCL_ALGO_COLLNET_CHAIN][NCCL_PROTO_SIMPLE] = -1.0f;
  }
  int version() const { return GetParam(); }
  ncclResult_t initDriver(TunerDriver& d, ncclTunerConstants_v5_t* c) {
    ncclNvlDomainInfo_v5_t domains{static_cast<int>(kNodes), 0x3, 0x9};
    return d.init(kCommId, kRanks, kNodes, domains, c);
  }

  Binding binding;
  rtEchoRecord* echo = nullptr;
  CostTable table{};
};
INSTANTIATE_TEST_SUITE_P(Versions, TunerEchoTest, ::testing::Values(2, 3, 4, 5, 6), versionTestName);

// v2 alone: the adapter's support flags and its forcing of the plugin's choice.
class TunerV2Test : public TunerEchoTest {};
INSTANTIATE_TEST_SUITE_P(V2, TunerV2Test, ::testing::Values(2), versionTestName);

TEST_P(TunerEchoTest, InitArguments) {
  TunerDriver d(binding);
  ncclTunerConstants_v5_t constants = defaultTunerConstants(NcclBehaviour::V2_30);
  const ncclTunerConstants_v5_t sent = constants;
  ASSERT_EQ(initDriver(d, &constants), ncclSuccess);
  const rtEchoCall* c = findCall(echo, "tuner.init");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->version, version());
  const uint64_t logger = bits(reinterpret_cast<void*>(pluginLogger()));
  if (version() <= 4) {
    ASSERT_EQ(c->nArgs, 4);
    EXPECT_EQ(c->args[0], kRanks);
    EXPECT_EQ(c->args[1], kNodes);
    EXPECT_EQ(c->args[2], logger);
    EXPECT_NE(c->args[3], 0u);
    EXPECT_EQ(std::memcmp(&constants, &sent, sizeof(sent)), 0) << "v2-v4 get no constants";
  } else {
    ASSERT_EQ(c->nArgs, 10);
    EXPECT_NE(c->args[0], 0u);
    EXPECT_EQ(c->args[1], kCommId);
    EXPECT_EQ(c->args[2], kRanks);
    EXPECT_EQ(c->args[3], kNodes);
    EXPECT_EQ(c->args[4], logger);
    EXPECT_NE(c->args[5], 0u);
    EXPECT_NE(c->args[6], 0u);
    EXPECT_EQ(c->args[7], kNodes);  // nNvlDomains
    EXPECT_EQ(c->args[8], 0x3u);    // minRanksPerNvlDomain
    EXPECT_EQ(c->args[9], 0x9u);    // maxRanksPerNvlDomain
    ASSERT_EQ(c->nBytes, sizeof(ncclTunerConstants_v5_t));
    EXPECT_EQ(std::memcmp(c->bytes, &sent, sizeof(sent)), 0) << "the plugin saw NCCL's constants byte for byte";
    EXPECT_EQ(constants.perChMaxTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][NCCL_TUNING_SCALE_4NODES], 15.0)
        << "the plugin's edit reaches NCCL's model";
  }
  EXPECT_EQ(bits(d.context()), tunerCtx(version()));
  EXPECT_TRUE(d.violations().empty());
}

TEST_P(TunerEchoTest, GetCollInfoArguments) {
  TunerDriver d(binding);
  ASSERT_EQ(initDriver(d, nullptr), ncclSuccess);
  CostTable sent;
  std::memcpy(sent, table, sizeof(table));
  int nChannels = 0;
  ASSERT_EQ(d.getCollInfo(ncclFuncAllGather, kBytes, kPipeOps, table, kRegBuff, &nChannels), ncclSuccess);
  const rtEchoCall* c = findCall(echo, "tuner.getCollInfo");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->args[0], tunerCtx(version()));
  EXPECT_EQ(c->args[1], static_cast<uint64_t>(ncclFuncAllGather));
  EXPECT_EQ(c->args[2], kBytes);
  EXPECT_EQ(nChannels, 0x21);
  EXPECT_EQ(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE], 0.0f) << "the plugin's choice came back";
  if (version() == 2) {
    ASSERT_EQ(c->nArgs, 11);
    EXPECT_EQ(c->args[3], 0u);  // collNetSupport: CollNetChain/Simple is ignored
    EXPECT_EQ(c->args[4], 1u);  // nvlsSupport: NVLSTree/Simple is set
    EXPECT_EQ(c->args[5], static_cast<uint64_t>(kPipeOps));
    EXPECT_EQ(c->args[9], bits(NCCL_ALGO_UNDEF));
    EXPECT_EQ(c->args[10], bits(NCCL_PROTO_UNDEF));
    return;
  }
  EXPECT_EQ(c->args[3], static_cast<uint64_t>(kPipeOps));
  EXPECT_NE(c->args[4], 0u);
  EXPECT_EQ(c->args[5], 7u);
  EXPECT_EQ(c->args[6], 3u);
  const int next = version() == 3 ? 7 : 8;
  if (version() >= 4) {
    EXPECT_EQ(c->args[7], static_cast<uint64_t>(kRegBuff));
  }
  EXPECT_EQ(c->args[next], bits(&nChannels));
  EXPECT_EQ(c->args[next + 1], 0u) << "NCCL starts nChannels at 0";
  ASSERT_EQ(c->nBytes, sizeof(CostTable));
  EXPECT_EQ(std::memcmp(c->bytes, sent, sizeof(CostTable)), 0) << "a real float[7][3] behind the float**";
}

TEST_P(TunerV2Test, SupportFlagsFollowTheTable) {
  TunerDriver d(binding);
  ASSERT_EQ(initDriver(d, nullptr), ncclSuccess);
  table[NCCL_ALGO_NVLS_TREE][NCCL_PROTO_SIMPLE] = -1.0f;
  table[NCCL_ALGO_COLLNET_CHAIN][NCCL_PROTO_SIMPLE] = 3.0f;
  table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE] = -1.0f;  // the plugin's pick is ruled out: stays ignored
  int nChannels = 0;
  ASSERT_EQ(d.getCollInfo(ncclFuncAllReduce, kBytes, kPipeOps, table, kRegBuff, &nChannels), ncclSuccess);
  const rtEchoCall* c = findCall(echo, "tuner.getCollInfo");
  EXPECT_EQ(c->args[3], 1u);
  EXPECT_EQ(c->args[4], 0u);
  EXPECT_EQ(table[NCCL_ALGO_RING][NCCL_PROTO_SIMPLE], -1.0f);
}

TEST_P(TunerEchoTest, GetChunkSizeOnlyFromV6) {
  TunerDriver d(binding);
  ASSERT_EQ(initDriver(d, nullptr), ncclSuccess);
  EXPECT_EQ(d.hasChunkSize(), version() == 6);
  if (version() != 6) return;
  size_t chunk = 0x77;
  ASSERT_EQ(d.getChunkSize(ncclFuncAllReduce, kBytes, NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE, 0x13, &chunk), ncclSuccess);
  const rtEchoCall* c = findCall(echo, "tuner.getChunkSize");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->nArgs, 8);
  EXPECT_EQ(c->args[0], tunerCtx(6));
  EXPECT_EQ(c->args[1], static_cast<uint64_t>(ncclFuncAllReduce));
  EXPECT_EQ(c->args[2], kBytes);
  EXPECT_EQ(c->args[3], static_cast<uint64_t>(NCCL_ALGO_NVLS));
  EXPECT_EQ(c->args[4], static_cast<uint64_t>(NCCL_PROTO_SIMPLE));
  EXPECT_EQ(c->args[5], 0x13u);
  EXPECT_EQ(c->args[6], bits(&chunk));
  EXPECT_EQ(c->args[7], 0x77u);
  EXPECT_EQ(chunk, 0xC0FFEEu);
}

TEST_P(TunerEchoTest, FinalizeGetsTheContext) {
  {
    TunerDriver d(binding);
    ASSERT_EQ(initDriver(d, nullptr), ncclSuccess);
    EXPECT_EQ(d.finalize(), ncclSuccess);
    EXPECT_EQ(d.finalize(), ncclSuccess);  // once only
  }
  EXPECT_EQ(countCalls(echo, "tuner.finalize"), 1);
  EXPECT_EQ(findCall(echo, "tuner.finalize")->args[0], tunerCtx(version()));
}

TEST_P(TunerEchoTest, DestructorFinalizesAnOpenContext) {
  {
    TunerDriver d(binding);
    ASSERT_EQ(initDriver(d, nullptr), ncclSuccess);
  }
  EXPECT_EQ(countCalls(echo, "tuner.finalize"), 1);
}

TEST_P(TunerEchoTest, InitFailureIsReturned) {
  Binding failing = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-initfail.so"), version());
  ASSERT_TRUE(failing);
  TunerDriver d(failing);
  EXPECT_EQ(initDriver(d, nullptr), ncclInternalError);
}

TEST(TunerConstants, DefaultsFollowTheBehaviour) {
  ncclTunerConstants_v5_t a = defaultTunerConstants(NcclBehaviour::V2_28);
  ncclTunerConstants_v5_t b = defaultTunerConstants(NcclBehaviour::V2_30);
  EXPECT_EQ(a.baseLatencies[NCCL_ALGO_RING][NCCL_PROTO_LL], 6.6);
  EXPECT_EQ(a.hwLatencies[NCCL_HW_NET][NCCL_ALGO_NVLS_TREE][NCCL_PROTO_SIMPLE], 20.9);
  EXPECT_EQ(a.perChMaxRingLL128Bws[NCCL_BLACKWELL_COMPCAP_IDX][1], 34.6);
  EXPECT_EQ(b.perChMaxRingLL128Bws[NCCL_BLACKWELL_COMPCAP_IDX][1], 40.0);
  EXPECT_EQ(a.perChMaxNVLSTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][2], 43.8);
  EXPECT_EQ(b.perChMaxNVLSTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][2], 80.0);
  EXPECT_EQ(a.llMaxBws[NCCL_HOPPER_COMPCAP_IDX][0], b.llMaxBws[NCCL_HOPPER_COMPCAP_IDX][0]);
}

TEST(TunerConstants, PickFromCostTableKeepsTheStrictlySmallest) {
  CostTable t;
  for (auto& row : t)
    for (float& v : row) v = -1.0f;
  int a = 0, p = 0;
  EXPECT_FALSE(pickFromCostTable(t, &a, &p));
  t[NCCL_ALGO_RING][NCCL_PROTO_LL] = 5.0f;
  t[NCCL_ALGO_TREE][NCCL_PROTO_SIMPLE] = 5.0f;
  t[NCCL_ALGO_PAT][NCCL_PROTO_SIMPLE] = 7.0f;
  ASSERT_TRUE(pickFromCostTable(t, &a, &p));
  EXPECT_EQ(a, NCCL_ALGO_TREE);
  EXPECT_EQ(p, NCCL_PROTO_SIMPLE);
  t[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] = 0.0f;
  t[NCCL_ALGO_COLLNET_DIRECT][NCCL_PROTO_SIMPLE] = 0.0f;
  ASSERT_TRUE(pickFromCostTable(t, &a, &p));
  EXPECT_EQ(a, NCCL_ALGO_COLLNET_DIRECT);
}

}  // namespace
}  // namespace railtune::emu::test
