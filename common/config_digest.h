// The configuration digest (architecture rule 2): one pure function over everything that decides
// what the tuner picks and how the net plugin maps rails: the rules file's bytes, the rail map's
// bytes and the environment variables that change decisions. Every rank computes it on its own; the
// tuner logs it at init and the net plugin exchanges it in its handshake, so ranks started with
// different configurations are visible (a WARN; an error under RAILTUNE_STRICT=1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/params.h"

namespace railtune {

struct DigestInputs {
  std::string rules;                                             // the rules file's bytes ("" = no rules)
  std::string railMap;                                           // the rail map's bytes ("" = none)
  std::vector<std::pair<std::string, std::string>> environment;  // name, value; unset variables left out
  std::string tunerModel =
      {};  // the fitted model's bytes (RAILTUNE_TUNER_MODEL_FILE; "" = none: digests stay as before)
};

// The variables that change decisions, in a fixed order. Paths are not among them: the same rules
// at different paths on two hosts are the same configuration; their bytes are digested instead.
std::vector<std::pair<std::string, std::string>> decisionEnvironment(EnvLookup env = processEnv);

// 64-bit FNV-1a over the length-prefixed parts (so moving bytes from one part to the next changes
// it). A diagnostic fingerprint, not a security hash.
uint64_t configDigest(const DigestInputs& inputs);

// The inputs as the tuner sees them, read from the environment: the rules file named by
// RAILTUNE_TUNER_CONFIG (else NCCL_TUNER_CONFIG_FILE), the rail map named by RAILTUNE_RAIL_MAP,
// decisionEnvironment() and the fitted model named by RAILTUNE_TUNER_MODEL_FILE. A file that cannot be read counts as
// empty. The net plugin computes its handshake digest from this, independently of the tuner, and arrives at the tuner's
// value.
DigestInputs digestInputsFromEnvironment(EnvLookup env = processEnv);

// "digest 0123456789abcdef": sixteen lowercase hex digits.
std::string digestHex(uint64_t digest);

}  // namespace railtune
