// Wrong use of the net plugin, at every ABI version: malformed handles, messages over maxP2pBytes,
// more requests than a comm holds, calls on closed comms, finalize with a NULL or partial context.
// Each gets a precise ncclResult_t and exactly one WARN (or, for a full request table, the ABI's
// "try again": success with a NULL request), never a crash or a hang.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/e2e/net_fault_harness.h"

namespace railtune::testing::netfault {
namespace {

class NetMisuseTest : public NetFaultTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    NetFaultTest::SetUp();
    watchdog_ = std::make_unique<Watchdog>(30, "NetMisuseTest");
    endpoint_ = std::make_unique<NetEndpoint>(GetParam());
    ASSERT_TRUE(endpoint_->bound());
    ASSERT_EQ(endpoint_->init(), ncclSuccess);
  }
  void TearDown() override {
    endpoint_.reset();
    watchdog_.reset();
  }
  emu::NetDriver& net() { return endpoint_->net(); }

  // The plugin logged exactly one WARN since the last check, and it names the call.
  static void expectOneWarning(const char* call) {
    std::string log;
    const std::vector<std::string> warnings = takeWarnings(&log);
    ASSERT_EQ(warnings.size(), 1u) << call << ":\n" << log;
    EXPECT_NE(warnings[0].find(call), std::string::npos) << warnings[0];
  }

  ncclResult_t connectOnce(Handle& handle, void** send) {
    ncclNetDeviceHandle_v12_t* device = nullptr;
    const auto start = Clock::now();
    const ncclResult_t result = net().connect(0, handle.data(), send, &device);
    EXPECT_LT(Clock::now() - start, kNonBlocking) << "connect blocked on a malformed handle";
    return result;
  }

  std::unique_ptr<Watchdog> watchdog_;
  std::unique_ptr<NetEndpoint> endpoint_;
};

TEST_P(NetMisuseTest, MalformedHandlesAreRejected) {
  Handle real{};
  void* listen = nullptr;
  ASSERT_EQ(net().listen(0, real.data(), &listen), ncclSuccess);
  std::vector<std::pair<std::string, Handle>> cases;
  std::mt19937 random(0xbad0 + static_cast<unsigned>(GetParam()));
  for (int i = 0; i < 8; ++i) {
    Handle noise{};
    for (std::byte& b : noise) b = static_cast<std::byte>(random() & 0xff);
    cases.emplace_back("random bytes #" + std::to_string(i), noise);
  }
  Handle magic = real;
  magic[0] ^= std::byte{0xff};
  cases.emplace_back("wrong magic", magic);
  Handle family = real;
  family[6] = std::byte{5};  // neither IPv4 (4) nor IPv6 (6): see net_plugin/transports/socket/socket_wire.cc
  cases.emplace_back("wrong address family", family);
  cases.emplace_back("all zero", Handle{});
  takeWarnings();
  for (auto& [what, handle] : cases) {
    void* send = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(connectOnce(handle, &send), ncclInvalidArgument) << what;
    EXPECT_EQ(send, nullptr) << what;
    ASSERT_NO_FATAL_FAILURE(expectOneWarning("connect")) << what;
  }
  // The real handle still works after all that.
  Handle handle = real;
  LocalLink link;
  link.listen = listen;
  ASSERT_TRUE(pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        if (link.send == nullptr) {
          EXPECT_EQ(net().connect(0, handle.data(), &link.send, &device), ncclSuccess);
        }
        if (link.recv == nullptr) {
          EXPECT_EQ(net().accept(link.listen, &link.recv, &device), ncclSuccess);
        }
        return link.send != nullptr && link.recv != nullptr;
      },
      kStepLimit));
}

// From v9 on sizes are size_t and reach the plugin (v6..v8 take int: NCCL's adapter refuses more
// than 1 GiB itself).
class NetOversizeTest : public NetMisuseTest {};

TEST_P(NetOversizeTest, SendsOverMaxP2pBytesAreRejected) {
  ncclNetProperties_v12_t props{};
  ASSERT_EQ(net().getProperties(0, &props), ncclSuccess);
  ASSERT_GT(props.maxP2pBytes, 0u);
  LocalLink link;
  ASSERT_EQ(connectLocal(net(), 0, link, kStepLimit), ncclSuccess);
  ASSERT_NE(link.send, nullptr);
  takeWarnings();
  char byte = 0;  // never read: the size is refused first
  void* request = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(net().isend(link.send, &byte, props.maxP2pBytes + 1, 0, nullptr, nullptr, &request), ncclInvalidArgument);
  EXPECT_EQ(request, nullptr);
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("isend"));
  EXPECT_EQ(net().isend(link.send, &byte, 1, 0, nullptr, nullptr, &request), ncclSuccess) << "the comm still works";
  EXPECT_NE(request, nullptr);
}

// NCCL keeps at most 32 receives in flight per comm; a 33rd is refused with the ABI's "try again"
// (success, NULL request) and no WARN, and is accepted once one of the 32 has completed.
TEST_P(NetMisuseTest, TheThirtyThirdReceiveMustWait) {
  LocalLink link;
  ASSERT_EQ(connectLocal(net(), 0, link, kStepLimit), ncclSuccess);
  ASSERT_NE(link.recv, nullptr);
  std::vector<char> buffers(NCCL_NET_MAX_REQUESTS + 1);
  std::vector<void*> requests;
  auto post = [&](size_t i) {
    void* data[1] = {&buffers[i]};
    size_t sizes[1] = {1};
    int tags[1] = {0};
    void* request = nullptr;
    EXPECT_EQ(net().irecv(link.recv, 1, data, sizes, tags, nullptr, nullptr, &request), ncclSuccess);
    return request;
  };
  for (size_t i = 0; i < NCCL_NET_MAX_REQUESTS; ++i) requests.push_back(post(i));
  for (void* request : requests) ASSERT_NE(request, nullptr);
  takeWarnings();
  EXPECT_EQ(post(NCCL_NET_MAX_REQUESTS), nullptr) << "a 33rd receive in flight";
  EXPECT_TRUE(takeWarnings().empty());

  char one = 'x';
  void* send = nullptr;
  ASSERT_EQ(net().isend(link.send, &one, 1, 0, nullptr, nullptr, &send), ncclSuccess);
  ASSERT_TRUE(testUntil(net(), send, kStepLimit).done);
  ASSERT_TRUE(testUntil(net(), requests[0], kStepLimit).done);
  EXPECT_EQ(buffers[0], 'x');
  EXPECT_NE(post(NCCL_NET_MAX_REQUESTS), nullptr) << "a slot was freed";
}

// Calls on closed comms, closing twice, and testing a request already reported done. (Requests of
// a closed comm are not tested: NCCL never does, and the transport frees them at close.)
TEST_P(NetMisuseTest, CallsAfterCloseAreErrors) {
  LocalLink link;
  ASSERT_EQ(connectLocal(net(), 0, link, kStepLimit), ncclSuccess);
  ASSERT_NE(link.send, nullptr);
  char byte = 'y', in = 0;
  void* data[1] = {&in};
  size_t sizes[1] = {1};
  int tags[1] = {0};
  void *recv = nullptr, *send = nullptr;
  ASSERT_EQ(net().irecv(link.recv, 1, data, sizes, tags, nullptr, nullptr, &recv), ncclSuccess);
  ASSERT_EQ(net().isend(link.send, &byte, 1, 0, nullptr, nullptr, &send), ncclSuccess);
  ASSERT_TRUE(testUntil(net(), send, kStepLimit).done);
  ASSERT_TRUE(testUntil(net(), recv, kStepLimit).done);
  takeWarnings();
  int done = 0;
  EXPECT_EQ(net().test(recv, &done, nullptr), ncclInvalidUsage) << "a request already reported done";
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("test"));

  ASSERT_EQ(net().closeSend(link.send), ncclSuccess);
  ASSERT_EQ(net().closeRecv(link.recv), ncclSuccess);
  ASSERT_EQ(net().closeListen(link.listen), ncclSuccess);
  void* out = nullptr;
  EXPECT_EQ(net().isend(link.send, &byte, 1, 0, nullptr, nullptr, &out), ncclInvalidUsage);
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("isend"));
  EXPECT_EQ(net().irecv(link.recv, 1, data, sizes, tags, nullptr, nullptr, &out), ncclInvalidUsage);
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("irecv"));
  ncclNetDeviceHandle_v12_t* device = nullptr;
  EXPECT_EQ(net().accept(link.listen, &out, &device), ncclInvalidUsage);
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("accept"));
  EXPECT_EQ(net().closeSend(link.send), ncclInvalidUsage) << "closed twice";
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("closeSend"));
  EXPECT_EQ(net().closeListen(link.listen), ncclInvalidUsage) << "closed twice";
  ASSERT_NO_FATAL_FAILURE(expectOneWarning("closeListen"));
}

// NCCL 2.30 may finalize a communicator whose comms are still open (an aborted job); the engine
// then goes away with them, and the next communicator starts afresh.
TEST_P(NetMisuseTest, FinalizeWithOpenCommsThenANewCommunicator) {
  LocalLink link;
  ASSERT_EQ(connectLocal(net(), 0, link, kStepLimit), ncclSuccess);
  ASSERT_NE(link.send, nullptr);
  EXPECT_EQ(endpoint_->finalize(), ncclSuccess);
  EXPECT_TRUE(takeWarnings().empty());
  NetEndpoint next(GetParam());
  ASSERT_EQ(next.init(0x7e58), ncclSuccess);
  LocalLink again;
  EXPECT_EQ(connectLocal(next.net(), 0, again, kStepLimit), ncclSuccess);
  EXPECT_NE(again.send, nullptr);
  EXPECT_NE(again.recv, nullptr);
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, NetMisuseTest, ::testing::Range(6, 13), versionName);
INSTANTIATE_TEST_SUITE_P(SizeT, NetOversizeTest, ::testing::Range(9, 13), versionName);

// finalize(NULL) (2.28 calls it after a failed init) and finalize of a context whose init failed.
class NetFinalizeTest : public NetFaultTest, public ::testing::WithParamInterface<int> {};

TEST_P(NetFinalizeTest, NullContextIsAccepted) {
  NetEndpoint endpoint(GetParam());
  ASSERT_TRUE(endpoint.bound());
  EXPECT_EQ(endpoint.finalize(), ncclSuccess) << "finalize(NULL) before any init";
  EXPECT_TRUE(takeWarnings().empty());
}

TEST_P(NetFinalizeTest, PartialContextAfterAFailedInitIsAccepted) {
  injectFault("net.init");
  NetEndpoint endpoint(GetParam());
  ASSERT_NE(endpoint.init(), ncclSuccess);
  EXPECT_EQ(endpoint.net().context(), nullptr);
  takeWarnings();
  EXPECT_EQ(endpoint.finalize(), ncclSuccess);
  EXPECT_TRUE(takeWarnings().empty());
}

INSTANTIATE_TEST_SUITE_P(WithContext, NetFinalizeTest, ::testing::Values(11, 12), versionName);

}  // namespace
}  // namespace railtune::testing::netfault
