// The real tuner .so, every exported version, loaded and called as NCCL does: "no opinion" until
// the engine has rules, and each row of the failure table by injecting a fault.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "tests/e2e/plugin_fixture.h"
#include "tests/e2e/tuner_api.h"

namespace railtune::testing {
namespace {

class TunerTest : public PluginTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    ASSERT_TRUE(lib.loaded()) << lib.path() << ": " << dlerror();
    api = bindTuner(lib, GetParam());
    ASSERT_EQ(api.version, GetParam()) << "ncclTunerPlugin_v" << GetParam() << " not exported";
    fillNcclLikeTable(table);
    std::memcpy(original, table, sizeof(table));
  }
  void TearDown() override {
    if (context != nullptr) {
      EXPECT_EQ(api.finalize(context), ncclSuccess);
    }
  }

  ncclResult_t init() { return api.init(&context, initArgs); }
  ncclResult_t getCollInfo(ncclFunc_t coll = ncclFuncAllReduce) {
    args.coll = coll;
    args.table = reinterpret_cast<float**>(table);
    args.nChannels = &nChannels;
    return api.getCollInfo(context, args);
  }
  bool tableUntouched() const { return std::memcmp(table, original, sizeof(table)) == 0; }

  PluginLibrary lib{"tuner"};
  TunerApi api;
  TunerInitArgs initArgs;
  CollArgs args;
  void* context = nullptr;
  CostTable table, original;
  int nChannels = 0;
};

TEST_P(TunerTest, BindsAndHasNoOpinion) {
  EXPECT_STREQ(api.name, "railtune");
  ASSERT_EQ(init(), ncclSuccess) << logText();
  EXPECT_NE(context, nullptr);
  for (ncclFunc_t coll :
       {ncclFuncBroadcast, ncclFuncReduce, ncclFuncAllGather, ncclFuncReduceScatter, ncclFuncAllReduce}) {
    for (size_t bytes : {size_t{0}, size_t{8}, size_t{1} << 20, size_t{1} << 34}) {
      args.nBytes = bytes;
      ASSERT_EQ(getCollInfo(coll), ncclSuccess);
      EXPECT_TRUE(tableUntouched()) << "coll " << coll << " bytes " << bytes;
      EXPECT_EQ(nChannels, 0);
      EXPECT_EQ(args.algorithm, NCCL_ALGO_UNDEF);
      EXPECT_EQ(args.protocol, NCCL_PROTO_UNDEF);
    }
  }
  EXPECT_EQ(warnCount(), 0u) << logText();
  EXPECT_TRUE(logged(std::string("railtune tuner: ABI v").append(std::to_string(GetParam())))) << logText();
}

TEST_P(TunerTest, InitFaultStillSucceedsWithAPassThroughContext) {
  injectFault("tuner.init");
  ASSERT_EQ(init(), ncclSuccess);
  EXPECT_NE(context, nullptr) << "a pass-through context, so NCCL keeps calling harmlessly";
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("railtune tuner: init failed: injected fault at tuner.init")) << logText();
  ASSERT_EQ(getCollInfo(), ncclSuccess);
  EXPECT_TRUE(tableUntouched());
  EXPECT_EQ(nChannels, 0);
  EXPECT_EQ(args.algorithm, NCCL_ALGO_UNDEF);
  EXPECT_EQ(warnCount(), 1u);
}

TEST_P(TunerTest, InitFaultUnderStrictIsAnError) {
  injectFault("tuner.init");
  env.set("RAILTUNE_STRICT", "1");
  EXPECT_EQ(init(), ncclInternalError);
  EXPECT_EQ(context, nullptr);
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("RAILTUNE_STRICT=1")) << logText();
}

TEST_P(TunerTest, BadConfigurationValueIsOneWarningAndOnlyFatalUnderStrict) {
  injectFault("tuner.sometimes");
  ASSERT_EQ(init(), ncclSuccess);
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("RAILTUNE_INJECT_FAULT='tuner.sometimes'")) << logText();
  ASSERT_EQ(api.finalize(context), ncclSuccess);
  context = nullptr;

  LogCapture::instance().clear();
  env.set("RAILTUNE_STRICT", "1");
  EXPECT_EQ(init(), ncclInvalidUsage);
  EXPECT_EQ(context, nullptr);
  EXPECT_EQ(warnCount(), 1u) << logText();
}

TEST_P(TunerTest, BadStrictValueIsNamedAndTreatedAsOff) {
  env.set("RAILTUNE_STRICT", "maybe");
  injectFault("tuner.init");
  ASSERT_EQ(init(), ncclSuccess);
  EXPECT_TRUE(logged("RAILTUNE_STRICT='maybe'")) << logText();
  EXPECT_EQ(warnCount(), 2u) << "the bad value and the init failure, one line each\n" << logText();
}

TEST_P(TunerTest, GetCollInfoFaultLeavesTableUntouchedAndDisablesTheContext) {
  injectFault("tuner.getCollInfo");
  ASSERT_EQ(init(), ncclSuccess);
  for (int call = 0; call < 5; ++call) {
    ASSERT_EQ(getCollInfo(), ncclSuccess);
    EXPECT_TRUE(tableUntouched());
    EXPECT_EQ(nChannels, 0);
    EXPECT_EQ(args.algorithm, NCCL_ALGO_UNDEF);
  }
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("getCollInfo failed: injected fault at tuner.getCollInfo")) << logText();
  // A disabled context does nothing at all, not even look at the collective.
  ASSERT_EQ(getCollInfo(static_cast<ncclFunc_t>(ncclFuncSendRecv)), ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << logText();
}

TEST_P(TunerTest, AnotherCommunicatorIsNotDisabledByThisOnesFailure) {
  injectFault("tuner.getCollInfo");
  ASSERT_EQ(init(), ncclSuccess);
  ASSERT_EQ(getCollInfo(), ncclSuccess);
  env.unset("RAILTUNE_INJECT_FAULT");
  void* second = nullptr;
  ASSERT_EQ(api.init(&second, initArgs), ncclSuccess);  // re-reads the (now empty) fault list
  LogCapture::instance().clear();
  args.table = reinterpret_cast<float**>(table);
  args.coll = static_cast<ncclFunc_t>(ncclFuncSendRecv);
  ASSERT_EQ(api.getCollInfo(second, args), ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << "the healthy context still looks at its calls\n" << logText();
  EXPECT_EQ(api.finalize(second), ncclSuccess);
}

TEST_P(TunerTest, UnknownCollectiveIsLeftToNcclWithOneWarning) {
  ASSERT_EQ(init(), ncclSuccess);
  // SendRecv, AlltoAll, WaitSignal, and one no NCCL has yet (still inside ncclFunc_t's value range)
  for (int coll : {5, 8, 14, 15}) {
    ASSERT_EQ(getCollInfo(static_cast<ncclFunc_t>(coll)), ncclSuccess);
    EXPECT_TRUE(tableUntouched());
  }
  EXPECT_EQ(warnCount(), 1u) << logText();
  ASSERT_EQ(getCollInfo(), ncclSuccess) << "known collectives still handled";
  EXPECT_EQ(warnCount(), 1u);
}

TEST_P(TunerTest, ImpossibleCommunicatorIsPassThrough) {
  initArgs.nRanks = 2;
  initArgs.nNodes = 4;
  ASSERT_EQ(init(), ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("impossible communicator")) << logText();
}

TEST_P(TunerTest, NullContextMeansNcclDecides) {
  args.table = reinterpret_cast<float**>(table);
  args.nChannels = &nChannels;
  EXPECT_EQ(api.getCollInfo(nullptr, args), ncclSuccess);
  EXPECT_TRUE(tableUntouched());
  EXPECT_EQ(api.finalize(nullptr), ncclSuccess);
  EXPECT_EQ(warnCount(), 0u);
}

TEST_P(TunerTest, InitWithoutAContextPointerIsRejected) {
  EXPECT_EQ(api.init(nullptr, initArgs), ncclInvalidArgument);
  EXPECT_EQ(warnCount(), 1u) << logText();
}

// NCCL may call one communicator's tuner from several threads; the context disables itself once.
TEST_P(TunerTest, ConcurrentFailuresDisableOnceWithOneWarning) {
  injectFault("tuner.getCollInfo");
  ASSERT_EQ(init(), ncclSuccess);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this] {
      for (int call = 0; call < 200; ++call) {
        CostTable local;
        fillNcclLikeTable(local);
        int channels = 0;
        CollArgs a;
        a.table = reinterpret_cast<float**>(local);
        a.nChannels = &channels;
        EXPECT_EQ(api.getCollInfo(context, a), ncclSuccess);
        EXPECT_EQ(channels, 0);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(warnCount(), 1u) << logText();
}

INSTANTIATE_TEST_SUITE_P(AllVersions, TunerTest, ::testing::Values(2, 3, 4, 5, 6, 7), versionName);

// Misuse that only the cost-table versions can express.
class TunerTableTest : public TunerTest {};

TEST_P(TunerTableTest, WrongTableShapeIsMisuseAndLeavesTableUntouched) {
  ASSERT_EQ(init(), ncclSuccess);
  args.numAlgo = 6;
  ASSERT_EQ(getCollInfo(), ncclSuccess);
  EXPECT_TRUE(tableUntouched());
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("7 algorithms x 3 protocols")) << logText();
}

TEST_P(TunerTableTest, NullTableOrChannelsIsMisuseNotACrash) {
  ASSERT_EQ(init(), ncclSuccess);
  args.table = nullptr;
  args.nChannels = &nChannels;
  EXPECT_EQ(api.getCollInfo(context, args), ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << logText();

  void* second = nullptr;
  ASSERT_EQ(api.init(&second, initArgs), ncclSuccess);
  args.table = reinterpret_cast<float**>(table);
  args.nChannels = nullptr;
  EXPECT_EQ(api.getCollInfo(second, args), ncclSuccess);
  EXPECT_TRUE(tableUntouched());
  EXPECT_EQ(warnCount(), 2u) << logText();
  EXPECT_EQ(api.finalize(second), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(CostTableVersions, TunerTableTest, ::testing::Values(3, 4, 5, 6, 7), versionName);

// v5+: NCCL's cost-model constants and NVLink-domain info.
class TunerConstantsTest : public TunerTest {};

TEST_P(TunerConstantsTest, ConstantsStayBitIdentical) {
  ncclTunerConstants_v5_t constants;
  for (size_t i = 0; i < sizeof(constants) / sizeof(double); ++i) {
    reinterpret_cast<double*>(&constants)[i] = 0.5 + static_cast<double>(i);
  }
  const ncclTunerConstants_v5_t before = constants;
  initArgs.constants = &constants;
  ASSERT_EQ(init(), ncclSuccess);
  EXPECT_EQ(std::memcmp(&before, &constants, sizeof(constants)), 0);
  EXPECT_TRUE(logged("comm 0xc0ffee")) << logText();
}

TEST_P(TunerConstantsTest, ConstantsStayUntouchedWhenInitFails) {
  injectFault("tuner.init");
  ncclTunerConstants_v5_t constants;
  std::memset(&constants, 0x3c, sizeof(constants));
  const ncclTunerConstants_v5_t before = constants;
  initArgs.constants = &constants;
  ASSERT_EQ(init(), ncclSuccess);
  EXPECT_EQ(std::memcmp(&before, &constants, sizeof(constants)), 0);
}

INSTANTIATE_TEST_SUITE_P(ConstantsVersions, TunerConstantsTest, ::testing::Values(5, 6, 7), versionName);

// v6, v7: getChunkSize.
class TunerChunkTest : public TunerTest {};

TEST_P(TunerChunkTest, ChunkSizeIsLeftToNccl) {
  ASSERT_TRUE(api.getChunkSize);
  ASSERT_EQ(init(), ncclSuccess);
  size_t chunk = 131072;
  EXPECT_EQ(api.getChunkSize(context, ncclFuncAllReduce, 1 << 24, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 8, &chunk),
            ncclSuccess);
  EXPECT_EQ(chunk, 131072u);
  EXPECT_EQ(warnCount(), 0u) << logText();
}

TEST_P(TunerChunkTest, ChunkSizeFaultLeavesChunkUntouchedAndDisables) {
  injectFault("tuner.getChunkSize");
  ASSERT_EQ(init(), ncclSuccess);
  size_t chunk = 65536;
  for (int call = 0; call < 3; ++call) {
    EXPECT_EQ(api.getChunkSize(context, ncclFuncAllGather, 1 << 20, NCCL_ALGO_RING, NCCL_PROTO_LL128, 4, &chunk),
              ncclSuccess);
    EXPECT_EQ(chunk, 65536u);
  }
  EXPECT_EQ(warnCount(), 1u) << logText();
  ASSERT_EQ(getCollInfo(static_cast<ncclFunc_t>(ncclFuncSendRecv)), ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << "the whole context is disabled\n" << logText();
}

TEST_P(TunerChunkTest, ChunkSizeMisuseIsHandled) {
  ASSERT_EQ(init(), ncclSuccess);
  EXPECT_EQ(api.getChunkSize(context, ncclFuncAllReduce, 1024, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1, nullptr),
            ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << logText();
  void* second = nullptr;
  ASSERT_EQ(api.init(&second, initArgs), ncclSuccess);
  size_t chunk = 4096;
  EXPECT_EQ(api.getChunkSize(second, ncclFuncAllReduce, 1024, 7, NCCL_PROTO_SIMPLE, 1, &chunk), ncclSuccess);
  EXPECT_EQ(chunk, 4096u);
  EXPECT_EQ(warnCount(), 2u) << logText();
  EXPECT_EQ(api.getChunkSize(nullptr, ncclFuncAllReduce, 1024, NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 1, &chunk),
            ncclSuccess);
  EXPECT_EQ(api.finalize(second), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(ChunkVersions, TunerChunkTest, ::testing::Values(6, 7), versionName);

}  // namespace
}  // namespace railtune::testing
