// readNvml: the one place railtune calls NVML. The library is opened with dlopen and each entry point
// looked up by name; the declarations below are our own, checked against NCCL's NVML wrapper
// (src/include/nvmlwrap.h) and pinned with static_asserts, so no NVIDIA header is needed to build.
#include <dlfcn.h>

#include <cstddef>
#include <cstring>

#include "common/params.h"
#include "fabric/discover/nvml_source.h"
#include "fabric/model.h"

namespace railtune::fabric::discover {
namespace {

// ---- NVML's C ABI (the subset railtune reads) ------------------------------------------------------
namespace abi {

using Return = int;  // nvmlReturn_t: a C enum, int-sized
constexpr Return kSuccess = 0;
constexpr Return kInvalidArgument = 2;
constexpr Return kNotSupported = 3;
constexpr Return kFunctionNotFound = 13;
constexpr Return kArgumentVersionMismatch = 25;  // the library predates the struct version we pass
using Device = struct DeviceOpaque*;

constexpr unsigned kNvlinkMaxLinks = 18;  // NCCL's xml.cc probes links 0..17 for sm >= 90 (nvml.h: 18)
constexpr unsigned kFieldC2cLinkCount = 170, kFieldC2cLinkStatus = 171, kFieldC2cLinkMaxBw = 172;
constexpr int kFeatureEnabled = 1;
constexpr size_t kTextBuffer = 96;  // NVML_DEVICE_NAME_V2 / UUID_V2 buffer size; driver version needs 80

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it. NCCL declares the tail after pciSubSystemId as
// four reserved words (52 bytes); nvml.h puts a 32-byte busId there (68 bytes). We give NVML the larger
// size and read only the legacy bus id at offset 0, on which both agree.
struct PciInfo {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
static_assert(sizeof(PciInfo) == 68 && offsetof(PciInfo, pciSubSystemId) == 32);

struct FabricInfoV1 {  // nvmlGpuFabricInfo_t (nvmlDeviceGetGpuFabricInfo)
  unsigned char clusterUuid[16];
  Return status;
  unsigned cliqueId;
  unsigned char state;
};
static_assert(sizeof(FabricInfoV1) == 28 && offsetof(FabricInfoV1, state) == 24);

struct FabricInfoV2 {  // nvmlGpuFabricInfo_v2_t (nvmlDeviceGetGpuFabricInfoV)
  unsigned version;
  unsigned char clusterUuid[16];
  Return status;
  unsigned cliqueId;
  unsigned char state;
  unsigned healthMask;
};
static_assert(sizeof(FabricInfoV2) == 36 && offsetof(FabricInfoV2, healthMask) == 32);
constexpr unsigned kFabricInfoV2Version = sizeof(FabricInfoV2) | (2u << 24);  // NVML_STRUCT_VERSION(.., 2)

struct FieldValue {  // nvmlFieldValue_t
  unsigned fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType;
  Return nvmlReturn;
  union {
    double dVal;
    unsigned uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
  } value;
};
static_assert(sizeof(FieldValue) == 40 && offsetof(FieldValue, value) == 32);

using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using DriverVersionFn = Return (*)(char*, unsigned);
using CountFn = Return (*)(unsigned*);
using HandleFn = Return (*)(unsigned, Device*);
using PciInfoFn = Return (*)(Device, PciInfo*);
using TextFn = Return (*)(Device, char*, unsigned);
using ComputeCapabilityFn = Return (*)(Device, int*, int*);
using NvLinkStateFn = Return (*)(Device, unsigned, int*);
using FabricV2Fn = Return (*)(Device, FabricInfoV2*);
using FabricV1Fn = Return (*)(Device, FabricInfoV1*);
using FieldValuesFn = Return (*)(Device, int, FieldValue*);

}  // namespace abi

std::string returnText(abi::Return r) {
  switch (r) {
    case 1:
      return "NVML_ERROR_UNINITIALIZED";
    case 2:
      return "NVML_ERROR_INVALID_ARGUMENT";
    case 3:
      return "NVML_ERROR_NOT_SUPPORTED";
    case 4:
      return "NVML_ERROR_NO_PERMISSION";
    case 6:
      return "NVML_ERROR_NOT_FOUND";
    case 9:
      return "NVML_ERROR_DRIVER_NOT_LOADED";
    case 12:
      return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case 13:
      return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case 15:
      return "NVML_ERROR_GPU_IS_LOST";
    case 18:
      return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case 25:
      return "NVML_ERROR_ARGUMENT_VERSION_MISMATCH";
    default:
      return "NVML error " + std::to_string(r);
  }
}

// The opened library: symbol lookup, and the notes every failed call leaves.
class Nvml {
 public:
  explicit Nvml(void* handle, std::vector<std::string>* notes) : handle_(handle), notes_(notes) {}
  ~Nvml() { ::dlclose(handle_); }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The entry point, or nullptr with a note "nvmlX: not exported by this NVML".
  template <typename Fn>
  Fn fn(const char* name) {
    void* symbol = ::dlsym(handle_, name);
    if (symbol == nullptr) notes_->push_back(std::string(name) + ": not exported by this NVML");
    return reinterpret_cast<Fn>(symbol);
  }
  // Whether a call succeeded; a failure is noted with its context ("GPU 2: nvmlDeviceGetUUID: ...").
  bool ok(abi::Return r, const std::string& what) {
    if (r == abi::kSuccess) return true;
    notes_->push_back(what + ": " + returnText(r));
    return false;
  }
  void note(const std::string& line) { notes_->push_back(line); }

 private:
  void* handle_;
  std::vector<std::string>* notes_;
};

std::string gpuTag(const NvmlGpu& gpu) {
  return "GPU " + std::to_string(gpu.index);
}

std::string textOf(const char* buffer, size_t size) {
  return std::string(buffer, ::strnlen(buffer, size));
}

void readIdentity(Nvml& nvml, abi::Device dev, NvmlGpu* gpu) {
  const std::string tag = gpuTag(*gpu);
  if (auto pciInfo = nvml.fn<abi::PciInfoFn>("nvmlDeviceGetPciInfo_v3")) {
    abi::PciInfo pci{};
    if (nvml.ok(pciInfo(dev, &pci), tag + ": nvmlDeviceGetPciInfo_v3")) {
      const std::string raw = textOf(pci.busIdLegacy, sizeof(pci.busIdLegacy));
      gpu->busId = normalizeBusId(raw).value_or("");
      if (gpu->busId.empty()) nvml.note(tag + ": nvmlDeviceGetPciInfo_v3: not a PCI bus id '" + raw + "'");
    }
  }
  char text[abi::kTextBuffer] = {};
  if (auto name = nvml.fn<abi::TextFn>("nvmlDeviceGetName")) {
    if (nvml.ok(name(dev, text, sizeof(text)), tag + ": nvmlDeviceGetName")) gpu->name = textOf(text, sizeof(text));
  }
  std::memset(text, 0, sizeof(text));
  if (auto uuid = nvml.fn<abi::TextFn>("nvmlDeviceGetUUID")) {
    if (nvml.ok(uuid(dev, text, sizeof(text)), tag + ": nvmlDeviceGetUUID")) gpu->uuid = textOf(text, sizeof(text));
  }
  if (auto cc = nvml.fn<abi::ComputeCapabilityFn>("nvmlDeviceGetCudaComputeCapability")) {
    int major = 0, minor = 0;
    if (nvml.ok(cc(dev, &major, &minor), tag + ": nvmlDeviceGetCudaComputeCapability")) gpu->sm = major * 10 + minor;
  }
}

// Links NVML does not have answer NOT_SUPPORTED or INVALID_ARGUMENT: they are not probed, not errors.
void readNvlinks(Nvml& nvml, abi::Device dev, NvmlGpu* gpu) {
  auto state = nvml.fn<abi::NvLinkStateFn>("nvmlDeviceGetNvLinkState");
  if (state == nullptr) return;
  for (unsigned link = 0; link < abi::kNvlinkMaxLinks; ++link) {
    int active = 0;
    const abi::Return r = state(dev, link, &active);
    if (r == abi::kNotSupported || r == abi::kInvalidArgument) continue;
    if (!nvml.ok(r, gpuTag(*gpu) + ": nvmlDeviceGetNvLinkState(" + std::to_string(link) + ")")) continue;
    ++gpu->nvlinksProbed;
    if (active == abi::kFeatureEnabled) ++gpu->nvlinksActive;
  }
}

// As NCCL's xml.cc: the C2C link count, then per link its status and bandwidth; a link counts when
// its status is 1 (active), and the bandwidth is the one the active links report.
void readC2c(Nvml& nvml, abi::Device dev, NvmlGpu* gpu) {
  auto fields = nvml.fn<abi::FieldValuesFn>("nvmlDeviceGetFieldValues");
  if (fields == nullptr) return;
  abi::FieldValue count{};
  count.fieldId = abi::kFieldC2cLinkCount;
  const std::string what = gpuTag(*gpu) + ": nvmlDeviceGetFieldValues(C2C)";
  if (!nvml.ok(fields(dev, 1, &count), what)) return;
  if (count.nvmlReturn == abi::kNotSupported) return;  // no C2C on this GPU (PCIe-attached)
  if (!nvml.ok(count.nvmlReturn, what + " link count")) return;
  const unsigned links = count.value.uiVal < 64 ? count.value.uiVal : 64;
  for (unsigned link = 0; link < links; ++link) {
    abi::FieldValue pair[2] = {};
    pair[0].fieldId = abi::kFieldC2cLinkStatus;
    pair[1].fieldId = abi::kFieldC2cLinkMaxBw;
    pair[0].scopeId = pair[1].scopeId = link;
    if (fields(dev, 2, pair) != abi::kSuccess || pair[0].nvmlReturn != abi::kSuccess) continue;
    if (pair[0].value.uiVal != 1 || pair[1].nvmlReturn != abi::kSuccess) continue;
    ++gpu->c2cLinks;
    gpu->c2cBwMBps = static_cast<int>(pair[1].value.uiVal);
  }
}

template <typename Info>
void takeFabric(const Info& info, NvmlGpu* gpu) {
  gpu->fabricInfo = true;
  gpu->clusterUuid = formatClusterUuid(info.clusterUuid);
  gpu->cliqueId = info.cliqueId;
  gpu->fabricState = info.state;
  gpu->fabricStatus = info.status;
}

// The versioned call first (it adds the health mask); drivers before it have only the v1 call, and a
// library that has the symbol but not the v2 struct answers FUNCTION_NOT_FOUND or a version mismatch.
void readFabric(Nvml& nvml, void* handle, abi::Device dev, NvmlGpu* gpu) {
  const std::string tag = gpuTag(*gpu);
  if (auto v2 = reinterpret_cast<abi::FabricV2Fn>(::dlsym(handle, "nvmlDeviceGetGpuFabricInfoV"))) {
    abi::FabricInfoV2 info{};
    info.version = abi::kFabricInfoV2Version;
    const abi::Return r = v2(dev, &info);
    if (r == abi::kNotSupported) return;  // no NVLink fabric (PCIe or NVSwitch-less GPUs): nothing to say
    if (r != abi::kFunctionNotFound && r != abi::kArgumentVersionMismatch) {
      if (nvml.ok(r, tag + ": nvmlDeviceGetGpuFabricInfoV")) {
        takeFabric(info, gpu);
        gpu->healthMask = info.healthMask;
      }
      return;
    }
    nvml.note(tag + ": nvmlDeviceGetGpuFabricInfoV: " + returnText(r) + ", using nvmlDeviceGetGpuFabricInfo");
  } else {
    nvml.note(tag + ": nvmlDeviceGetGpuFabricInfoV: not exported by this NVML, using nvmlDeviceGetGpuFabricInfo");
  }
  if (auto v1 = nvml.fn<abi::FabricV1Fn>("nvmlDeviceGetGpuFabricInfo")) {
    abi::FabricInfoV1 info{};
    const abi::Return r = v1(dev, &info);
    if (r != abi::kNotSupported && nvml.ok(r, tag + ": nvmlDeviceGetGpuFabricInfo")) takeFabric(info, gpu);
  }
}

void readGpus(Nvml& nvml, void* handle, NvmlInventory* inventory) {
  auto count = nvml.fn<abi::CountFn>("nvmlDeviceGetCount_v2");
  auto byIndex = nvml.fn<abi::HandleFn>("nvmlDeviceGetHandleByIndex_v2");
  unsigned n = 0;
  if (count == nullptr || byIndex == nullptr || !nvml.ok(count(&n), "nvmlDeviceGetCount_v2")) return;
  constexpr unsigned kMaxGpus = 1024;  // far above any host; a broken library must not make us loop
  for (unsigned i = 0; i < n && i < kMaxGpus; ++i) {
    NvmlGpu gpu;
    gpu.index = static_cast<int>(i);
    abi::Device dev = nullptr;
    if (!nvml.ok(byIndex(i, &dev), gpuTag(gpu) + ": nvmlDeviceGetHandleByIndex_v2")) continue;
    readIdentity(nvml, dev, &gpu);
    readNvlinks(nvml, dev, &gpu);
    readC2c(nvml, dev, &gpu);
    readFabric(nvml, handle, dev, &gpu);
    inventory->gpus.push_back(std::move(gpu));
  }
}

std::string libraryToOpen(const std::string& library) {
  if (!library.empty()) return library;
  const ParamValue<std::string> fromEnv = readString("RAILTUNE_NVML_LIBRARY");
  if (fromEnv.ok() && !fromEnv.value.empty()) return fromEnv.value;
  return kNvmlDefaultLibrary;
}

}  // namespace

NvmlInventory readNvml(const std::string& library) {
  NvmlInventory inventory;
  inventory.library = libraryToOpen(library);
  void* handle = ::dlopen(inventory.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    inventory.error = "NVML not found (" + inventory.library + "): no NVIDIA driver on this host?";
    const char* why = ::dlerror();
    if (why != nullptr) inventory.notes.push_back(std::string("dlopen: ") + why);
    return inventory;
  }
  Nvml nvml(handle, &inventory.notes);  // dlclose when it goes out of scope
  auto init = nvml.fn<abi::InitFn>("nvmlInit_v2");
  const abi::Return initResult = init != nullptr ? init() : abi::kFunctionNotFound;
  if (initResult != abi::kSuccess) {
    inventory.error = "NVML (" + inventory.library + "): nvmlInit_v2 failed: " + returnText(initResult);
    return inventory;
  }
  inventory.loaded = true;
  if (auto version = nvml.fn<abi::DriverVersionFn>("nvmlSystemGetDriverVersion")) {
    char text[abi::kTextBuffer] = {};
    if (nvml.ok(version(text, sizeof(text)), "nvmlSystemGetDriverVersion")) {
      inventory.driverVersion = textOf(text, sizeof(text));
    }
  }
  readGpus(nvml, handle, &inventory);
  if (auto shutdown = nvml.fn<abi::ShutdownFn>("nvmlShutdown")) nvml.ok(shutdown(), "nvmlShutdown");
  return inventory;
}

}  // namespace railtune::fabric::discover
