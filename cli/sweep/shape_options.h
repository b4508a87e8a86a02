// What `railtune sweep parse` and `sweep run` are told about the NVLink domains of the hosts: a rail map
// (`--rail-map`, else RAILTUNE_RAIL_MAP) or a fabric (`--fabric`) gives each host's domain and the network (link
// layer, NIC speed, NICs per GPU, the cluster's name); `--nvl-domains N` splits the hosts evenly; `--mnnvl on|off`
// says whether NCCL counted a domain of several hosts as one node.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "nccl-tests-integration/dataset/shape_of.h"

namespace railtune::cli {

struct ShapeOptions {
  std::string railMap, fabric, mnnvl;
  int nvlDomains = 0;

  void add(CLI::App& app);
  // The domains and network the options say, with where they came from (rail map, fabric, option); nothing known
  // when none is given. Throws naming the file.
  sweep::DomainFacts facts() const;
};

// The domains and network of a rail map (fromFabric false) or a fabric description, read now. Throws naming the
// file. `sweep parse` reads again the file a sweep's manifest names.
sweep::DomainFacts clusterFacts(const std::string& path, bool fromFabric);

}  // namespace railtune::cli
