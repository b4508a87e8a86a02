// What a sweep forced on one nccl-tests run: NCCL's own choice (nothing forced), or an algorithm, a
// protocol, a channel count (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS) and a chunk size. The names are the
// tuner rules' spelling ("ring", "nvls_tree", "ll128"), read from NCCL_ALGO/NCCL_PROTO as NCCL reads them
// (case-insensitive, NCCL's spellings "NVLSTree", "CollnetDirect", "Collnet" too). A value that names
// several algorithms ("Ring,Tree") or a per-function list ("allreduce:tree") forces no single choice: it is
// kept as text and such runs never become a rule.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::sweep {

struct Choice {
  std::string algorithm;   // "" = NCCL's own
  std::string protocol;    // "" = NCCL's own
  int channels = 0;        // 0 = NCCL's own
  uint64_t chunkSize = 0;  // 0 = NCCL's own
  std::string unusable;    // why this forcing is not one rule's choice ("NCCL_ALGO=Ring,Tree names 2 algorithms")

  bool isDefault() const {
    return algorithm.empty() && protocol.empty() && channels == 0 && chunkSize == 0 && unusable.empty();
  }
  // "default", "ring/ll128", "ring/simple ch=16 chunk=512K", "ring/*" (protocol left to NCCL)
  std::string label() const;
  bool operator==(const Choice&) const = default;
  auto operator<=>(const Choice&) const = default;
};

// "ring", "nvls_tree"... for one NCCL_ALGO token ("Ring", "NVLSTree", "CollnetDirect", "Collnet" = collnet_direct
// in NCCL < 2.14), nullopt when it names none.
std::optional<std::string> algorithmFromNccl(std::string_view token);
std::optional<std::string> protocolFromNccl(std::string_view token);  // "ll", "ll128", "simple"
// The rules' names of every algorithm and protocol ("ring", ..., "pat"; "ll", "ll128", "simple").
std::vector<std::string> algorithmNames();
std::vector<std::string> protocolNames();
// ASCII letters lowered: how NCCL compares its variables' values (strcasecmp).
std::string lowerAscii(std::string_view text);

// NCCL's spelling of the rule names, for the environment a sweep sets: "ring" -> "Ring", "nvls_tree" -> "NVLSTree".
std::string ncclAlgorithmName(std::string_view algorithm);
std::string ncclProtocolName(std::string_view protocol);

// The choice an environment forces: NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS (equal),
// RAILTUNE_SWEEP_CHUNK_SIZE (the chunk size a sweep forces through the railtune tuner). Other keys are ignored.
Choice choiceFromEnvironment(const std::map<std::string, std::string>& env);

}  // namespace railtune::sweep
