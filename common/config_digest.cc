#include "common/config_digest.h"

#include <cstdio>
#include <utility>

#include "common/regular_file.h"

namespace railtune {
namespace {

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

void mix(uint64_t& hash, std::string_view bytes) {
  uint64_t length = bytes.size();
  for (int i = 0; i < 8; ++i, length >>= 8) {
    hash ^= length & 0xff;
    hash *= kFnvPrime;
  }
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= kFnvPrime;
  }
}

// Variables that change what the tuner may pick or how NCCL builds its graphs, and that NCCL itself
// expects to be equal on every rank. Per-rank variables (NCCL_IB_HCA under --one-hca-per-rank,
// LOCAL_RANK, hostnames) are deliberately absent: they differ by design.
constexpr const char* kDecisionVariables[] = {
    "RAILTUNE_TUNER_MODEL", "NCCL_ALGO",         "NCCL_PROTO",     "NCCL_MIN_NCHANNELS",    "NCCL_MAX_NCHANNELS",
    "NCCL_NVLS_ENABLE",     "NCCL_MNNVL_ENABLE", "NCCL_CROSS_NIC", "NCCL_NET_MERGE_POLICY",
};

}  // namespace

std::vector<std::pair<std::string, std::string>> decisionEnvironment(EnvLookup env) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* name : kDecisionVariables)
    if (std::optional<std::string> value = env(name); value && !value->empty()) out.emplace_back(name, *value);
  return out;
}

uint64_t configDigest(const DigestInputs& inputs) {
  uint64_t hash = kFnvOffset;
  mix(hash, inputs.rules);
  mix(hash, inputs.railMap);
  for (const auto& [name, value] : inputs.environment) {
    mix(hash, name);
    mix(hash, value);
  }
  if (!inputs.tunerModel.empty()) {  // named like an environment pair, so no other split gives the same bytes
    mix(hash, "RAILTUNE_TUNER_MODEL_FILE");
    mix(hash, inputs.tunerModel);
  }
  return hash;
}

namespace {

// "" when the path is empty or the file cannot be read: a component that cannot read a file reports
// that itself; the digest only has to be the same on ranks that see the same bytes. Read as the tuner
// reads it (only a regular file, never blocking on a FIFO, the same cap), so both see the same bytes.
std::string fileBytes(const std::string& path) {
  if (path.empty()) return {};
  RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  return file.ok() ? std::move(file.bytes) : std::string();
}

std::string valueOrEmpty(EnvLookup env, const char* name) {
  std::optional<std::string> value = env(name);
  return value ? *value : std::string();
}

}  // namespace

DigestInputs digestInputsFromEnvironment(EnvLookup env) {
  std::string rulesPath = valueOrEmpty(env, "RAILTUNE_TUNER_CONFIG");
  if (rulesPath.empty()) rulesPath = valueOrEmpty(env, "NCCL_TUNER_CONFIG_FILE");
  return DigestInputs{fileBytes(rulesPath), fileBytes(valueOrEmpty(env, "RAILTUNE_RAIL_MAP")), decisionEnvironment(env),
                      fileBytes(valueOrEmpty(env, "RAILTUNE_TUNER_MODEL_FILE"))};
}

std::string digestHex(uint64_t digest) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
  return text;
}

}  // namespace railtune
