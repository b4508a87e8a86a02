// Fabric models built by hand for the NCCL XML and rail-map tests: the shapes of a 2-rack GB300 NVL72
// cluster (4 B300 + 2 Grace + 4 CX8 per tray) and one DGX H100 (8 H100 + 8 CX7, 2 Sapphire Rapids).
// Bus ids and GUIDs are made up but shaped like the real ones (GB200/GB300 trays put each GPU and CX8 in
// its own PCI domain). These stand in for fabric::expand() so that the emitters are tested on their own.
#pragma once

#include <cstdio>
#include <string>

#include "fabric/model.h"

namespace railtune::topo::testing {

inline std::string hexDomainBusId(int domain, int bus) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x:%02x:00.0", domain, bus);
  return buf;
}

inline fabric::Host gb300Tray(const std::string& domain, int tray, int domainIndex) {
  fabric::Host h;
  h.name = domain + "-tray" + (tray < 10 ? "0" : "") + std::to_string(tray);
  h.domain = domain;
  h.tray = tray;
  h.profile = "gb300-nvl72";
  const char* affinity[2] = {"00000000,00000000,000000ff,ffffffff,ffffffff",
                             "0000ffff,ffffffff,ffffff00,00000000,00000000"};
  for (int n = 0; n < 2; ++n)
    h.cpus.push_back(fabric::Cpu{n, fabric::CpuArch::Arm64, "NVIDIA", affinity[n], -1, -1, {}});
  const int gpuDomain[4] = {0x8, 0x9, 0x18, 0x19};
  const int nicDomain[4] = {0x0, 0x2, 0x10, 0x12};
  for (int g = 0; g < 4; ++g)
    h.gpus.push_back(fabric::Gpu{g, hexDomainBusId(gpuDomain[g], 1), 103, g / 2, 18, 5, 44712, "B300", {}});
  for (int r = 0; r < 4; ++r) {
    fabric::Nic n;
    n.hca = "mlx5_" + std::to_string(r);
    n.netdev = "ibp" + std::to_string(nicDomain[r]) + "s0";
    n.busId = hexDomainBusId(nicDomain[r], 3);
    n.speedMbps = 800000;
    n.guid = 0xb0cf0e0300a10000ULL + static_cast<uint64_t>(domainIndex * 0x1000 + tray * 0x10 + r);
    n.rail = r;
    n.numa = r / 2;
    n.nearestGpu = r;
    h.nics.push_back(n);
  }
  return h;
}

inline fabric::Fabric gb300TwoRacks() {
  fabric::Fabric f;
  f.name = "gb300-demo";
  f.network.rails = 4;
  f.network.planes = 1;
  for (int d = 0; d < 2; ++d) {
    fabric::NvlDomain dom;
    dom.name = std::string("rack0") + std::to_string(d);
    dom.railGroup = "rg0";
    for (int t = 0; t < 18; ++t) {
      f.hosts.push_back(gb300Tray(dom.name, t, d));
      dom.hosts.push_back(f.hosts.back().name);
    }
    f.domains.push_back(dom);
  }
  return f;
}

inline fabric::Fabric dgxH100() {
  fabric::Fabric f;
  f.name = "dgx-h100-demo";
  f.network.rails = 8;
  fabric::Host h;
  h.name = "dgx-h100-01";
  h.domain = "dgx-h100-01";
  h.profile = "dgx-h100";
  h.cpus.push_back(fabric::Cpu{0, fabric::CpuArch::X86_64, "GenuineIntel", "00000000,0000ffff,ffffffff", 6, 143, {}});
  h.cpus.push_back(fabric::Cpu{1, fabric::CpuArch::X86_64, "GenuineIntel", "ffffffff,ffff0000,00000000", 6, 143, {}});
  const int gpuBus[8] = {0x1b, 0x43, 0x52, 0x61, 0x9d, 0xc3, 0xd1, 0xdf};
  const int nicBus[8] = {0x18, 0x40, 0x4f, 0x5e, 0x9a, 0xc0, 0xce, 0xdc};
  for (int g = 0; g < 8; ++g)
    h.gpus.push_back(fabric::Gpu{g, hexDomainBusId(0, gpuBus[g]), 90, g / 4, 18, 0, 0, "H100 80GB HBM3", {}});
  for (int r = 0; r < 8; ++r) {
    fabric::Nic n;
    n.hca = "mlx5_" + std::to_string(r);
    n.netdev = "ibp" + std::to_string(nicBus[r]) + "s0";
    n.busId = hexDomainBusId(0, nicBus[r]);
    n.speedMbps = 400000;
    n.guid = 0x946dae0300f00000ULL + static_cast<uint64_t>(r);
    n.rail = r;
    n.numa = r / 4;
    n.nearestGpu = r;
    h.nics.push_back(n);
  }
  f.hosts.push_back(h);
  f.domains.push_back(fabric::NvlDomain{h.name, "", "", "rg0", {h.name}, {}});
  return f;
}

}  // namespace railtune::topo::testing
