// The communicator shape of a run's rows (dataset.h Shape): ranks and hosts from nccl-tests' device lines; NVLink
// domains and NCCL's node count from what the caller knows (a rail map, a fabric, --nvl-domains, --mnnvl, a sweep's
// manifest) and from NCCL's own "comm ... nNodes %d ... MNNVL %d" line (parse/nccl_info.h), which wins where the
// two disagree, with a warning; the GPU model from the device lines; the fabric from NCCL's "Using network" and
// NET/IB lines and the rail map or fabric. What is only assumed is said: an NVL72 run with no MNNVL information
// counts every tray as a node, which is wrong when NCCL ran with MNNVL.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {

// What the caller knows of the hosts before reading (from_output.h OutputContext holds it).
struct DomainFacts {
  // host -> NVLink domain (a rail map or a fabric), else nvlDomains (the hosts split evenly in the order they first
  // appear), else every host its own domain.
  std::map<std::string, std::string> domainOfHost;
  int nvlDomains = 0;
  std::string mnnvl;  // "on", "off", "" = on when a domain holds several hosts (NCCL then counts it one node)
  ShapeSource from = ShapeSource::Assumed;  // where domainOfHost / nvlDomains / mnnvl came from
  FabricId fabric;  // link layer, NIC speed and count, cluster name of a rail map or fabric; transport unknown
  NcclFacts probe;  // NCCL's lines of the sweep's probe run, for runs whose output has none (NCCL_DEBUG=WARN)
};

struct HostLayout {
  int ranks = 0, hosts = 0;
  bool complete = false;               // a device line for every rank
  std::vector<std::string> hostOrder;  // first appearance
  std::map<std::string, int> ranksOfHost;
};
HostLayout layoutOf(const TestRun& run);

// The shape of a run; notes get what the caller should be told (a host missing from the rail map, NCCL's count
// against the caller's, the NVL72 warning below).
Shape shapeOf(const HostLayout& layout, const DomainFacts& known, const TestRun& run, std::vector<std::string>& notes);

// "18 hosts of 4 NVIDIA GB300 GPUs counted as 18 nodes, ... or rerun with NCCL_DEBUG=INFO ..." for a shape whose
// domains were assumed, every host its own, on GB200/GB300 trays (4 GPUs or fewer per host) that may well share
// NVL72 racks with MNNVL; "" otherwise. `sweep parse` says it per output, `sweep rules` and `compare` per group.
std::string unsureDomainsWarning(const Shape& shape);

}  // namespace railtune::sweep
