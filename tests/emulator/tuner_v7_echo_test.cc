// Tuner v7 through the driver's two init calls, seen from a plugin that declares its own types
// (tests/plugins/tuner_plugin.c): an NCCL that keeps a v7 table hands v7 all 1272 bytes and v5/v6 the
// four-row copy NCCL's adapters make; row 4 reaches only v7; writes past either table are caught.
#include <cstring>

#include "emulator/logger.h"
#include "emulator/tuner_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

ncclNvlDomainInfo_v5_t v7Domains() {
  return {static_cast<int>(kNodes), 0x3, 0x9};
}

// NCCL's table of a v7 release, with a row 4 that differs from the Blackwell row everywhere.
ncclTunerConstants_v7_t markedV7Table() {
  ncclTunerConstants_v7_t c = defaultTunerConstantsV7(NcclBehaviour::V2_30);
  for (int s = 0; s < NCCL_NUM_TUNING_SCALES_V5; ++s) c.perChMaxTreeBws[NCCL_RUBIN_COMPCAP_IDX][s] = 500.0 + s;
  return c;
}

class TunerV7EchoTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    binding = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-all.so"), GetParam());
    ASSERT_TRUE(binding) << joined(binding.log);
    resetEcho(binding);
    echo = echoOf(binding);
  }
  Binding binding;
  rtEchoRecord* echo = nullptr;
};
INSTANTIATE_TEST_SUITE_P(ConstantVersions, TunerV7EchoTest, ::testing::Values(5, 6, 7), versionTestName);

TEST_P(TunerV7EchoTest, InitFromAV7NcclHandsEachVersionItsOwnTable) {
  TunerDriver d(binding);
  ncclTunerConstants_v7_t constants = markedV7Table();
  const ncclTunerConstants_v7_t sent = constants;
  ASSERT_EQ(d.initV7(kCommId, kRanks, kNodes, v7Domains(), &constants), ncclSuccess);
  EXPECT_TRUE(d.violations().empty()) << d.violations().front();
  const rtEchoCall* c = findCall(echo, "tuner.init");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->nArgs, 10);
  EXPECT_EQ(c->args[1], kCommId);
  EXPECT_EQ(c->args[8], 0x3u);
  if (GetParam() == 7) {
    ASSERT_EQ(c->nBytes, sizeof(ncclTunerConstants_v7_t));
    EXPECT_EQ(std::memcmp(c->bytes, &sent, sizeof(sent)), 0) << "v7 saw NCCL's five rows byte for byte";
    EXPECT_EQ(constants.perChMaxTreeBws[NCCL_RUBIN_COMPCAP_IDX][NCCL_TUNING_SCALE_4NODES], 16.0)
        << "v7's row-4 edit reaches NCCL";
  } else {
    ncclTunerConstants_v5_t narrowed;
    tunerConstantsV7ToV5(&narrowed, &sent);
    ASSERT_EQ(c->nBytes, sizeof(ncclTunerConstants_v5_t));
    EXPECT_EQ(std::memcmp(c->bytes, &narrowed, sizeof(narrowed)), 0) << "v5/v6 saw rows 0..3";
    EXPECT_EQ(std::memcmp(constants.perChMaxTreeBws[NCCL_RUBIN_COMPCAP_IDX],
                          sent.perChMaxTreeBws[NCCL_RUBIN_COMPCAP_IDX], sizeof(double) * NCCL_NUM_TUNING_SCALES_V5),
              0)
        << "row 4 is not visible to v5/v6";
  }
  EXPECT_EQ(constants.perChMaxTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][NCCL_TUNING_SCALE_4NODES], 15.0)
      << "the Blackwell edit reaches NCCL in every version";
}

TEST_P(TunerV7EchoTest, CallsAfterInitReachTheBoundVersion) {
  TunerDriver d(binding);
  ncclTunerConstants_v7_t constants = markedV7Table();
  ASSERT_EQ(d.initV7(kCommId, kRanks, kNodes, v7Domains(), &constants), ncclSuccess);
  CostTable table{};
  int nChannels = 0;
  ASSERT_EQ(d.getCollInfo(ncclFuncAllGather, kBytes, kPipeOps, table, kRegBuff, &nChannels), ncclSuccess);
  const rtEchoCall* call = findCall(echo, "tuner.getCollInfo");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->version, GetParam());
  EXPECT_EQ(d.hasChunkSize(), GetParam() >= 6);
  if (d.hasChunkSize()) {
    size_t chunk = 1 << 17;
    ASSERT_EQ(d.getChunkSize(ncclFuncAllReduce, kBytes, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 4, &chunk), ncclSuccess);
    EXPECT_EQ(chunk, 0xC0FFEEu);
  }
  EXPECT_EQ(d.finalize(), ncclSuccess);
  EXPECT_EQ(findCall(echo, "tuner.finalize")->version, GetParam());
}

TEST(TunerV7Poison, WritesPastEitherTableAreCaughtAndTheTableIsKept) {
  for (int v : {5, 6, 7}) {
    const Binding b = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-poison-constants.so"), v);
    ASSERT_TRUE(b) << v;
    TunerDriver d(b);
    ncclTunerConstants_v7_t constants = markedV7Table();
    const ncclTunerConstants_v7_t sent = constants;
    EXPECT_EQ(d.initV7(kCommId, kRanks, kNodes, v7Domains(), &constants), ncclInternalError) << v;
    ASSERT_EQ(d.violations().size(), 1u) << v;
    const std::string table = v == 7 ? "ncclTunerConstants_v7_t" : "ncclTunerConstants_v5_t";
    EXPECT_NE(d.violations().front().find("plugin wrote past the end of " + table), std::string::npos)
        << d.violations().front();
    EXPECT_EQ(std::memcmp(&constants, &sent, sizeof(sent)), 0) << "v" << v << ": a misbehaving init changes nothing";
  }
}

TEST(TunerV7Poison, FourRowInitOfAV7BindingWidensFirst) {
  const Binding b = Loader::bindVersion(PluginKind::Tuner, pluginPath("libnccl-tuner-all.so"), 7);
  resetEcho(b);
  TunerDriver d(b);
  ncclTunerConstants_v5_t rows = defaultTunerConstants(NcclBehaviour::V2_30);
  ASSERT_EQ(d.init(kCommId, kRanks, kNodes, v7Domains(), &rows), ncclSuccess);
  EXPECT_TRUE(d.violations().empty()) << d.violations().front();
  EXPECT_EQ(findCall(echoOf(b), "tuner.init")->nBytes, sizeof(ncclTunerConstants_v7_t)) << "never the short table";
  EXPECT_EQ(rows.perChMaxTreeBws[NCCL_BLACKWELL_COMPCAP_IDX][NCCL_TUNING_SCALE_4NODES], 15.0);
}

// NCCL's own walk for a release, from the per-release table: the first version it tries that the library
// exports. 2.31.2 and 2.32.3 stop at v6 although the library has v7; 2.32.6 takes v7.
int boundByRelease(int versionCode, const std::string& library) {
  for (int v : symbolVersionsForNccl(versionCode, PluginKind::Tuner))
    if (Loader::bindVersion(PluginKind::Tuner, pluginPath(library), v)) return v;
  return 0;
}

TEST(TunerV7Releases, WhichReleaseBindsV7) {
  EXPECT_EQ(boundByRelease(23102, "libnccl-tuner-all.so"), 6);
  EXPECT_EQ(boundByRelease(23203, "libnccl-tuner-all.so"), 6);
  EXPECT_EQ(boundByRelease(23206, "libnccl-tuner-all.so"), 7);
  EXPECT_EQ(boundByRelease(23206, "libnccl-tuner-v6.so"), 6) << "a v6-only tuner under 2.32.6 falls back to v6";
  EXPECT_EQ(boundByRelease(22809, "libnccl-tuner-v7.so"), 0) << "2.28 knows no v7";
}

}  // namespace
}  // namespace railtune::emu::test
