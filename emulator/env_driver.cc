#include "emulator/env_driver.h"

#include "emulator/logger.h"

namespace railtune::emu {

NcclVersionNumbers ncclVersionNumbers(NcclBehaviour b) {
  if (b == NcclBehaviour::V2_28) return {2, 28, 9, ""};
  if (b == NcclBehaviour::V2_31) return {2, 31, 2, ""};
  return {2, 30, 7, ""};
}

EnvDriver::EnvDriver(const Binding& binding)
    : binding_(binding), version_(binding.kind == PluginKind::Env ? binding.version : 0) {}

ncclResult_t EnvDriver::init(const NcclVersionNumbers& v) {
  if (version_ == 1) return static_cast<const ncclEnv_v1_t*>(binding_.table)->init(v.major, v.minor, v.patch, v.suffix);
  if (version_ == 2) {
    return static_cast<const ncclEnv_v2_t*>(binding_.table)->init(v.major, v.minor, v.patch, v.suffix, pluginLogger());
  }
  return ncclInternalError;
}

std::optional<std::string> EnvDriver::getEnv(const std::string& name) {
  const char* value = nullptr;
  if (version_ == 1) value = static_cast<const ncclEnv_v1_t*>(binding_.table)->getEnv(name.c_str());
  if (version_ == 2) value = static_cast<const ncclEnv_v2_t*>(binding_.table)->getEnv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

ncclResult_t EnvDriver::finalize() {
  if (version_ == 1) return static_cast<const ncclEnv_v1_t*>(binding_.table)->finalize();
  if (version_ == 2) return static_cast<const ncclEnv_v2_t*>(binding_.table)->finalize();
  return ncclInternalError;
}

}  // namespace railtune::emu
