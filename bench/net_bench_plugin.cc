#include "bench/net_bench_plugin.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "bench/bench_logger.h"

namespace railtune::bench {
namespace {

constexpr int kTag = 0;  // NCCL's tag is the sender's rank; the benchmark's sender is rank 0
constexpr auto kConnectTimeout = std::chrono::seconds(10);

void check(ncclResult_t result, const char* call) {
  if (result != ncclSuccess)
    throw BenchError(std::string("plugin ") + call + " returned NCCL error " +
                     std::to_string(static_cast<int>(result)));
}

// What both ends share: the table, the comm, the registration of the benchmark's buffer.
class PluginEndpoint : public Endpoint {
 public:
  PluginEndpoint(const ncclNet_v11_t& net, void* comm) : net_(net), comm_(comm) {}

  void useBuffer(void* data, size_t size) override {
    releaseBuffer();
    check(net_.regMr(comm_, data, size, NCCL_PTR_HOST, &region_), "regMr");
  }

  bool test(void* request, size_t& bytes) override {
    int done = 0;
    int size = 0;
    check(net_.test(request, &done, &size), "test");
    bytes = static_cast<size_t>(size);
    return done != 0;
  }

 protected:
  void releaseBuffer() {
    if (region_ != nullptr) (void)net_.deregMr(comm_, region_);
    region_ = nullptr;
  }

  const ncclNet_v11_t& net_;
  void* comm_;
  void* region_ = nullptr;
};

class PluginSender final : public PluginEndpoint {
 public:
  using PluginEndpoint::PluginEndpoint;
  ~PluginSender() override {
    releaseBuffer();
    (void)net_.closeSend(comm_);
  }
  void* post(void* data, size_t size) override {
    void* request = nullptr;
    check(net_.isend(comm_, data, size, kTag, region_, nullptr, &request), "isend");
    return request;
  }
};

class PluginReceiver final : public PluginEndpoint {
 public:
  using PluginEndpoint::PluginEndpoint;
  ~PluginReceiver() override {
    releaseBuffer();
    (void)net_.closeRecv(comm_);
  }
  void* post(void* data, size_t size) override {
    void* request = nullptr;
    int tag = kTag;
    check(net_.irecv(comm_, 1, &data, &size, &tag, &region_, nullptr, &request), "irecv");
    return request;
  }
};

// The loopback device: the one named "lo", else the first.
int loopbackDevice(const ncclNet_v11_t& net, std::string& name) {
  int count = 0;
  check(net.devices(&count), "devices");
  if (count < 1) throw BenchError("the plugin reports no network device");
  for (int dev = count - 1; dev >= 0; --dev) {
    ncclNetProperties_v11_t props{};
    check(net.getProperties(dev, &props), "getProperties");
    const std::string devName = props.name != nullptr ? props.name : "";
    if (dev == 0 || devName == "lo") {
      name = devName;
      return dev;
    }
  }
  return 0;
}

}  // namespace

const ncclNet_v11_t& pluginTable(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw BenchError("dlopen " + path + ": " + dlerror());
  void* symbol = dlsym(library, "ncclNetPlugin_v11");
  if (symbol == nullptr) throw BenchError(path + " has no ncclNetPlugin_v11");
  return *static_cast<const ncclNet_v11_t*>(symbol);
}

PluginNet::PluginNet(const ncclNet_v11_t& net, int streams) : net_(net) {
  setenv("RAILTUNE_NET_TRANSPORT", "socket", 1);
  setenv("NCCL_SOCKET_IFNAME", "lo", 1);
  setenv("RAILTUNE_NET_STREAMS", std::to_string(streams).c_str(), 1);
  ncclNetCommConfig_v11_t config{NCCL_NET_TRAFFIC_CLASS_UNDEF};
  check(net_.init(&context_, 0x5eed, &config, benchLogger, nullptr), "init (stepped aside? see the WARN above)");
  device_ = loopbackDevice(net_, deviceName_);
}

PluginNet::~PluginNet() {
  (void)net_.finalize(context_);
}

Link PluginNet::connect() {
  char handle[NCCL_NET_HANDLE_MAXSIZE] = {};
  void* listener = nullptr;
  check(net_.listen(context_, device_, handle, &listener), "listen");
  void* sendComm = nullptr;
  void* recvComm = nullptr;
  const auto deadline = std::chrono::steady_clock::now() + kConnectTimeout;
  while (sendComm == nullptr || recvComm == nullptr) {
    ncclNetDeviceHandle_v11_t* deviceHandle = nullptr;
    if (sendComm == nullptr) check(net_.connect(context_, device_, handle, &sendComm, &deviceHandle), "connect");
    if (recvComm == nullptr) check(net_.accept(listener, &recvComm, &deviceHandle), "accept");
    if (std::chrono::steady_clock::now() > deadline) {
      if (sendComm != nullptr) (void)net_.closeSend(sendComm);
      if (recvComm != nullptr) (void)net_.closeRecv(recvComm);
      (void)net_.closeListen(listener);
      throw BenchError("connect/accept did not complete within 10 s");
    }
  }
  check(net_.closeListen(listener), "closeListen");
  return Link{std::make_unique<PluginSender>(net_, sendComm), std::make_unique<PluginReceiver>(net_, recvComm)};
}

}  // namespace railtune::bench
