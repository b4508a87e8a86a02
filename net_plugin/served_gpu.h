// Which GPU a connection serves, and which rail the rail map gives that GPU: what the plugin checks
// each connection's actual rail against (docs/net.md, "Rail binding").
//
// NCCL calls listen/connect/accept on the proxy thread of the GPU whose data the connection carries,
// and that thread has the GPU's CUDA context current. So the served GPU is the calling thread's
// current CUDA device, read through libcuda when NCCL has already loaded it (RTLD_NOLOAD: the plugin
// never loads CUDA into a process that has not) and matched to the rail map by PCI bus id. Without
// libcuda or a current context (emulated jobs, CPU-only tests) it is LOCAL_RANK, read as the GPU's
// index on its host, which holds when each process drives one GPU and ranks are placed in GPU order.
#pragma once

#include <optional>
#include <string>

#include "common/params.h"
#include "formats/rail_map.h"

namespace railtune::net {

struct ServedGpu {
  int index = -1;      // the rail map's GPU index on this host; -1: unknown
  std::string source;  // "CUDA device 0000:1b:00.0", "LOCAL_RANK=3", or why it is unknown
};

// The calling thread's current CUDA device as a PCI bus id ("0000:1b:00.0"), or nullopt when libcuda
// is not loaded in this process or no context is current.
std::optional<std::string> currentCudaBusId();

// True when the two bus ids name the same PCI function, whatever the width of their domain field
// ("00000000:1B:00.0" and "0000:1b:00.0" are the same).
bool sameBusId(const std::string& a, const std::string& b);

// `busId`: currentCudaBusId() (passed in so tests need no CUDA). `host`: this host's rail map entry,
// or NULL.
ServedGpu resolveServedGpu(const std::optional<std::string>& busId, const formats::RailMapHost* host,
                           EnvLookup env = processEnv);

// The rail of the GPU's first NIC in the rail map; -1 when the GPU or the map is unknown.
int expectedRail(const formats::RailMapHost* host, int gpuIndex);

}  // namespace railtune::net
