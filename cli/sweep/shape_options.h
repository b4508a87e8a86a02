// What `railtune sweep parse` is told about the NVLink domains of the hosts in its outputs: a rail map
// (`--rail-map`, else RAILTUNE_RAIL_MAP) or a fabric (`--fabric`) gives each host's domain; `--nvl-domains N`
// splits the hosts evenly; `--mnnvl on|off` says whether NCCL counted a domain of several hosts as one node.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

namespace railtune::cli {

struct ShapeOptions {
  std::string railMap, fabric, mnnvl;
  int nvlDomains = 0;

  void add(CLI::App& app);
  // host -> NVLink domain from --rail-map / RAILTUNE_RAIL_MAP / --fabric; empty when none. Throws naming the file.
  std::map<std::string, std::string> domainOfHost() const;
};

}  // namespace railtune::cli
