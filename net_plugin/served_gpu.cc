// See served_gpu.h.
#include "net_plugin/served_gpu.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace railtune::net {
namespace {

// The few driver entry points we need, declared as the CUDA driver API defines them (CUresult is an
// int-sized enum whose success value is 0; CUdevice is an int; CUcontext a pointer).
using CuCtxGetCurrent = int (*)(void** context);
using CuCtxGetDevice = int (*)(int* device);
using CuDeviceGetPciBusId = int (*)(char* busId, int length, int device);

struct CudaDriver {
  CuCtxGetCurrent getCurrent = nullptr;
  CuCtxGetDevice getDevice = nullptr;
  CuDeviceGetPciBusId getBusId = nullptr;
};

// Looked up once; the handle is never closed (NCCL keeps libcuda loaded for the process's life).
const CudaDriver& cudaDriver() {
  static const CudaDriver driver = [] {
    CudaDriver d;
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) return d;
    d.getCurrent = reinterpret_cast<CuCtxGetCurrent>(dlsym(handle, "cuCtxGetCurrent"));
    d.getDevice = reinterpret_cast<CuCtxGetDevice>(dlsym(handle, "cuCtxGetDevice"));
    d.getBusId = reinterpret_cast<CuDeviceGetPciBusId>(dlsym(handle, "cuDeviceGetPCIBusId"));
    return d;
  }();
  return driver;
}

struct BusFields {
  unsigned long domain = 0, bus = 0, device = 0, function = 0;
  bool operator==(const BusFields&) const = default;
};

std::optional<BusFields> parseBusId(const std::string& text) {
  BusFields f;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%lx:%lx:%lx.%lx%n", &f.domain, &f.bus, &f.device, &f.function, &consumed) != 4 ||
      static_cast<size_t>(consumed) != text.size()) {
    return std::nullopt;
  }
  return f;
}

}  // namespace

std::optional<std::string> currentCudaBusId() {
  const CudaDriver& driver = cudaDriver();
  if (driver.getCurrent == nullptr || driver.getDevice == nullptr || driver.getBusId == nullptr) return std::nullopt;
  void* context = nullptr;
  if (driver.getCurrent(&context) != 0 || context == nullptr) return std::nullopt;
  int device = -1;
  if (driver.getDevice(&device) != 0) return std::nullopt;
  char busId[32] = {};
  if (driver.getBusId(busId, sizeof busId, device) != 0) return std::nullopt;
  return std::string(busId);
}

bool sameBusId(const std::string& a, const std::string& b) {
  const std::optional<BusFields> fa = parseBusId(a), fb = parseBusId(b);
  return fa && fb && *fa == *fb;
}

ServedGpu resolveServedGpu(const std::optional<std::string>& busId, const formats::RailMapHost* host, EnvLookup env) {
  ServedGpu served;
  if (busId) {
    served.source = "CUDA device " + *busId;
    if (host == nullptr) return served;
    for (const formats::RailMapGpu& gpu : host->gpus) {
      if (sameBusId(gpu.busId, *busId)) {
        served.index = gpu.index;
        return served;
      }
    }
    served.source += " (not in this host's rail map entry)";
    return served;
  }
  const std::optional<std::string> localRank = env("LOCAL_RANK");
  if (!localRank || localRank->empty()) {
    served.source = "unknown (no current CUDA device, LOCAL_RANK unset)";
    return served;
  }
  int64_t value = -1;
  if (!parseIntText(*localRank, &value) || value < 0 || value > 4096) {
    served.source = "unknown (LOCAL_RANK='" + *localRank + "' is not a GPU index)";
    return served;
  }
  served.index = static_cast<int>(value);
  served.source = "LOCAL_RANK=" + std::to_string(value);
  return served;
}

int expectedRail(const formats::RailMapHost* host, int gpuIndex) {
  return host == nullptr ? -1 : host->expectedRail(gpuIndex);
}

}  // namespace railtune::net
