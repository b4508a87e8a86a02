// Slurm topology.conf from the fabric, for either topology plugin:
//  - block: one block per NVLink domain (BlockName=<domain> Nodes=<hostlist>), and BlockSizes when
//    every domain has the same number of hosts (that size, then doubling up to the cluster's size).
//  - tree: the switch hierarchy as the fabric declares it. Slurm's tree wants each node under one
//    leaf, but a rail-optimized host reaches one leaf per rail and every leaf of a rail group serves
//    the same hosts, so the leaf level is one switch per rail group (its leaves named in a comment),
//    then the spines joining rail groups, then the cores above the spines.
#pragma once

#include <string>

#include "fabric/model.h"

namespace railtune::topo {

enum class SlurmTopologyPlugin { Block, Tree };

std::string slurmTopologyConf(const fabric::Fabric& fabric, SlurmTopologyPlugin plugin);

}  // namespace railtune::topo
