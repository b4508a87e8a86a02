// libfake-nvml.so: a stand-in for libnvidia-ml.so.1 with the C ABI of the NVML entry points railtune
// reads, whose GPUs come from the JSON file named by FAKE_NVML_CONFIG (read at nvmlInit_v2). The
// declarations here are written independently of fabric/discover/nvml_read.cc (from nvml.h's layout as
// NCCL's src/include/nvmlwrap.h shows it), so that a misreading on either side shows up in the tests
// instead of cancelling out.
//
// Config: {"driverVersion": "...", "failInit": false, "dropFabricInfoV": false, "gpus": [{"busId",
// "name", "uuid", "sm", "nvlinks" (present, default 18), "nvlinksActive", "c2cLinks", "c2cBwMBps",
// "clusterUuid" (8-4-4-4-12), "cliqueId", "fabricState" ("not supported" | "not started" |
// "in progress" | "completed" or 0..3), "fabricStatus", "healthMask"}]}. `dropFabricInfoV` makes the
// versioned fabric call answer NVML_ERROR_FUNCTION_NOT_FOUND; built with FAKE_NVML_NO_FABRIC_V the
// symbol is not exported at all (libfake-nvml-v1.so). `hangInit` makes nvmlInit_v2 never return, as
// a driver stuck in the kernel does (doctor must give up on it at its timeout).
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#define FAKE_NVML_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

enum : int {
  kSuccess = 0,
  kUninitialized = 1,
  kInvalidArgument = 2,
  kNotSupported = 3,
  kDriverNotLoaded = 9,
  kFunctionNotFound = 13,
  kArgumentVersionMismatch = 25,
  kUnknown = 999,
};

struct PciInfo {  // nvml.h nvmlPciInfo_t (v3): legacy id, ids, then the 32-byte id
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
struct FabricInfo {
  unsigned char clusterUuid[16];
  int status;
  unsigned int cliqueId;
  unsigned char state;
};
struct FabricInfoV {
  unsigned int version;
  unsigned char clusterUuid[16];
  int status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
};
struct FieldValue {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType, nvmlReturn;
  unsigned long long value;  // a union in nvml.h; uiVal is its low 4 bytes on little-endian hosts
};
static_assert(sizeof(PciInfo) == 68 && sizeof(FabricInfo) == 28 && sizeof(FabricInfoV) == 36 &&
              sizeof(FieldValue) == 40);

struct FakeGpu {
  std::string busId, name, uuid;
  int sm = 0, nvlinks = 18, nvlinksActive = 0, c2cLinks = 0, c2cBwMBps = 0;
  unsigned char clusterUuid[16] = {};
  unsigned int cliqueId = 0, healthMask = 0;
  int fabricState = 0, fabricStatus = 0;
};

struct FakeState {
  bool initialized = false;
  bool dropFabricInfoV = false;
  std::string driverVersion;
  std::vector<FakeGpu> gpus;
};
FakeState gState;

bool parseUuid(const std::string& text, unsigned char (&out)[16]) {
  std::string hex;
  for (char c : text)
    if (c != '-') hex += c;
  if (hex.size() != 32) return false;
  for (size_t i = 0; i < 16; ++i) out[i] = static_cast<unsigned char>(std::stoul(hex.substr(i * 2, 2), nullptr, 16));
  return true;
}

int fabricStateOf(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int>();
  const std::string word = value.get<std::string>();
  const char* names[] = {"not supported", "not started", "in progress", "completed"};
  for (int i = 0; i < 4; ++i)
    if (word == names[i]) return i;
  throw std::runtime_error("unknown fabricState '" + word + "'");
}

FakeGpu gpuFrom(const nlohmann::json& j) {
  FakeGpu gpu;
  gpu.busId = j.at("busId").get<std::string>();
  gpu.name = j.value("name", "");
  gpu.uuid = j.value("uuid", "");
  gpu.sm = j.value("sm", 0);
  gpu.nvlinks = j.value("nvlinks", 18);
  gpu.nvlinksActive = j.value("nvlinksActive", 0);
  gpu.c2cLinks = j.value("c2cLinks", 0);
  gpu.c2cBwMBps = j.value("c2cBwMBps", 0);
  if (j.contains("clusterUuid") && !parseUuid(j["clusterUuid"].get<std::string>(), gpu.clusterUuid)) {
    throw std::runtime_error("clusterUuid is not 8-4-4-4-12 hex");
  }
  gpu.cliqueId = j.value("cliqueId", 0u);
  gpu.fabricState = j.contains("fabricState") ? fabricStateOf(j["fabricState"]) : 0;
  gpu.fabricStatus = j.value("fabricStatus", 0);
  gpu.healthMask = j.value("healthMask", 0u);
  return gpu;
}

int loadConfig() {
  const char* path = std::getenv("FAKE_NVML_CONFIG");
  if (path == nullptr) {
    std::fprintf(stderr, "fake NVML: FAKE_NVML_CONFIG is not set\n");
    return kUnknown;
  }
  try {
    std::ifstream in(path);
    const nlohmann::json config = nlohmann::json::parse(in);
    if (config.value("failInit", false)) return kDriverNotLoaded;
    while (config.value("hangInit", false)) ::pause();
    gState.dropFabricInfoV = config.value("dropFabricInfoV", false);
    gState.driverVersion = config.value("driverVersion", "580.00.00");
    gState.gpus.clear();
    for (const auto& gpu : config.at("gpus")) gState.gpus.push_back(gpuFrom(gpu));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake NVML: %s: %s\n", path, e.what());
    return kUnknown;
  }
  return kSuccess;
}

int copyText(const std::string& text, char* out, unsigned int length) {
  if (out == nullptr) return kInvalidArgument;
  if (text.size() + 1 > length) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::memcpy(out, text.c_str(), text.size() + 1);
  return kSuccess;
}

const FakeGpu* gpuOf(void* device) {
  if (!gState.initialized) return nullptr;
  for (const FakeGpu& gpu : gState.gpus)
    if (&gpu == device) return &gpu;
  return nullptr;
}

// One field: C2C link count, or a link's status / bandwidth (scopeId = link).
void fillField(const FakeGpu& gpu, FieldValue* fv) {
  fv->valueType = 1;  // NVML_VALUE_TYPE_UNSIGNED_INT
  fv->value = 0;
  fv->nvmlReturn = kSuccess;
  if (gpu.c2cLinks == 0) {
    fv->nvmlReturn = kNotSupported;
  } else if (fv->fieldId == 170) {
    fv->value = static_cast<unsigned>(gpu.c2cLinks);
  } else if ((fv->fieldId == 171 || fv->fieldId == 172) && fv->scopeId < static_cast<unsigned>(gpu.c2cLinks)) {
    fv->value = fv->fieldId == 171 ? 1u : static_cast<unsigned>(gpu.c2cBwMBps);
  } else {
    fv->nvmlReturn = kInvalidArgument;
  }
}

}  // namespace

FAKE_NVML_EXPORT int nvmlInit_v2() {
  const int r = loadConfig();
  gState.initialized = r == kSuccess;
  return r;
}

FAKE_NVML_EXPORT int nvmlShutdown() {
  if (!gState.initialized) return kUninitialized;
  gState.initialized = false;
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  return gState.initialized ? copyText(gState.driverVersion, version, length) : kUninitialized;
}

FAKE_NVML_EXPORT int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (!gState.initialized) return kUninitialized;
  *count = static_cast<unsigned int>(gState.gpus.size());
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (!gState.initialized) return kUninitialized;
  if (index >= gState.gpus.size()) return kInvalidArgument;
  *device = &gState.gpus[index];
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetPciInfo_v3(void* device, PciInfo* pci) {
  const FakeGpu* gpu = gpuOf(device);
  if (gpu == nullptr) return kInvalidArgument;
  unsigned domain = 0, bus = 0, dev = 0, function = 0;
  if (std::sscanf(gpu->busId.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &function) != 4) return kUnknown;
  *pci = PciInfo{};
  pci->domain = domain;
  pci->bus = bus;
  pci->device = dev;
  pci->pciDeviceId = 0x10de;
  // NVML's own spelling (nvml.h's ..._BUS_ID_LEGACY_FMT and ..._BUS_ID_FMT): uppercase hex, a 4-digit
  // domain in the 16-byte legacy id and an 8-digit one in the 32-byte id.
  std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X", domain & 0xffff, bus & 0xff,
                dev & 0x1f, function & 0x7);
  std::snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", domain, bus, dev, function);
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  const FakeGpu* gpu = gpuOf(device);
  return gpu == nullptr ? kInvalidArgument : copyText(gpu->name, name, length);
}

FAKE_NVML_EXPORT int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
  const FakeGpu* gpu = gpuOf(device);
  return gpu == nullptr ? kInvalidArgument : copyText(gpu->uuid, uuid, length);
}

FAKE_NVML_EXPORT int nvmlDeviceGetCudaComputeCapability(void* device, int* major, int* minor) {
  const FakeGpu* gpu = gpuOf(device);
  if (gpu == nullptr) return kInvalidArgument;
  *major = gpu->sm / 10;
  *minor = gpu->sm % 10;
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetNvLinkState(void* device, unsigned int link, int* isActive) {
  const FakeGpu* gpu = gpuOf(device);
  if (gpu == nullptr) return kInvalidArgument;
  if (gpu->nvlinks == 0) return kNotSupported;
  if (link >= static_cast<unsigned>(gpu->nvlinks)) return kInvalidArgument;
  *isActive = link < static_cast<unsigned>(gpu->nvlinksActive) ? 1 : 0;
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetFieldValues(void* device, int valuesCount, FieldValue* values) {
  const FakeGpu* gpu = gpuOf(device);
  if (gpu == nullptr || valuesCount < 0 || values == nullptr) return kInvalidArgument;
  for (int i = 0; i < valuesCount; ++i) fillField(*gpu, &values[i]);
  return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetGpuFabricInfo(void* device, FabricInfo* info) {
  const FakeGpu* gpu = gpuOf(device);
  if (gpu == nullptr) return kInvalidArgument;
  if (gpu->fabricState == 0) return kNotSupported;
  std::memcpy(info->clusterUuid, gpu->clusterUuid, sizeof(info->clusterUuid));
  info->status = gpu->fabricStatus;
  info->cliqueId = gpu->cliqueId;
  info->state = static_cast<unsigned char>(gpu->fabricState);
  return kSuccess;
}

#ifndef FAKE_NVML_NO_FABRIC_V
FAKE_NVML_EXPORT int nvmlDeviceGetGpuFabricInfoV(void* device, FabricInfoV* info) {
  const FakeGpu* gpu = gpuOf(device);
  if (gpu == nullptr) return kInvalidArgument;
  if (gState.dropFabricInfoV) return kFunctionNotFound;
  if (info->version != (sizeof(FabricInfoV) | (2u << 24))) return kArgumentVersionMismatch;
  if (gpu->fabricState == 0) return kNotSupported;
  std::memcpy(info->clusterUuid, gpu->clusterUuid, sizeof(info->clusterUuid));
  info->status = gpu->fabricStatus;
  info->cliqueId = gpu->cliqueId;
  info->state = static_cast<unsigned char>(gpu->fabricState);
  info->healthMask = gpu->healthMask;
  return kSuccess;
}
#endif
