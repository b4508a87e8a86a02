// NCCL_ALGO / NCCL_PROTO as NCCL reads them, in the tuner rules' spelling (choice.h).
#include "nccl-tests-integration/dataset/choice.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <utility>

#include "common/byte_size.h"
#include "common/text.h"

namespace railtune::sweep {
namespace {

// NCCL's names (ncclAlgoStr / ncclProtoStr, src/graph/tuning.cc) beside the rules'. NCCL compares them
// case-insensitively; "Collnet" was CollNet Direct's name before 2.14.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kAlgorithms{{
    {"tree", "Tree"},
    {"ring", "Ring"},
    {"collnet_direct", "CollnetDirect"},
    {"collnet_chain", "CollnetChain"},
    {"nvls", "NVLS"},
    {"nvls_tree", "NVLSTree"},
    {"pat", "PAT"},
    {"collnet_direct", "Collnet"},
}};
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kProtocols{{
    {"ll", "LL"},
    {"ll128", "LL128"},
    {"simple", "Simple"},
}};

// One value of NCCL_ALGO/NCCL_PROTO: a single name forces that choice; a list, a '^' exclusion or a
// per-function list ("allreduce:tree;broadcast:ring", NCCL 2.24+) forces no single one.
template <typename Lookup>
std::string single(const std::string& variable, const std::string& value, Lookup lookup, std::string& unusable) {
  const std::string_view v = trimmed(value);
  if (v.empty()) return "";
  if (v.find_first_of(",;:^") != std::string_view::npos) {
    if (unusable.empty()) unusable = variable + "=" + value + " does not force one choice";
    return "";
  }
  if (const std::optional<std::string> name = lookup(v)) return *name;
  if (unusable.empty()) unusable = variable + "=" + value + " is not a name NCCL knows";
  return "";
}

}  // namespace

std::optional<std::string> algorithmFromNccl(std::string_view token) {
  const std::string t = lowerAscii(trimmed(token));
  for (const auto& [rule, nccl] : kAlgorithms)
    if (t == lowerAscii(nccl) || t == rule) return std::string(rule);
  return std::nullopt;
}

std::optional<std::string> protocolFromNccl(std::string_view token) {
  const std::string t = lowerAscii(trimmed(token));
  for (const auto& [rule, nccl] : kProtocols)
    if (t == lowerAscii(nccl)) return std::string(rule);
  return std::nullopt;
}

std::string lowerAscii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> algorithmNames() {
  std::vector<std::string> out;
  for (const auto& [rule, nccl] : kAlgorithms)
    if (std::find(out.begin(), out.end(), rule) == out.end()) out.emplace_back(rule);
  return out;
}

std::vector<std::string> protocolNames() {
  std::vector<std::string> out;
  for (const auto& [rule, nccl] : kProtocols) out.emplace_back(rule);
  return out;
}

std::string ncclAlgorithmName(std::string_view algorithm) {
  for (const auto& [rule, nccl] : kAlgorithms)
    if (rule == algorithm) return std::string(nccl);
  return std::string(algorithm);
}

std::string ncclProtocolName(std::string_view protocol) {
  for (const auto& [rule, nccl] : kProtocols)
    if (rule == protocol) return std::string(nccl);
  return std::string(protocol);
}

std::string Choice::label() const {
  if (!unusable.empty()) return "unusable (" + unusable + ")";
  if (isDefault()) return "default";
  std::string out = (algorithm.empty() ? "*" : algorithm) + "/" + (protocol.empty() ? "*" : protocol);
  if (channels > 0) out += " ch=" + std::to_string(channels);
  if (chunkSize > 0) out += " chunk=" + byteSizeLabel(chunkSize);
  return out;
}

Choice choiceFromEnvironment(const std::map<std::string, std::string>& env) {
  Choice choice;
  const auto get = [&](const char* key) -> const std::string* {
    const auto it = env.find(key);
    return it == env.end() ? nullptr : &it->second;
  };
  if (const std::string* algo = get("NCCL_ALGO"))
    choice.algorithm = single("NCCL_ALGO", *algo, algorithmFromNccl, choice.unusable);
  if (const std::string* proto = get("NCCL_PROTO"))
    choice.protocol = single("NCCL_PROTO", *proto, protocolFromNccl, choice.unusable);
  const auto number = [&](const char* key, uint64_t* out) {
    const std::string* text = get(key);
    if (text == nullptr) return false;
    const std::string_view v = trimmed(*text);
    const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), *out);
    if (error != std::errc() || end != v.data() + v.size()) {
      if (choice.unusable.empty()) choice.unusable = std::string(key) + "=" + *text + " is not a number";
      return false;
    }
    return true;
  };
  uint64_t minChannels = 0, maxChannels = 0;
  const bool hasMin = number("NCCL_MIN_NCHANNELS", &minChannels);
  const bool hasMax = number("NCCL_MAX_NCHANNELS", &maxChannels);
  if (hasMin && hasMax && minChannels == maxChannels && minChannels > 0 && minChannels <= 64) {
    choice.channels = static_cast<int>(minChannels);
  } else if ((hasMin || hasMax) && choice.unusable.empty()) {
    choice.unusable = "NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS do not force one channel count";
  }
  uint64_t chunk = 0;
  if (number("RAILTUNE_SWEEP_CHUNK_SIZE", &chunk)) choice.chunkSize = chunk;
  return choice;
}

}  // namespace railtune::sweep
