// Drives a bound env plugin (v1, v2) as NCCL's env.cc does: init with NCCL's version numbers (v2 adds
// the logger), getEnv for every NCCL variable, finalize at exit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "emulator/loader.h"
#include "nccl/env_v1.h"
#include "nccl/env_v2.h"

namespace railtune::emu {

struct NcclVersionNumbers {
  uint8_t major = 0;
  uint8_t minor = 0;
  uint8_t patch = 0;
  const char* suffix = "";
};
// The version NCCL reports for the behaviour imitated: 2.28.9, 2.30.7 or 2.31.2, suffix "".
NcclVersionNumbers ncclVersionNumbers(NcclBehaviour b);

class EnvDriver {
 public:
  explicit EnvDriver(const Binding& binding);
  int version() const { return version_; }
  ncclResult_t init(const NcclVersionNumbers& v);
  std::optional<std::string> getEnv(const std::string& name);
  ncclResult_t finalize();

 private:
  Binding binding_;
  int version_ = 0;
};

}  // namespace railtune::emu
