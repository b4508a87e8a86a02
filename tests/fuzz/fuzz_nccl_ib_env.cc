// libFuzzer target for the one reader of NCCL's IB variables (common/nccl_ib_env.h): every variable read through
// an EnvLookup whose values are cut from the input (piece i, split at '\0', belongs to the i-th variable; a missing
// piece is unset). Besides crashes and sanitizer reports it checks the reader's promises: every value used is in
// its variable's range or is NCCL's default; a value counts as set only when it is in range; there is at most one
// warning per variable, and each names one.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/nccl_ib_env.h"

namespace {

using railtune::ncclib::IntVariable;

std::vector<std::string> gValues;
std::vector<std::string> gNames;

std::optional<std::string> fuzzEnv(const char* name) {
  for (size_t i = 0; i < gNames.size() && i < gValues.size(); ++i)
    if (gNames[i] == name) return gValues[i];
  return std::nullopt;
}

void require(bool promise) {
  if (!promise) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (gNames.empty()) {
    for (const IntVariable& v : railtune::ncclib::intVariables()) gNames.emplace_back(v.name);
    for (const char* extra : {"RAILTUNE_NET_QPS", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE"})
      gNames.emplace_back(extra);
  }
  gValues.clear();
  std::string piece;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      gValues.push_back(piece);
      piece.clear();
    } else {
      piece.push_back(static_cast<char>(data[i]));
    }
  }
  gValues.push_back(piece);
  const railtune::ncclib::NcclIbEnv env = railtune::ncclib::readNcclIbEnv(fuzzEnv);
  require(env.warnings.size() <= gNames.size());
  for (const std::string& warning : env.warnings) {
    bool names = false;
    for (const std::string& n : gNames) names = names || warning.find(n) != std::string::npos;
    require(names);
  }
  const auto check = [](const railtune::ncclib::Setting& s, int64_t low, int64_t high) {
    if (s.set) require(s.value >= low && s.value <= high);
  };
  check(env.qpsPerConnection, 1, 128);
  check(env.splitDataOnQps, 0, 1);
  check(env.serviceLevel, 0, 15);
  check(env.timeout, 0, 31);
  check(env.retryCount, 0, 7);
  check(env.trafficClass, 0, 255);
  check(env.gidIndex, 0, 255);
  check(env.railtuneQps, 0, 128);
  return 0;
}
