// The real net .so, every exported version, told to step aside (RAILTUNE_NET_TRANSPORT=none): init
// fails with one WARN, so NCCL moves on to its own transport; the data path answers wrong use and
// injected failures with precise errors and one WARN naming peer, device and reason. The plugin
// carrying traffic is tested in net_versions_test.cc and the emulated tests.
#include <gtest/gtest.h>

#include <functional>

#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "nccl/net_v12.h"
#include "nccl/net_v6.h"
#include "nccl/net_v7.h"
#include "nccl/net_v8.h"
#include "nccl/net_v9.h"
#include "tests/e2e/plugin_fixture.h"

namespace railtune::testing {
namespace {

constexpr const char* kStepAside =
    "railtune net: stepping aside: RAILTUNE_NET_TRANSPORT=none: railtune steps aside and NCCL uses its own transports";
void* const kForeignComm = reinterpret_cast<void*>(0x1000);  // never dereferenced without an engine

ncclResult_t noProfiler(void**, int, void*, int64_t, void*) {
  return ncclSuccess;
}

// One version's calls in one shape, with NCCL-like arguments (64-byte host buffers).
struct NetApi {
  int version = 0;
  const char* name = nullptr;
  std::function<ncclResult_t(void** ctx)> init;
  std::function<ncclResult_t(void* ctx)> finalize;  // v11+
  std::function<ncclResult_t(int*)> devices;
  std::function<ncclResult_t(int dev)> getProperties;
  std::function<ncclResult_t(void* ctx, void* handle, void** listenComm)> listen;
  std::function<ncclResult_t(void* comm, int size, void** request)> isend;
  std::function<ncclResult_t(void* comm, int n, int size, void** request)> irecv;
  std::function<ncclResult_t(void* request, int* done)> test;
  std::function<ncclResult_t(void* comm)> closeSend;
};

char gBuffers[16][64];
void* gData[16] = {gBuffers[0], gBuffers[1], gBuffers[2], gBuffers[3], gBuffers[4],  gBuffers[5],
                   gBuffers[6], gBuffers[7], gBuffers[8], gBuffers[9], gBuffers[10], gBuffers[11]};
int gTags[16] = {};
void* gHandles[16] = {};

template <typename Table>
void bindShared(NetApi& api, const Table* t) {
  api.name = t->name;
  api.devices = t->devices;
  api.test = [t](void* request, int* done) {
    int sizes[16] = {};
    return t->test(request, done, sizes);
  };
  api.closeSend = t->closeSend;
}

template <typename Props, typename Table>
void bindProperties(NetApi& api, const Table* t) {
  api.getProperties = [t](int dev) {
    Props props{};
    return t->getProperties(dev, &props);
  };
}

// isend/irecv changed shape three times: int sizes (v6..v8), size_t sizes (v9), profiler handles (v10+).
template <typename Table>
void bindSendRecv(NetApi& api, const Table* t) {
  api.isend = [t](void* comm, int size, void** request) {
    if constexpr (requires { t->isend(nullptr, nullptr, size_t{0}, 0, nullptr, nullptr, request); }) {
      return t->isend(comm, gBuffers[0], static_cast<size_t>(size), 0, nullptr, nullptr, request);
    } else {
      return t->isend(comm, gBuffers[0], size, 0, nullptr, request);  // int (v6..v8) or size_t (v9)
    }
  };
  api.irecv = [t](void* comm, int n, int size, void** request) {
    int intSizes[16];
    size_t wideSizes[16];
    for (int i = 0; i < 16; ++i) {
      intSizes[i] = size;
      wideSizes[i] = static_cast<size_t>(size < 0 ? 0 : size);
    }
    if constexpr (requires { t->irecv(comm, n, gData, intSizes, gTags, gHandles, request); }) {
      return t->irecv(comm, n, gData, intSizes, gTags, gHandles, request);
    } else if constexpr (requires { t->irecv(comm, n, gData, wideSizes, gTags, gHandles, request); }) {
      return t->irecv(comm, n, gData, wideSizes, gTags, gHandles, request);
    } else {
      return t->irecv(comm, n, gData, wideSizes, gTags, gHandles, gHandles, request);
    }
  };
}

template <typename Table, typename Props, typename Config>
void bindContextVersion(NetApi& api, const Table* t) {  // v11, v12
  api.init = [t](void** ctx) {
    Config config{NCCL_NET_TRAFFIC_CLASS_UNDEF};
    return t->init(ctx, 0xabcdef, &config, captureLogger, noProfiler);
  };
  api.finalize = t->finalize;
  api.listen = [t](void* ctx, void* handle, void** listenComm) { return t->listen(ctx, 0, handle, listenComm); };
  bindShared(api, t);
  bindProperties<Props>(api, t);
  bindSendRecv(api, t);
}

template <typename Table, typename Props>
void bindLegacyVersion(NetApi& api, const Table* t) {  // v6..v10
  api.init = [t](void** ctx) {
    *ctx = nullptr;
    if constexpr (requires { t->init(nullptr, nullptr); }) {
      return t->init(captureLogger, noProfiler);
    } else {
      return t->init(captureLogger);
    }
  };
  api.listen = [t](void*, void* handle, void** listenComm) { return t->listen(0, handle, listenComm); };
  bindShared(api, t);
  bindProperties<Props>(api, t);
  bindSendRecv(api, t);
}

NetApi bindNet(const PluginLibrary& lib, int version) {
  NetApi api;
  const std::string symbol = std::string("ncclNetPlugin_v").append(std::to_string(version));
  switch (version) {
    case 6:
      if (auto* t = lib.table<ncclNet_v6_t>(symbol)) bindLegacyVersion<ncclNet_v6_t, ncclNetProperties_v6_t>(api, t);
      break;
    case 7:
      if (auto* t = lib.table<ncclNet_v7_t>(symbol)) bindLegacyVersion<ncclNet_v7_t, ncclNetProperties_v7_t>(api, t);
      break;
    case 8:
      if (auto* t = lib.table<ncclNet_v8_t>(symbol)) bindLegacyVersion<ncclNet_v8_t, ncclNetProperties_v8_t>(api, t);
      break;
    case 9:
      if (auto* t = lib.table<ncclNet_v9_t>(symbol)) bindLegacyVersion<ncclNet_v9_t, ncclNetProperties_v9_t>(api, t);
      break;
    case 10:
      if (auto* t = lib.table<ncclNet_v10_t>(symbol)) {
        bindLegacyVersion<ncclNet_v10_t, ncclNetProperties_v10_t>(api, t);
      }
      break;
    case 11:
      if (auto* t = lib.table<ncclNet_v11_t>(symbol)) {
        bindContextVersion<ncclNet_v11_t, ncclNetProperties_v11_t, ncclNetCommConfig_v11_t>(api, t);
      }
      break;
    case 12:
      if (auto* t = lib.table<ncclNet_v12_t>(symbol)) {
        bindContextVersion<ncclNet_v12_t, ncclNetProperties_v12_t, ncclNetCommConfig_v12_t>(api, t);
      }
      break;
    default:
      break;
  }
  if (api.init) api.version = version;
  return api;
}

class NetTest : public PluginTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    env.set("RAILTUNE_NET_TRANSPORT", "none");
    ASSERT_TRUE(lib.loaded()) << lib.path() << ": " << dlerror();
    api = bindNet(lib, GetParam());
    ASSERT_EQ(api.version, GetParam()) << "ncclNetPlugin_v" << GetParam() << " not exported";
  }
  // NCCL's init; the plugin steps aside. Leaves the log holding only what came after.
  void initStepsAside() {
    context = reinterpret_cast<void*>(0xdead);
    ASSERT_NE(api.init(&context), ncclSuccess);
    EXPECT_EQ(context, nullptr);
    LogCapture::instance().clear();
  }
  std::string lastWarning() const {
    const auto w = LogCapture::instance().warnings();
    return w.empty() ? "" : w.back().text;
  }

  PluginLibrary lib{"net"};
  NetApi api;
  void* context = nullptr;
};

TEST_P(NetTest, InitStepsAsideWithExactlyOneWarning) {
  EXPECT_STREQ(api.name, "railtune");
  context = reinterpret_cast<void*>(0xdead);
  EXPECT_EQ(api.init(&context), ncclInternalError);
  EXPECT_EQ(context, nullptr) << "a failed init leaves no context behind";
  const auto warnings = LogCapture::instance().warnings();
  ASSERT_EQ(warnings.size(), 1u) << logText();
  EXPECT_EQ(warnings[0].text, kStepAside);
  EXPECT_TRUE(warnings[0].flags & NCCL_NET);
  if (api.finalize) {
    EXPECT_EQ(api.finalize(context), ncclSuccess) << "NCCL 2.28 finalizes after a failed init";
    EXPECT_EQ(api.finalize(nullptr), ncclSuccess);
  }
  EXPECT_EQ(warnCount(), 1u) << logText();
}

TEST_P(NetTest, InitFaultStepsAsideAndSaysWhy) {
  injectFault("net.init");
  EXPECT_EQ(api.init(&context), ncclInternalError);
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("injected fault at net.init")) << logText();
  EXPECT_TRUE(logged("stepping aside")) << logText();
}

TEST_P(NetTest, NullCommIsInvalidArgumentWithOneWarning) {
  initStepsAside();
  void* request = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.isend(nullptr, 64, &request), ncclInvalidArgument);
  ASSERT_EQ(warnCount(), 1u) << logText();
  EXPECT_NE(lastWarning().find("isend failed (peer unknown, device unknown): NULL sendComm"), std::string::npos)
      << lastWarning();
  EXPECT_EQ(api.irecv(nullptr, 1, 64, &request), ncclInvalidArgument);
  EXPECT_EQ(api.test(nullptr, nullptr), ncclInvalidArgument);
  EXPECT_EQ(api.closeSend(nullptr), ncclInvalidArgument);
  EXPECT_EQ(warnCount(), 4u) << logText();
}

TEST_P(NetTest, CallsWithoutASuccessfulInitAreInvalidUsage) {
  initStepsAside();
  void* request = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.isend(kForeignComm, 64, &request), ncclInvalidUsage);
  EXPECT_EQ(request, nullptr);
  int done = 1;
  EXPECT_EQ(api.test(kForeignComm, &done), ncclInvalidUsage);
  EXPECT_EQ(done, 0);
  int ndev = 5;
  EXPECT_EQ(api.devices(&ndev), ncclInvalidUsage);
  EXPECT_EQ(ndev, 0);
  EXPECT_EQ(api.getProperties(0), ncclInvalidUsage);
  EXPECT_EQ(warnCount(), 4u) << logText();
  EXPECT_NE(lastWarning().find("without a successful init"), std::string::npos) << lastWarning();
}

TEST_P(NetTest, ListenWithoutAContextIsInvalidArgument) {
  initStepsAside();
  char handle[NCCL_NET_HANDLE_MAXSIZE] = {};
  void* listenComm = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.listen(nullptr, handle, &listenComm), ncclInvalidArgument);
  EXPECT_EQ(listenComm, nullptr);
  EXPECT_EQ(warnCount(), 1u) << logText();
}

TEST_P(NetTest, DataPathFaultsAreSystemErrorsWithOneWarningEach) {
  injectFault("net.isend,net.irecv,net.test");
  initStepsAside();  // the fault list is read at init, even though init then steps aside
  void* request = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(api.isend(kForeignComm, 64, &request), ncclSystemError);
  EXPECT_EQ(request, nullptr);
  EXPECT_EQ(warnCount(), 1u) << logText();
  EXPECT_NE(lastWarning().find("isend failed (peer unknown, device unknown): injected fault at net.isend"),
            std::string::npos)
      << lastWarning();
  EXPECT_EQ(api.irecv(kForeignComm, 1, 64, &request), ncclSystemError);
  int done = 1;
  EXPECT_EQ(api.test(kForeignComm, &done), ncclSystemError);
  EXPECT_EQ(done, 0);
  EXPECT_EQ(warnCount(), 3u) << logText();
}

TEST_P(NetTest, TooManyReceiveBuffersIsInvalidArgument) {
  initStepsAside();
  void* request = nullptr;
  EXPECT_EQ(api.irecv(kForeignComm, 9, 64, &request), ncclInvalidArgument);
  EXPECT_EQ(api.irecv(kForeignComm, 0, 64, &request), ncclInvalidArgument);
  EXPECT_EQ(warnCount(), 2u) << logText();
}

INSTANTIATE_TEST_SUITE_P(AllVersions, NetTest, ::testing::Values(6, 7, 8, 9, 10, 11, 12), versionName);

class NetContextTest : public NetTest {};

TEST_P(NetContextTest, InitWithoutAContextPointerIsRefused) {
  EXPECT_NE(api.init(nullptr), ncclSuccess);
  EXPECT_EQ(warnCount(), 1u) << logText();
  EXPECT_TRUE(logged("NULL context pointer")) << logText();
}

INSTANTIATE_TEST_SUITE_P(ContextVersions, NetContextTest, ::testing::Values(11, 12), versionName);

class NetIntSizeTest : public NetTest {};

TEST_P(NetIntSizeTest, NegativeIntSizesAreInvalidArgument) {
  initStepsAside();
  void* request = nullptr;
  EXPECT_EQ(api.isend(kForeignComm, -1, &request), ncclInvalidArgument);
  EXPECT_EQ(api.irecv(kForeignComm, 1, -1, &request), ncclInvalidArgument);
  EXPECT_EQ(warnCount(), 2u) << logText();
  EXPECT_NE(lastWarning().find("negative size"), std::string::npos) << lastWarning();
}

INSTANTIATE_TEST_SUITE_P(IntSizeVersions, NetIntSizeTest, ::testing::Values(6, 7, 8), versionName);

}  // namespace
}  // namespace railtune::testing
