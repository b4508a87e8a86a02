#include "topo_gen/labels.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "topo_gen/sched_common.h"

namespace railtune::topo {
namespace {

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

uint64_t fnv1a64(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Topograph's tiers count from the switch closest to the node. On a rail-optimized fabric every
// NIC of a host reaches a different leaf, and all leaves of a rail group serve the same hosts, so
// the closest switch level a host has as a whole is its rail group; the spine is the next one.
void addTopographLabels(const fabric::NvlDomain& domain, const fabric::RailGroup* group, NodeLabels& out) {
  out.labels.emplace_back("accelerator.topograph.run/domain", labelValue(domain.name));
  if (group == nullptr) return;
  out.labels.emplace_back("fabric.topograph.run/tier-0", labelValue(group->name));
  if (!group->spine.empty()) out.labels.emplace_back("fabric.topograph.run/tier-1", labelValue(group->spine));
}

}  // namespace

bool isValidLabelValue(const std::string& value) {
  if (value.empty()) return true;  // Kubernetes allows an empty value
  if (value.size() > 63 || !isAlnum(value.front()) || !isAlnum(value.back())) return false;
  for (const char c : value)
    if (!isAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::string labelValue(const std::string& raw) {
  if (isValidLabelValue(raw)) return raw;
  char hashed[20];
  std::snprintf(hashed, sizeof hashed, "x%016llx", static_cast<unsigned long long>(fnv1a64(raw)));
  return hashed;
}

std::vector<NodeLabels> nodeLabels(const fabric::Fabric& fabric, const LabelOptions& options) {
  std::vector<NodeLabels> nodes;
  nodes.reserve(fabric.hosts.size());
  for (const fabric::Host& host : fabric.hosts) {
    const fabric::NvlDomain& domain = domainOf(fabric, host);
    const fabric::RailGroup* group = railGroupOf(fabric, domain);
    NodeLabels node{host.name, {}};
    node.labels.emplace_back(kLabelNvlinkDomain, labelValue(domain.name));
    node.labels.emplace_back(kLabelRack, labelValue(domain.rack.empty() ? domain.name : domain.rack));
    node.labels.emplace_back(kLabelTray, std::to_string(host.tray));
    if (group != nullptr) {
      node.labels.emplace_back(kLabelRailGroup, labelValue(group->name));
      if (!group->spine.empty()) node.labels.emplace_back(kLabelSpine, labelValue(group->spine));
    }
    if (!domain.cliqueId.empty()) node.labels.emplace_back(kLabelClique, labelValue(domain.cliqueId));
    if (options.topographCompat) addTopographLabels(domain, group, node);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::string labelsJson(const std::vector<NodeLabels>& nodes) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (const NodeLabels& node : nodes) {
    nlohmann::ordered_json labels = nlohmann::ordered_json::object();
    for (const auto& [key, value] : node.labels) labels[key] = value;
    root[node.node] = std::move(labels);
  }
  return root.dump(2) + "\n";
}

std::string labelsKubectlScript(const std::vector<NodeLabels>& nodes) {
  std::string script =
      "#!/bin/sh\n# Kubernetes node labels from railtune topo labels; re-running it is safe (--overwrite).\n"
      "set -eu\n";
  for (const NodeLabels& node : nodes) {
    script += "kubectl label node " + shellQuote(node.node, kSchedulerShellQuoting);
    for (const auto& [key, value] : node.labels) {
      script += ' ';
      script += shellQuote(key + "=" + value, kSchedulerShellQuoting);
    }
    script += " --overwrite\n";
  }
  return script;
}

}  // namespace railtune::topo
