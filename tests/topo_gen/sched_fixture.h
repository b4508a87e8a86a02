// Fabrics for the scheduler-output tests, built by hand so the tests fix every name they check:
// `smallCluster(domains, trays)` is GB300-shaped (4 GPUs, 4 rail NICs per host, one per GPU), all
// domains in rail groups of `racksPerGroup` racks, the groups joined by spines "spine0", "spine1"...
// (one spine per two groups) under one core "core0".
#pragma once

#include <cstdio>
#include <string>

#include "fabric/model.h"

namespace railtune::topo::test {

inline std::string twoDigits(int n) {
  char text[16];
  std::snprintf(text, sizeof text, "%02d", n);
  return text;
}

inline fabric::Host gb300Host(const std::string& domain, int tray) {
  fabric::Host host;
  host.name = domain + "-tray" + twoDigits(tray);
  host.domain = domain;
  host.tray = tray;
  host.profile = "gb300-nvl72";
  for (int i = 0; i < 4; ++i) {
    fabric::Gpu gpu;
    gpu.index = i;
    gpu.busId = "0000:0" + std::to_string(i + 1) + ":00.0";
    gpu.sm = 103;
    gpu.numa = i / 2;
    gpu.nvlinks = 18;
    host.gpus.push_back(gpu);
    fabric::Nic nic;
    nic.hca = "mlx5_" + std::to_string(i);
    nic.netdev = "ibp" + std::to_string(i) + "s0";
    nic.rail = i;
    nic.nearestGpu = i;
    nic.numa = i / 2;
    nic.speedMbps = 800000;
    host.nics.push_back(nic);
  }
  return host;
}

inline void addSwitches(fabric::Fabric& fabric, int groups) {
  for (int g = 0; g < groups; ++g)
    for (int rail = 0; rail < 4; ++rail) {
      fabric::Switch leaf;
      leaf.name = "rg" + std::to_string(g) + "-leaf" + std::to_string(rail);
      leaf.rail = rail;
      leaf.railGroup = "rg" + std::to_string(g);
      leaf.speedGbps = 800;
      leaf.up = {"spine" + std::to_string(g / 2)};
      fabric.network.switches.push_back(leaf);
    }
  for (int s = 0; s < (groups + 1) / 2; ++s) {
    fabric::Switch spine;
    spine.name = "spine" + std::to_string(s);
    spine.tier = fabric::SwitchTier::Spine;
    spine.up = {"core0"};
    fabric.network.switches.push_back(spine);
  }
  fabric::Switch core;
  core.name = "core0";
  core.tier = fabric::SwitchTier::Core;
  fabric.network.switches.push_back(core);
}

inline fabric::Fabric smallCluster(int domains, int trays, int racksPerGroup) {
  fabric::Fabric fabric;
  fabric.name = "sched-test";
  fabric.network.rails = 4;
  const int groups = (domains + racksPerGroup - 1) / racksPerGroup;
  for (int g = 0; g < groups; ++g)
    fabric.network.railGroups.push_back({"rg" + std::to_string(g), {}, "spine" + std::to_string(g / 2), {}});
  for (int d = 0; d < domains; ++d) {
    fabric::NvlDomain domain;
    domain.name = "rack" + twoDigits(d);
    domain.railGroup = "rg" + std::to_string(d / racksPerGroup);
    fabric.network.railGroups[static_cast<size_t>(d / racksPerGroup)].domains.push_back(domain.name);
    for (int t = 0; t < trays; ++t) {
      fabric.hosts.push_back(gb300Host(domain.name, t));
      domain.hosts.push_back(fabric.hosts.back().name);
    }
    fabric.domains.push_back(domain);
  }
  addSwitches(fabric, groups);
  return fabric;
}

}  // namespace railtune::topo::test
