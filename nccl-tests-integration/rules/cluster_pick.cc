// One cluster per rules file (cluster_pick.h).
#include "nccl-tests-integration/rules/cluster_pick.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace railtune::sweep {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// "NVIDIA H200, IB/RoCE 400G NICs", with what is unknown said.
std::string clusterText(const Shape& shape) {
  const std::string network = shape.fabric.label();
  return (shape.gpu.empty() ? "an unknown GPU" : shape.gpu) + ", " + (network.empty() ? "an unknown network" : network);
}

}  // namespace

bool ClusterPick::keeps(const Shape& shape) const {
  if (!gpu.empty() && lower(shape.gpu).find(lower(gpu)) == std::string::npos) return false;
  if (fabric.empty()) return true;
  const std::string want = lower(fabric), transport = lower(shape.fabric.transport);
  return want == transport || want == transport + "/" + lower(shape.fabric.linkLayer);
}

std::string sharedTunerKey(const Aggregate& aggregate) {
  // The tuner's key: what the rules file can say of a communicator.
  using TunerKey = std::tuple<std::string, int, int, int, int>;
  std::map<TunerKey, const GroupKey*> first;
  for (const auto& [key, table] : aggregate.groups) {
    const Shape& s = key.shape;
    const auto [it, inserted] =
        first.try_emplace(TunerKey{key.collective, s.ranks, s.nodes, s.nvlDomains, s.ranksPerDomain}, &key);
    const Shape& other = it->second->shape;
    if (inserted || (other.gpu == s.gpu && other.fabric == s.fabric)) continue;
    return "rules for " + clusterText(other) + " and " + clusterText(s) + " would share the tuner key \"" +
           key.collective + ", " + s.counts() +
           "\": the tuner cannot tell them apart; pass --gpu NAME or --fabric TRANSPORT to pick one, or write one "
           "file per cluster";
  }
  return "";
}

}  // namespace railtune::sweep
