// The real libnccl-net-railtune.so, opened as NCCL opens it (dlopen RTLD_NOW | RTLD_LOCAL, then
// dlsym of ncclNetPlugin_v11) and driven through that function table only: one context per
// PluginNet, connections set up with listen / connect / accept as NCCL's proxy does.
#pragma once

#include <string>

#include "bench/net_bench_link.h"
#include "nccl/net_v11.h"

namespace railtune::bench {

// The v11 table of the library at `path`; the library stays loaded for the whole process (NCCL
// keeps it while a communicator exists). Throws BenchError naming the dlopen/dlsym failure.
const ncclNet_v11_t& pluginTable(const std::string& path);

// One initialised context of the plugin, carrying loopback traffic over `streams` TCP streams.
// Sets RAILTUNE_NET_TRANSPORT=socket, NCCL_SOCKET_IFNAME=lo and RAILTUNE_NET_STREAMS before init,
// as a launcher would for the job. Every Link it made must be destroyed before it.
class PluginNet {
 public:
  PluginNet(const ncclNet_v11_t& net, int streams);
  ~PluginNet();
  PluginNet(const PluginNet&) = delete;
  PluginNet& operator=(const PluginNet&) = delete;

  // A new connection: listen, then connect and accept in one loop until both return a comm.
  Link connect();
  const std::string& deviceName() const { return deviceName_; }

 private:
  const ncclNet_v11_t& net_;
  void* context_ = nullptr;
  int device_ = 0;
  std::string deviceName_;
};

}  // namespace railtune::bench
