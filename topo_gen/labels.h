// Kubernetes node labels from the fabric: railtune's own keys (railtune.io/...) and, behind
// `--compat topograph`, the keys NVIDIA Topograph writes, for clusters that do not run Topograph.
// Never writes nvidia.com/gpu.clique: GPU Feature Discovery owns that label.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fabric/model.h"

namespace railtune::topo {

struct NodeLabels {
  std::string node;                                         // Host::name = Kubernetes node name
  std::vector<std::pair<std::string, std::string>> labels;  // key → value, in a fixed key order
};

struct LabelOptions {
  bool topographCompat = false;  // also accelerator.topograph.run/domain and fabric.topograph.run/tier-N
};

// One entry per host, in fabric order.
std::vector<NodeLabels> nodeLabels(const fabric::Fabric& fabric, const LabelOptions& options);

// A valid Kubernetes label value: `raw` itself when it already is one (at most 63 characters of
// [A-Za-z0-9-_.], starting and ending alphanumeric), else "x" + the 16 hex digits of FNV-1a-64(raw),
// the rule Topograph uses for long values, so both tools agree on the value of the same raw text.
std::string labelValue(const std::string& raw);
bool isValidLabelValue(const std::string& value);

// {"<node>": {"<key>": "<value>", ...}, ...} with nodes and keys in the order given.
std::string labelsJson(const std::vector<NodeLabels>& nodes);
// A POSIX shell script: one `kubectl label node <node> k=v ... --overwrite` per node.
std::string labelsKubectlScript(const std::vector<NodeLabels>& nodes);

}  // namespace railtune::topo
