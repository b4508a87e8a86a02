// The engine types' names and the cost-table view: what the rules library and the engines share.
#include "tuner_plugin/engine.h"

namespace railtune::tuner {

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

bool CostTableView::prefer(Algorithm a, Protocol p) {
  if (!available(a, p)) return false;  // forcing a combination NCCL did not set up would break the job
  table_[index(a)][index(p)] = 0.0f;
  return true;
}

}  // namespace railtune::tuner
