// The real profiler .so, every exported version: mask 0 ("record nothing") until the event store
// arrives, and each row of the failure table by injecting a fault.
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

#include "nccl/profiler_v1.h"
#include "nccl/profiler_v2.h"
#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v5.h"
#include "nccl/profiler_v6.h"
#include "tests/e2e/plugin_fixture.h"

namespace railtune::testing {
namespace {

constexpr uint64_t kCommId = 0xfeed5eed;
constexpr int kAllEvents = 0x7fff;

// One version's calls in one shape. startEvent always passes a Coll descriptor.
struct ProfilerApi {
  int version = 0;
  const char* name = nullptr;
  std::function<ncclResult_t(void** ctx, int* mask)> init;
  std::function<ncclResult_t(void* ctx, void** handle, bool withDescr)> startEvent;
  std::function<ncclResult_t(void* handle)> stopEvent;
  std::function<ncclResult_t(void* handle, ncclProfilerEventState_t)> recordEventState;
  std::function<ncclResult_t(void* ctx)> finalize;
};

template <typename Table, typename Descr, typename Args>
void bindEvents(ProfilerApi& api, const Table* t) {
  api.name = t->name;
  api.startEvent = [t](void* ctx, void** handle, bool withDescr) {
    Descr descr{};
    descr.type = ncclProfileColl;
    descr.rank = 0;
    return t->startEvent(ctx, handle, withDescr ? &descr : nullptr);
  };
  api.stopEvent = t->stopEvent;
  api.recordEventState = [t](void* handle, ncclProfilerEventState_t state) {
    Args args{};
    return t->recordEventState(handle, state, &args);
  };
  api.finalize = t->finalize;
}

ProfilerApi bindProfiler(const PluginLibrary& lib, int version) {
  ProfilerApi api;
  const std::string symbol = std::string("ncclProfiler_v").append(std::to_string(version));
  auto oldInit = [](auto* t) { return [t](void** ctx, int* mask) { return t->init(ctx, mask); }; };
  if (version == 1) {
    if (auto* t = lib.table<ncclProfiler_v1_t>(symbol)) {
      bindEvents<ncclProfiler_v1_t, ncclProfilerEventDescr_v1_t, ncclProfilerEventStateArgs_v1_t>(api, t);
      api.init = oldInit(t);
    }
  } else if (version == 2) {
    if (auto* t = lib.table<ncclProfiler_v2_t>(symbol)) {
      bindEvents<ncclProfiler_v2_t, ncclProfilerEventDescr_v2_t, ncclProfilerEventStateArgs_v2_t>(api, t);
      api.init = oldInit(t);
    }
  } else if (version == 3) {
    if (auto* t = lib.table<ncclProfiler_v3_t>(symbol)) {
      bindEvents<ncclProfiler_v3_t, ncclProfilerEventDescr_v3_t, ncclProfilerEventStateArgs_v3_t>(api, t);
      api.init = oldInit(t);
    }
  } else if (version == 4) {
    if (auto* t = lib.table<ncclProfiler_v4_t>(symbol)) {
      bindEvents<ncclProfiler_v4_t, ncclProfilerEventDescr_v4_t, ncclProfilerEventStateArgs_v4_t>(api, t);
      api.init = [t](void** ctx, int* mask) { return t->init(ctx, mask, "trainer", kCommId, 2, 16, 3, captureLogger); };
    }
  } else if (version == 5) {
    if (auto* t = lib.table<ncclProfiler_v5_t>(symbol)) {
      bindEvents<ncclProfiler_v5_t, ncclProfilerEventDescr_v5_t, ncclProfilerEventStateArgs_v5_t>(api, t);
      api.init = [t](void** ctx, int* mask) { return t->init(ctx, kCommId, mask, "trainer", 2, 16, 3, captureLogger); };
    }
  } else if (version == 6) {
    if (auto* t = lib.table<ncclProfiler_v6_t>(symbol)) {
      bindEvents<ncclProfiler_v6_t, ncclProfilerEventDescr_v6_t, ncclProfilerEventStateArgs_v6_t>(api, t);
      api.init = [t](void** ctx, int* mask) { return t->init(ctx, kCommId, mask, "trainer", 2, 16, 3, captureLogger); };
    }
  }
  if (api.init) api.version = version;
  return api;
}

class ProfilerTest : public PluginTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    ASSERT_TRUE(lib.loaded()) << lib.path() << ": " << dlerror();
    api = bindProfiler(lib, GetParam());
    ASSERT_EQ(api.version, GetParam()) << "ncclProfiler_v" << GetParam() << " not exported";
  }
  void TearDown() override {
    if (context != nullptr) {
      EXPECT_EQ(api.finalize(context), ncclSuccess);
    }
  }
  bool hasLogger() const { return GetParam() >= 4; }  // v1..v3 init gets no logger: WARN goes to stderr
  // Runs init and returns what it printed on stderr (where v1..v3 warnings go).
  std::string initCapturingStderr(ncclResult_t* result) {
    ::testing::internal::CaptureStderr();
    *result = api.init(&context, &mask);
    return ::testing::internal::GetCapturedStderr();
  }
  size_t warnings(const std::string& stderrText) const {
    if (hasLogger()) return warnCount();
    size_t n = 0;
    for (size_t at = stderrText.find("WARN railtune profiler:"); at != std::string::npos;
         at = stderrText.find("WARN railtune profiler:", at + 1)) {
      ++n;
    }
    return n;
  }

  PluginLibrary lib{"profiler"};
  ProfilerApi api;
  void* context = nullptr;
  int mask = kAllEvents;  // NCCL's mask is one process-wide int; the plugin must write it
};

TEST_P(ProfilerTest, BindsAndAsksForTheDefaultEvents) {
  env.unset("RAILTUNE_PROFILE_MASK");
  EXPECT_STREQ(api.name, "railtune");
  ncclResult_t result;
  const std::string err = initCapturingStderr(&result);
  ASSERT_EQ(result, ncclSuccess);
  EXPECT_EQ(mask & (ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp),
            ncclProfileColl | ncclProfileP2p | ncclProfileProxyOp)
      << "the default captures what completion and the hang watchdog need";
  EXPECT_EQ(mask & ncclProfileProxyStep, 0) << "per-step events are not in the production default";
  EXPECT_NE(context, nullptr);
  void* handle = nullptr;
  EXPECT_EQ(api.startEvent(context, &handle, true), ncclSuccess);
  EXPECT_NE(handle, nullptr) << "a Coll event is recorded";
  EXPECT_EQ(api.stopEvent(handle), ncclSuccess);
  EXPECT_EQ(api.stopEvent(nullptr), ncclSuccess);
  EXPECT_EQ(api.recordEventState(nullptr, ncclProfilerProxyStepSendWait), ncclSuccess);
  EXPECT_EQ(warnings(err), 0u) << err << logText();
}

TEST_P(ProfilerTest, MaskNoneRecordsNothing) {
  env.set("RAILTUNE_PROFILE_MASK", "none");
  ncclResult_t result;
  const std::string err = initCapturingStderr(&result);
  ASSERT_EQ(result, ncclSuccess);
  EXPECT_EQ(mask, 0);
  void* handle = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.startEvent(context, &handle, true), ncclSuccess);
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(warnings(err), 0u) << err << logText();
}

TEST_P(ProfilerTest, InitFaultGivesMaskZeroAndSuccess) {
  injectFault("profiler.init");
  ncclResult_t result;
  const std::string err = initCapturingStderr(&result);
  EXPECT_EQ(result, ncclSuccess);
  EXPECT_EQ(mask, 0);
  EXPECT_EQ(warnings(err), 1u) << err << logText();
  void* handle = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.startEvent(context, &handle, true), ncclSuccess);
  EXPECT_EQ(handle, nullptr);
}

TEST_P(ProfilerTest, StartEventFaultDropsTheEventAndDisablesTheContext) {
  injectFault("profiler.startEvent");
  ncclResult_t result;
  std::string err = initCapturingStderr(&result);
  ASSERT_EQ(result, ncclSuccess);
  ::testing::internal::CaptureStderr();
  for (int call = 0; call < 4; ++call) {
    void* handle = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(api.startEvent(context, &handle, true), ncclSuccess);
    EXPECT_EQ(handle, nullptr);
  }
  err += ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 1u) << err << logText();
}

TEST_P(ProfilerTest, StopAndRecordFaultsAreContainedWithOneWarningEach) {
  injectFault("profiler.stopEvent,profiler.recordEventState");
  ncclResult_t result;
  std::string err = initCapturingStderr(&result);
  ASSERT_EQ(result, ncclSuccess);
  ::testing::internal::CaptureStderr();
  for (int call = 0; call < 3; ++call) {
    EXPECT_EQ(api.stopEvent(nullptr), ncclSuccess);
    EXPECT_EQ(api.recordEventState(nullptr, ncclProfilerProxyCtrlIdle), ncclSuccess);
  }
  err += ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 2u) << err << logText();
}

TEST_P(ProfilerTest, MisuseIsHandled) {
  ncclResult_t result;
  std::string err = initCapturingStderr(&result);
  ASSERT_EQ(result, ncclSuccess);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(api.startEvent(context, nullptr, true), ncclSuccess);  // NULL eHandle
  void* handle = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.startEvent(context, &handle, false), ncclSuccess);  // NULL descriptor
  EXPECT_EQ(handle, nullptr);
  EXPECT_EQ(api.startEvent(nullptr, &handle, true), ncclSuccess);  // NULL context: init failed
  EXPECT_EQ(api.finalize(nullptr), ncclSuccess);
  err += ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 2u) << err << logText();
}

TEST_P(ProfilerTest, NullMaskPointerIsSurvived) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(api.init(&context, nullptr), ncclSuccess);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 1u) << err << logText();
}

// Events arrive from application, proxy and net threads at once.
TEST_P(ProfilerTest, ConcurrentEventFailuresAreContained) {
  injectFault("profiler.startEvent,profiler.stopEvent");
  ncclResult_t result;
  std::string err = initCapturingStderr(&result);
  ASSERT_EQ(result, ncclSuccess);
  ::testing::internal::CaptureStderr();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this] {
      for (int call = 0; call < 200; ++call) {
        void* handle = reinterpret_cast<void*>(0x1);
        EXPECT_EQ(api.startEvent(context, &handle, true), ncclSuccess);
        EXPECT_EQ(handle, nullptr);
        EXPECT_EQ(api.stopEvent(handle), ncclSuccess);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  err += ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings(err), 2u) << "one for startEvent (context disabled), one for stopEvent\n" << err << logText();
}

INSTANTIATE_TEST_SUITE_P(AllVersions, ProfilerTest, ::testing::Values(1, 2, 3, 4, 5, 6), versionName);

class ProfilerCommTest : public ProfilerTest {};

// v4 passes commHash after commName, v5/v6 commId first: both must reach the engine as the same id.
TEST_P(ProfilerCommTest, CommunicatorArgumentsArriveInTheirPlaces) {
  ASSERT_EQ(api.init(&context, &mask), ncclSuccess);
  EXPECT_TRUE(logged("comm 0xfeed5eed 'trainer' rank 3 of 16 on 2 nodes")) << logText();
}

INSTANTIATE_TEST_SUITE_P(CommVersions, ProfilerCommTest, ::testing::Values(4, 5, 6), versionName);

}  // namespace
}  // namespace railtune::testing
