// Sentinel echo through every net version's call sites (v6..v12), including the adapters' conversions:
// int sizes before v9, the v10 config on connect, the v11+ context, properties widened to v12.
#include <cstring>

#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "tests/emulator/test_support.h"

namespace railtune::emu::test {
namespace {

constexpr uint64_t netCtx(int version) {
  return 0x7E7E0000u + static_cast<unsigned>(version);
}
constexpr uint64_t kListenComm = 0x11570000u;
constexpr uint64_t kSendComm = 0x5E4D0000u;
constexpr uint64_t kRecvComm = 0x4EC70000u;
constexpr uint64_t kMhandle = 0x3A4D0000u;
constexpr uint64_t kRequest = 0x4E510000u;
const auto kProfCallback = reinterpret_cast<ncclProfilerCallback_t>(0xF00Du);

class NetEchoTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    binding = Loader::bindVersion(PluginKind::Net, pluginPath("libnccl-net-all.so"), GetParam());
    ASSERT_TRUE(binding) << joined(binding.log);
    resetEcho(binding);
    echo = echoOf(binding);
    driver = std::make_unique<NetDriver>(binding);
    ASSERT_EQ(driver->init(kCommId, kTrafficClass, pluginLogger(), kProfCallback), ncclSuccess);
  }
  void TearDown() override {
    if (driver) driver->finalize();
  }
  int version() const { return GetParam(); }
  const rtEchoCall* last(const char* func) { return findCall(echo, func, countCalls(echo, func) - 1); }

  Binding binding;
  rtEchoRecord* echo = nullptr;
  std::unique_ptr<NetDriver> driver;
};
INSTANTIATE_TEST_SUITE_P(Versions, NetEchoTest, ::testing::Range(6, 13), versionTestName);

TEST_P(NetEchoTest, InitArguments) {
  const rtEchoCall* c = findCall(echo, "net.init");
  ASSERT_NE(c, nullptr);
  const uint64_t logger = bits(reinterpret_cast<void*>(pluginLogger()));
  const uint64_t prof = bits(reinterpret_cast<void*>(kProfCallback));
  if (version() >= 11) {
    ASSERT_EQ(c->nArgs, 6);
    EXPECT_NE(c->args[0], 0u);
    EXPECT_EQ(c->args[1], kCommId);
    EXPECT_NE(c->args[2], 0u);
    EXPECT_EQ(c->args[3], logger);
    EXPECT_EQ(c->args[4], prof);
    EXPECT_EQ(c->args[5], static_cast<uint64_t>(kTrafficClass));
    EXPECT_EQ(bits(driver->context()), netCtx(version()));
  } else if (version() == 10) {
    ASSERT_EQ(c->nArgs, 2);
    EXPECT_EQ(c->args[0], logger);
    EXPECT_EQ(c->args[1], prof);
  } else {
    ASSERT_EQ(c->nArgs, 1);
    EXPECT_EQ(c->args[0], logger);
  }
}

TEST_P(NetEchoTest, OldAdaptersInitialiseThePluginOnce) {
  NetDriver second(binding);
  ASSERT_EQ(second.init(kCommId + 1, kTrafficClass, pluginLogger(), kProfCallback), ncclSuccess);
  EXPECT_EQ(countCalls(echo, "net.init"), version() >= 11 ? 2 : 1);
  second.finalize();
}

TEST_P(NetEchoTest, DevicesAndProperties) {
  int ndev = 0;
  ASSERT_EQ(driver->devices(&ndev), ncclSuccess);
  EXPECT_EQ(ndev, 1);
  ncclNetProperties_v12_t p;
  std::memset(&p, 0xEE, sizeof(p));
  ASSERT_EQ(driver->getProperties(3, &p), ncclSuccess);
  EXPECT_EQ(last("net.getProperties")->args[0], 3u);
  EXPECT_STREQ(p.name, "rt-dev");
  EXPECT_STREQ(p.pciPath, "/sys/devices/pci0000:00/rt");
  EXPECT_EQ(p.guid, 0x1122334455667788ull);
  EXPECT_EQ(p.ptrSupport, 0x5);
  EXPECT_EQ(p.speed, 400000);
  EXPECT_EQ(p.port, 7);
  EXPECT_EQ(p.latency, 2.5f);
  EXPECT_EQ(p.maxComms, 65539);
  EXPECT_EQ(p.maxRecvs, 8);
  EXPECT_EQ(p.netDeviceType, NCCL_NET_DEVICE_HOST);
  EXPECT_EQ(p.netDeviceVersion, version() == 6 ? NCCL_NET_DEVICE_INVALID_VERSION : 3);
  EXPECT_EQ(p.regIsGlobal, version() >= 8 ? 1 : 0);
  EXPECT_EQ(p.forceFlush, version() >= 9 ? 1 : 0);
  if (version() >= 9) {
    EXPECT_EQ(p.vProps.ndevs, 2);
    EXPECT_EQ(p.vProps.devs[0], 3);
    EXPECT_EQ(p.vProps.devs[1], 12);
    EXPECT_EQ(p.maxP2pBytes, 0x1234567890ull);
    EXPECT_EQ(p.maxCollBytes, 0x2345678901ull);
  } else {
    EXPECT_EQ(p.vProps.ndevs, 1);
    EXPECT_EQ(p.vProps.devs[0], 3);
    EXPECT_EQ(p.maxP2pBytes, 1024ull * 1024 * 1024);
    EXPECT_EQ(p.maxCollBytes, 512ull * 1024 * 1024);
  }
  EXPECT_EQ(p.maxMultiRequestSize, version() >= 11 ? 4 : 1);
  EXPECT_EQ(p.railId, version() == 12 ? 3 : NCCL_NET_ID_UNDEF);
  EXPECT_EQ(p.planeId, version() == 12 ? 1 : NCCL_NET_ID_UNDEF);
  if (version() == 12) {
    EXPECT_EQ(p.vProps.devs[7], 77);
  }
}

TEST_P(NetEchoTest, ListenConnectAccept) {
  char handle[NCCL_NET_HANDLE_MAXSIZE] = {};
  void* listenComm = nullptr;
  ASSERT_EQ(driver->listen(3, handle, &listenComm), ncclSuccess);
  const rtEchoCall* l = last("net.listen");
  const int off = version() >= 11 ? 1 : 0;
  if (off) {
    EXPECT_EQ(l->args[0], netCtx(version()));
  }
  EXPECT_EQ(l->args[off + 0], 3u);
  EXPECT_EQ(l->args[off + 1], bits(handle));
  EXPECT_EQ(l->args[off + 2], bits(&listenComm));
  EXPECT_EQ(bits(listenComm), kListenComm);

  void* sendComm = nullptr;
  ncclNetDeviceHandle_v12_t* sendDev = nullptr;
  ASSERT_EQ(driver->connect(3, handle, &sendComm, &sendDev), ncclSuccess);
  const rtEchoCall* c = last("net.connect");
  std::vector<uint64_t> expect;
  if (version() >= 11) expect = {netCtx(version()), 3, bits(handle), bits(&sendComm), bits(&sendDev)};
  if (version() == 10)
    expect = {3,
              bits(driver->context()),
              static_cast<uint64_t>(kTrafficClass),
              bits(handle),
              bits(&sendComm),
              bits(&sendDev)};
  if (version() >= 7 && version() <= 9) expect = {3, bits(handle), bits(&sendComm), bits(&sendDev)};
  if (version() == 6) expect = {3, bits(handle), bits(&sendComm)};
  ASSERT_EQ(c->nArgs, static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(c->args[i], expect[i]) << "connect argument " << i;
  EXPECT_EQ(bits(sendComm), kSendComm);

  void* recvComm = nullptr;
  ncclNetDeviceHandle_v12_t* recvDev = nullptr;
  ASSERT_EQ(driver->accept(listenComm, &recvComm, &recvDev), ncclSuccess);
  const rtEchoCall* a = last("net.accept");
  EXPECT_EQ(a->args[0], kListenComm);
  EXPECT_EQ(a->args[1], bits(&recvComm));
  ASSERT_EQ(a->nArgs, version() >= 7 ? 3 : 2);
  if (version() >= 7) {
    EXPECT_EQ(a->args[2], bits(&recvDev));
  }
  EXPECT_EQ(bits(recvComm), kRecvComm);
}

TEST_P(NetEchoTest, CloseCalls) {
  void* sendComm = fakePointer(kSendComm);
  void* recvComm = fakePointer(kRecvComm);
  void* listenComm = fakePointer(kListenComm);
  EXPECT_EQ(driver->closeSend(sendComm), ncclSuccess);
  EXPECT_EQ(last("net.closeSend")->args[0], kSendComm);
  EXPECT_EQ(driver->closeRecv(recvComm), ncclSuccess);
  EXPECT_EQ(last("net.closeRecv")->args[0], kRecvComm);
  EXPECT_EQ(driver->closeListen(listenComm), ncclSuccess);
  EXPECT_EQ(last("net.closeListen")->args[0], kListenComm);
}

TEST_P(NetEchoTest, RegistrationAndSizeLimits) {
  char data[64];
  void* comm = fakePointer(kSendComm);
  void* mh = nullptr;
  const size_t size = version() >= 8 ? kBytes : kSmallBytes;  // size_t from v8
  ASSERT_EQ(driver->regMr(comm, data, size, NCCL_PTR_HOST, &mh), ncclSuccess);
  const rtEchoCall* r = last("net.regMr");
  EXPECT_EQ(r->args[0], kSendComm);
  EXPECT_EQ(r->args[1], bits(data));
  EXPECT_EQ(r->args[2], size);
  EXPECT_EQ(r->args[3], static_cast<uint64_t>(NCCL_PTR_HOST));
  EXPECT_EQ(r->args[4], bits(&mh));
  EXPECT_EQ(bits(mh), kMhandle);
  const int before = countCalls(echo, "net.regMr");
  ncclResult_t big = driver->regMr(comm, data, size_t{1} << 31, NCCL_PTR_HOST, &mh);
  EXPECT_EQ(big, version() <= 7 ? ncclInternalError : ncclSuccess) << "int size before v8";
  EXPECT_EQ(countCalls(echo, "net.regMr"), before + (version() <= 7 ? 0 : 1));
  ASSERT_EQ(driver->deregMr(comm, mh), ncclSuccess);
  EXPECT_EQ(last("net.deregMr")->args[0], kSendComm);
  EXPECT_EQ(last("net.deregMr")->args[1], bits(mh));
}

TEST_P(NetEchoTest, IsendArguments) {
  char data[64];
  void* request = nullptr;
  void* phandle = fakePointer(0xFACE0000u);
  const size_t size = version() >= 9 ? kBytes : kSmallBytes;  // size_t from v9
  ASSERT_EQ(driver->isend(fakePointer(kSendComm), data, size, 0x55, fakePointer(kMhandle), phandle, &request),
            ncclSuccess);
  const rtEchoCall* c = last("net.isend");
  std::vector<uint64_t> expect{kSendComm, bits(data), size, 0x55, kMhandle};
  if (version() >= 10) expect.push_back(0xFACE0000u);
  expect.push_back(bits(&request));
  ASSERT_EQ(c->nArgs, static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(c->args[i], expect[i]) << "isend argument " << i;
  EXPECT_EQ(bits(request), kRequest);
  ncclResult_t big = driver->isend(fakePointer(kSendComm), data, (size_t{1} << 30) + 1, 0x55, fakePointer(kMhandle),
                                   phandle, &request);
  EXPECT_EQ(big, version() <= 8 ? ncclInternalError : ncclSuccess) << "int size before v9";
}

TEST_P(NetEchoTest, IrecvArguments) {
  char buf[64];
  void* data[1] = {buf};
  size_t sizes[1] = {0x1234};
  int tags[1] = {0x66};
  void* mhandles[1] = {fakePointer(kMhandle)};
  void* phandles[1] = {fakePointer(0xFACE0001u)};
  void* request = reinterpret_cast<void*>(NCCL_NET_OPTIONAL_RECV_COMPLETION);
  ASSERT_EQ(driver->irecv(fakePointer(kRecvComm), 1, data, sizes, tags, mhandles, phandles, &request), ncclSuccess);
  const rtEchoCall* c = last("net.irecv");
  std::vector<uint64_t> expect{kRecvComm, 1, bits(buf), 0x1234, 0x66, kMhandle};
  if (version() >= 10) expect.push_back(0xFACE0001u);
  expect.push_back(bits(&request));
  expect.push_back(version() <= 8 ? 0u : NCCL_NET_OPTIONAL_RECV_COMPLETION);  // old adapters clear the marker
  ASSERT_EQ(c->nArgs, static_cast<int>(expect.size()));
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(c->args[i], expect[i]) << "irecv argument " << i;
  EXPECT_EQ(bits(request), kRequest);
}

TEST_P(NetEchoTest, IflushAndTest) {
  char buf[64];
  void* data[1] = {buf};
  int sizes[1] = {0x77};
  void* mhandles[1] = {fakePointer(kMhandle)};
  void* request = nullptr;
  ASSERT_EQ(driver->iflush(fakePointer(kRecvComm), 1, data, sizes, mhandles, &request), ncclSuccess);
  const rtEchoCall* f = last("net.iflush");
  std::vector<uint64_t> expect{kRecvComm, 1, bits(buf), 0x77, kMhandle, bits(&request)};
  ASSERT_EQ(f->nArgs, 6);
  for (size_t i = 0; i < expect.size(); i++) EXPECT_EQ(f->args[i], expect[i]) << "iflush argument " << i;
  int done = 0;
  int got[1] = {0};
  ASSERT_EQ(driver->test(request, &done, got), ncclSuccess);
  const rtEchoCall* t = last("net.test");
  EXPECT_EQ(t->args[0], kRequest);
  EXPECT_EQ(t->args[1], bits(&done));
  EXPECT_EQ(t->args[2], bits(got));
  EXPECT_EQ(done, 1);
  EXPECT_EQ(got[0], 0x4321);
}

TEST_P(NetEchoTest, OptionalMembers) {
  char data[64];
  void* mh = nullptr;
  ASSERT_TRUE(driver->hasRegMrDmaBuf());
  ASSERT_EQ(driver->regMrDmaBuf(fakePointer(kSendComm), data, kBytes, NCCL_PTR_CUDA, 0x0FF5E7, 9, &mh), ncclSuccess);
  const rtEchoCall* r = last("net.regMrDmaBuf");
  const std::vector<uint64_t> dmabuf{kSendComm, bits(data), kBytes, NCCL_PTR_CUDA, 0x0FF5E7, 9, bits(&mh)};
  ASSERT_EQ(r->nArgs, 7);
  for (size_t i = 0; i < dmabuf.size(); i++) EXPECT_EQ(r->args[i], dmabuf[i]) << "regMrDmaBuf argument " << i;

  EXPECT_EQ(driver->hasGetDeviceMr(), version() >= 7);
  EXPECT_EQ(driver->hasIrecvConsumed(), version() >= 7);
  EXPECT_EQ(driver->hasMakeVDevice(), version() >= 9);
  if (version() >= 7) {
    void* dptr = nullptr;
    ASSERT_EQ(driver->getDeviceMr(fakePointer(kSendComm), fakePointer(kMhandle), &dptr), ncclSuccess);
    const rtEchoCall* g = last("net.getDeviceMr");
    EXPECT_EQ(g->args[0], kSendComm);
    EXPECT_EQ(g->args[1], kMhandle);
    EXPECT_EQ(g->args[2], bits(&dptr));
    ASSERT_EQ(driver->irecvConsumed(fakePointer(kRecvComm), 2, fakePointer(kRequest)), ncclSuccess);
    const rtEchoCall* i = last("net.irecvConsumed");
    EXPECT_EQ(i->args[0], kRecvComm);
    EXPECT_EQ(i->args[1], 2u);
    EXPECT_EQ(i->args[2], kRequest);
  }
  if (version() >= 9) {
    int d = -1;
    ncclNetVDeviceProps_v12_t props{};
    props.ndevs = 2;
    props.devs[0] = 1;
    props.devs[1] = 5;
    ASSERT_EQ(driver->makeVDevice(&d, &props), ncclSuccess);
    const rtEchoCall* m = last("net.makeVDevice");
    EXPECT_EQ(m->args[0], bits(&d));
    EXPECT_EQ(m->args[2], 2u);
    EXPECT_EQ(m->args[3], 1u);
    EXPECT_EQ(m->args[4], 5u);
    props.ndevs = 5;  // more than the 4 devices a v9..v11 plugin can take
    EXPECT_EQ(driver->makeVDevice(&d, &props), version() == 12 ? ncclSuccess : ncclInvalidArgument);
  }
}

TEST_P(NetEchoTest, SetNetAttrFromV11) {
  EXPECT_EQ(driver->hasSetNetAttr(), version() >= 11);
  if (version() < 11) return;
  ncclNetAttr_v12_t attr{{1, 2, 3, 4}, {5, 6, 7, 8}, 0x10, 0x20, 0x4};
  ASSERT_EQ(driver->setNetAttr(&attr), ncclSuccess);
  const rtEchoCall* c = last("net.setNetAttr");
  EXPECT_EQ(c->args[0], netCtx(version()));
  ASSERT_EQ(c->nBytes, sizeof(attr));
  EXPECT_EQ(std::memcmp(c->bytes, &attr, sizeof(attr)), 0);
}

TEST_P(NetEchoTest, FinalizeReachesV11PluginsOnly) {
  ASSERT_EQ(driver->finalize(), ncclSuccess);
  EXPECT_EQ(countCalls(echo, "net.finalize"), version() >= 11 ? 1 : 0);
  if (version() >= 11) {
    EXPECT_EQ(findCall(echo, "net.finalize")->args[0], netCtx(version()));
  }
  if (version() < 11) {
    EXPECT_EQ(binding.library->state().netAdapterRefCount, 0);
  }
  driver.reset();
}

}  // namespace
}  // namespace railtune::emu::test
