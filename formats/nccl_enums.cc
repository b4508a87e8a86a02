// NCCL's spellings of its collectives, algorithms and protocols (ncclFuncStr, ncclAlgoStr, ncclProtoStr).
#include "formats/nccl_enums.h"

namespace railtune::formats {

const char* collectiveName(Collective c) {
  static constexpr const char* kNames[kNumCollectives] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                                          "AllReduce"};
  const int i = static_cast<int>(c);
  return i >= 0 && i < kNumCollectives ? kNames[i] : "unknown";
}

const char* algorithmName(Algorithm a) {
  static constexpr const char* kNames[kNumAlgorithms] = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                                         "NVLSTree", "PAT"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < kNumAlgorithms ? kNames[i] : "unknown";
}

const char* protocolName(Protocol p) {
  static constexpr const char* kNames[kNumProtocols] = {"LL", "LL128", "Simple"};
  const int i = static_cast<int>(p);
  return i >= 0 && i < kNumProtocols ? kNames[i] : "unknown";
}

}  // namespace railtune::formats
