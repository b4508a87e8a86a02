// NCCL's spellings of functions, algorithms, protocols and path types, and its NCCL_ALGO/NCCL_PROTO
// list syntax (parseList in src/graph/tuning.cc), re-implemented.
#include <strings.h>
#include <stdexcept>
#include <vector>

#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

constexpr const char* kFuncNames[kNumCollectives] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
constexpr const char* kPathNames[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                      "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};
constexpr int kNumPathTypes = static_cast<int>(sizeof(kPathNames) / sizeof(kPathNames[0]));

template <int N>
const char* nameAt(const char* const (&names)[N], int i) {
  return i >= 0 && i < N ? names[i] : "unknown";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

// strtok_r skips empty tokens; NCCL's lists behave the same.
std::vector<std::string> tokens(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (std::string& t : split(s, sep))
    if (!t.empty()) out.push_back(std::move(t));
  return out;
}

void applyEntry(const std::string& whole, const std::string* prefix, std::string elements,
                const char* const* elementNames, int nElements, int* enabled) {
  int set = 1;
  if (!elements.empty() && elements[0] == '^') {
    set = 0;
    elements.erase(0, 1);
  }
  bool foundPrefix = false;
  for (int f = 0; f < kNumCollectives; f++) {
    if (prefix && strcasecmp(prefix->c_str(), kFuncNames[f]) != 0) continue;
    foundPrefix = true;
    for (int e = 0; e < nElements; e++) enabled[f * nElements + e] = 1 - set;
    for (const std::string& token : tokens(elements, ',')) {
      int e = 0;
      while (e < nElements && strcasecmp(token.c_str(), elementNames[e]) != 0) e++;
      if (e == nElements)
        throw std::invalid_argument("Unrecognized element token \"" + token + "\" when parsing \"" + whole + "\"");
      enabled[f * nElements + e] = set;
    }
  }
  if (!foundPrefix)
    throw std::invalid_argument("Unrecognized prefix token \"" + *prefix + "\" when parsing \"" + whole + "\"");
}

}  // namespace

const char* ncclAlgorithmName(Algorithm a) {
  return nameAt(kAlgoNames, static_cast<int>(a));
}
const char* ncclProtocolName(Protocol p) {
  return nameAt(kProtoNames, static_cast<int>(p));
}
const char* ncclCollectiveName(Collective c) {
  return nameAt(kFuncNames, static_cast<int>(c));
}
const char* pathTypeName(PathType t) {
  return nameAt(kPathNames, static_cast<int>(t));
}

std::optional<PathType> parsePathType(const std::string& s) {
  for (int i = 0; i < kNumPathTypes; i++)
    if (s == kPathNames[i]) return static_cast<PathType>(i);
  return std::nullopt;
}

// "elems" applies to every function and may only come first; "func:elems" to one function; a leading
// '^' in the element list disables the listed elements and enables the others.
void parseEnableList(const std::string& value, const char* const* elementNames, int nElements, int* enabled) {
  const std::vector<std::string> entries = tokens(value, ';');
  for (size_t i = 0; i < entries.size(); i++) {
    const std::vector<std::string> parts = tokens(entries[i], ':');
    if (parts.empty()) continue;
    if (parts.size() == 1) {
      // Only the first entry may omit the prefix: a later one would overwrite the prefixed ones.
      if (i != 0 || value[0] == ';')
        throw std::invalid_argument("All entries except the first must have a prefix: \"" + value + "\"");
      applyEntry(value, nullptr, parts[0], elementNames, nElements, enabled);
    } else {
      applyEntry(value, &parts[0], parts[1], elementNames, nElements, enabled);
    }
  }
}

}  // namespace railtune::ncclmodel
