// assembleHost (fabric/discover/assemble.h) on hand-built sources: each rule of GPU and NIC
// selection, nearest GPU, rails and planes, GIDs, fabric state and the clique label. The fixtures'
// end-to-end runs (hwloc XML + fake sysfs + fake NVML through the CLI) are in discover_cli tests.
#include <gtest/gtest.h>

#include <algorithm>

#include "fabric/discover/assemble.h"

namespace railtune::fabric::discover {
namespace {

const std::string kUuid = "5d9c7e3a-0b1c-4d2e-8f90-a1b2c3d4e5f6";

HwlocPciDevice pci(const std::string& busId, uint16_t vendor, uint16_t device, uint16_t cls, int numa,
                   std::vector<std::string> upstream) {
  HwlocPciDevice d;
  d.busId = busId;
  d.vendorId = vendor;
  d.deviceId = device;
  d.classId = cls;
  d.numa = numa;
  d.upstream = std::move(upstream);
  return d;
}

RdmaDevice rdma(const std::string& name, const std::string& busId, uint16_t device, uint64_t sysGuid, int numa,
                const std::string& linkLayer = "InfiniBand", int rateMbps = 800000) {
  RdmaDevice d;
  d.name = name;
  d.busId = busId;
  d.deviceId = device;
  d.vendorId = 0x15b3;
  d.sysImageGuid = sysGuid;
  d.nodeGuid = sysGuid + 1;
  d.numa = numa;
  d.netdevs = {"ib" + name};
  RdmaPort port;
  port.state = "ACTIVE";
  port.linkLayer = linkLayer;
  port.rateMbps = rateMbps;
  port.gids.push_back({0, "fe80:0000:0000:0000:" + std::string("b83f:d203:00a1:000") + name.back(), "IB/RoCE v1", ""});
  d.ports.push_back(port);
  return d;
}

NvmlGpu nvmlGpu(int index, const std::string& busId, int sm, int c2c) {
  NvmlGpu g;
  g.index = index;
  g.busId = busId;
  g.name = "NVIDIA GB300";
  g.sm = sm;
  g.nvlinksActive = 18;
  g.nvlinksProbed = 18;
  g.c2cLinks = c2c;
  g.c2cBwMBps = c2c ? 44712 : 0;
  g.fabricInfo = true;
  g.clusterUuid = kUuid;
  g.cliqueId = 32766;
  g.fabricState = 3;
  return g;
}

// One GB300 tray: GPU i and CX8 i behind the CX8's own PCIe switch; a BlueField-3 on its own root port.
struct Gb300Tray {
  HwlocTopology hwloc;
  SysfsInventory sysfs;
  NvmlInventory nvml;
  explicit Gb300Tray(bool twoPlanes = false) {
    const char* gpuBus[] = {"0008:01:00.0", "0009:01:00.0", "0018:01:00.0", "0019:01:00.0"};
    const char* nicBus[] = {"0000:03:00", "0002:03:00", "0010:03:00", "0012:03:00"};
    nvml.loaded = true;
    nvml.driverVersion = "580.65";
    for (int i = 0; i < 4; ++i) {
      const int numa = i / 2;
      const std::string root = "hb" + std::to_string(i), port = "rp" + std::to_string(i), sw = "sw" + std::to_string(i);
      hwloc.pciDevices.push_back(
          pci(gpuBus[i], 0x10de, 0x2941, 0x0302, numa, {root, port, sw, "down-gpu" + std::to_string(i)}));
      for (int f = 0; f < (twoPlanes ? 2 : 1); ++f) {
        const std::string bus = std::string(nicBus[i]) + "." + std::to_string(f);
        hwloc.pciDevices.push_back(
            pci(bus, 0x15b3, 0x1023, 0x0207, numa, {root, port, sw, "down-nic" + std::to_string(i)}));
        sysfs.rdma.push_back(rdma("mlx5_" + std::to_string(twoPlanes ? 2 * i + f : i), bus, 0x1023,
                                  0x1000 + uint64_t(i), numa, "InfiniBand", twoPlanes ? 400000 : 800000));
      }
      nvml.gpus.push_back(nvmlGpu(i, gpuBus[i], 103, 5));
    }
    hwloc.pciDevices.push_back(pci("0006:01:00.0", 0x15b3, 0xa2dc, 0x0200, 0, {"hb9", "rp9"}));
    sysfs.rdma.push_back(rdma("mlx5_bf", "0006:01:00.0", 0xa2dc, 0x9000, 0, "Ethernet", 400000));
    hwloc.architecture = "aarch64";
    for (int n = 0; n < 2; ++n) {
      hwloc.numas.push_back(
          {n, n == 0 ? "000000ff,ffffffff,ffffffff" : "ffffffff,ffffffff,ff000000,00000000,00000000"});
      hwloc.packages.push_back({n, {n}, "", "Neoverse-V2", -1, -1});
    }
    hwloc.numas.push_back({2, "00000000"});  // GPU memory: a CPU-less NUMA node
  }
  Sources sources() const { return {&hwloc, &sysfs, &nvml}; }
};

DiscoverOptions named(const std::string& host = "tray07") {
  DiscoverOptions o;
  o.host = host;
  return o;
}

bool hasFinding(const Discovery& d, Severity severity, const std::string& text) {
  return std::any_of(d.findings.begin(), d.findings.end(), [&](const Finding& f) {
    return f.severity == severity && f.text.find(text) != std::string::npos;
  });
}

std::string findingsOf(const Discovery& d) {
  std::string all;
  for (const Finding& f : d.findings) all += f.text + "\n";
  return all;
}

TEST(AssembleHost, Gb300TrayRailsFollowTheGpuBehindEachNicSwitch) {
  const Gb300Tray tray;
  const Discovery d = assembleHost(tray.sources(), named());
  ASSERT_EQ(d.fabric.hosts.size(), 1u);
  const Host& host = d.fabric.hosts[0];
  EXPECT_EQ(host.profile, "gb300-nvl72");
  ASSERT_EQ(host.gpus.size(), 4u);
  EXPECT_EQ(host.gpus[2].sm, 103);
  EXPECT_EQ(host.gpus[2].numa, 1);
  EXPECT_EQ(host.gpus[0].model, "GB300");
  ASSERT_EQ(host.nics.size(), 4u) << findingsOf(d);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(host.nics[r].rail, r);
    EXPECT_EQ(host.nics[r].plane, -1);
    EXPECT_EQ(host.nics[r].nearestGpu, r);
    EXPECT_EQ(host.nics[r].speedMbps, 800000);
    EXPECT_EQ(host.nics[r].guid, 0x1000u + r);  // the ASIC's system image GUID, not the port's node GUID
  }
  EXPECT_EQ(host.nics[0].gidIndex, 0);
  EXPECT_TRUE(
      hasFinding(d, Severity::Note, "mlx5_bf (0006:01:00.0, device 0xa2dc, Ethernet 400 Gb/s): not a compute NIC"));
  EXPECT_FALSE(d.hasErrors()) << findingsOf(d);
  ASSERT_EQ(host.cpus.size(), 2u);  // the CPU-less GPU-memory node is not a CPU
  EXPECT_EQ(host.cpus[1].affinity, "ffffffff,ffffffff,ff000000,00000000,00000000");
  EXPECT_EQ(host.cpus[0].arch, CpuArch::Arm64);
  EXPECT_EQ(host.cpus[0].vendor, "NVIDIA");
  const NvlDomain& domain = d.fabric.domains[0];
  EXPECT_EQ(domain.cliqueId, kUuid + ".32766");
  EXPECT_EQ(domain.name, "nvl-5d9c7e3a-32766");
  EXPECT_EQ(d.fabric.network.rails, 4);
  EXPECT_EQ(d.fabric.network.planes, 1);
  EXPECT_EQ(d.fabric.network.switches.size(), 5u);  // 4 placeholder leaves + spine0
}

TEST(AssembleHost, TwoPlaneNicsShareOneSystemImageGuid) {
  const Gb300Tray tray(true);
  const Discovery d = assembleHost(tray.sources(), named());
  const Host& host = d.fabric.hosts[0];
  ASSERT_EQ(host.nics.size(), 8u) << findingsOf(d);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(host.nics[i].hca, "mlx5_" + std::to_string(i));
    EXPECT_EQ(host.nics[i].rail, i / 2);
    EXPECT_EQ(host.nics[i].plane, i % 2);
    EXPECT_EQ(host.nics[i].speedMbps, 400000);
  }
  EXPECT_EQ(d.fabric.network.planes, 2);
  EXPECT_EQ(d.fabric.network.switches.size(), 9u);
}

// GB200: GPUs reach Grace by C2C, so no NIC shares a PCI switch with a GPU; pair by NUMA node and
// pick the NIC model that matches the GPU count (4 CX7, not the 2 BlueField-3).
TEST(AssembleHost, Gb200PairsByNumaAndPicksTheNicModelMatchingTheGpus) {
  HwlocTopology hwloc;
  SysfsInventory sysfs;
  NvmlInventory nvml;
  nvml.loaded = true;
  const char* gpuBus[] = {"0008:01:00.0", "0009:01:00.0", "0018:01:00.0", "0019:01:00.0"};
  const char* cx7Bus[] = {"0000:03:00.0", "0002:03:00.0", "0010:03:00.0", "0012:03:00.0"};
  for (int i = 0; i < 4; ++i) {
    hwloc.pciDevices.push_back(pci(gpuBus[i], 0x10de, 0x2941, 0x0302, i / 2, {"hb", "gpu-rp" + std::to_string(i)}));
    hwloc.pciDevices.push_back(pci(cx7Bus[i], 0x15b3, 0x1021, 0x0207, i / 2, {"hb", "nic-rp" + std::to_string(i)}));
    // sysfs lists them out of rail order: rails still follow the GPUs.
    sysfs.rdma.push_back(
        rdma("mlx5_" + std::to_string(3 - i), cx7Bus[i], 0x1021, 0x2000 + uint64_t(i), i / 2, "InfiniBand", 400000));
    nvml.gpus.push_back(nvmlGpu(i, gpuBus[i], 100, 5));
  }
  for (int b = 0; b < 2; ++b)
    sysfs.rdma.push_back(rdma("mlx5_" + std::to_string(4 + b), "000" + std::to_string(4 + b) + ":01:00.0", 0xa2dc,
                              0x3000 + uint64_t(b), b, "Ethernet", 400000));
  const Discovery d = assembleHost({&hwloc, &sysfs, &nvml}, named());
  const Host& host = d.fabric.hosts[0];
  EXPECT_EQ(host.profile, "gb200-nvl72");
  ASSERT_EQ(host.nics.size(), 4u) << findingsOf(d);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(host.nics[r].busId, cx7Bus[r]);
    EXPECT_EQ(host.nics[r].nearestGpu, r);
    EXPECT_EQ(host.nics[r].numa, r / 2);
  }
  EXPECT_TRUE(hasFinding(d, Severity::Note, "another NIC model serves the GPUs"));
}

// No hwloc and NUMA nodes that do not line up (NVML did not report the GPUs' node): bus order pairs them.
TEST(AssembleHost, WithoutPciOrNumaEvidenceNicsPairByBusOrder) {
  Gb300Tray tray;
  for (RdmaDevice& dev : tray.sysfs.rdma) dev.numa = 5;
  const Sources noHwloc{nullptr, &tray.sysfs, &tray.nvml};
  const Discovery d = assembleHost(noHwloc, named());
  const Host& host = d.fabric.hosts[0];
  ASSERT_EQ(host.nics.size(), 4u) << findingsOf(d);  // the NIC model matching the 4 GPUs: the CX8s
  for (int r = 0; r < 4; ++r) EXPECT_EQ(host.nics[r].nearestGpu, r);
  EXPECT_TRUE(hasFinding(d, Severity::Note,
                         "mlx5_3 (0012:03:00.0, device 0x1023, InfiniBand 800 Gb/s): paired with GPU 3 "
                         "by PCI bus order"));
  EXPECT_TRUE(host.cpus.empty());
}

TEST(AssembleHost, ExplicitHcasWinAndUnknownOnesAreErrors) {
  const Gb300Tray tray;
  DiscoverOptions o = named();
  o.hcas = {"mlx5_2", "mlx5_0", "mlx5_9"};
  const Discovery d = assembleHost(tray.sources(), o);
  const Host& host = d.fabric.hosts[0];
  ASSERT_EQ(host.nics.size(), 2u);
  EXPECT_EQ(host.nics[0].hca, "mlx5_0");
  EXPECT_EQ(host.nics[1].hca, "mlx5_2");
  EXPECT_EQ(host.nics[1].rail, 1);
  EXPECT_TRUE(d.hasErrors());
  EXPECT_TRUE(hasFinding(d, Severity::Error, "--hca mlx5_9: no such RDMA device"));
}

TEST(AssembleHost, RoceUsesTheFirstRoceV2Ipv4Gid) {
  Gb300Tray tray;
  RdmaPort& port = tray.sysfs.rdma[0].ports[0];
  port.linkLayer = "Ethernet";
  port.gids = {{0, "fe80:0000:0000:0000:0a00:0000:0000:0001", "IB/RoCE v1", "eth2"},
               {1, "fe80:0000:0000:0000:0a00:0000:0000:0001", "RoCE v2", "eth2"},
               {2, "0000:0000:0000:0000:0000:ffff:0a01:0005", "IB/RoCE v1", "eth2"},
               {3, "0000:0000:0000:0000:0000:ffff:0a01:0005", "RoCE v2", "eth2"}};
  const Discovery d = assembleHost(tray.sources(), named());
  const Nic& nic = d.fabric.hosts[0].nics[0];
  EXPECT_EQ(nic.linkLayer, "Ethernet");
  EXPECT_EQ(nic.gidIndex, 3);
  EXPECT_EQ(nic.gid, "0000:0000:0000:0000:0000:ffff:0a01:0005");
  EXPECT_EQ(nic.netdev, "eth2");  // the port's own netdev from its GID table
}

TEST(AssembleHost, DownPortIsAWarning) {
  Gb300Tray tray;
  tray.sysfs.rdma[1].ports[0].state = "DOWN";
  const Discovery d = assembleHost(tray.sources(), named());
  EXPECT_TRUE(hasFinding(d, Severity::Warning, "mlx5_1 port 1 is DOWN, not ACTIVE"));
  EXPECT_EQ(d.fabric.hosts[0].nics.size(), 4u);
}

TEST(AssembleHost, FabricRegistrationAndHealthFindings) {
  Gb300Tray tray;
  tray.nvml.gpus[1].fabricState = 2;
  tray.nvml.gpus[2].healthMask = 0x1;        // degraded bandwidth
  tray.nvml.gpus[3].healthMask = 0x2 | 0x8;  // "false" values: healthy
  const Discovery d = assembleHost(tray.sources(), named());
  EXPECT_TRUE(hasFinding(d, Severity::Warning, "GPU 1 (0009:01:00.0): NVLink fabric registration in progress"));
  EXPECT_TRUE(
      hasFinding(d, Severity::Warning, "GPU 2 (0018:01:00.0): NVLink fabric health: degraded NVLink bandwidth"));
  EXPECT_FALSE(hasFinding(d, Severity::Warning, "GPU 3"));
  EXPECT_EQ(d.fabric.domains[0].cliqueId, kUuid + ".32766");
  EXPECT_FALSE(d.hasErrors());
}

TEST(AssembleHost, GpusInDifferentCliquesAreAnError) {
  Gb300Tray tray;
  tray.nvml.gpus[3].cliqueId = 7;
  const Discovery d = assembleHost(tray.sources(), named());
  EXPECT_TRUE(hasFinding(d, Severity::Error, "GPUs of this host report different NVLink cliques"));
  EXPECT_EQ(d.fabric.domains[0].cliqueId, "");
  EXPECT_EQ(d.fabric.domains[0].name, "tray07");
}

TEST(AssembleHost, CliqueLabelIsCheckedAgainstNvml) {
  const Gb300Tray tray;
  DiscoverOptions o = named();
  o.cliqueLabelGiven = true;
  o.cliqueLabel = kUuid + ".32766";
  EXPECT_TRUE(hasFinding(assembleHost(tray.sources(), o), Severity::Note, "nvidia.com/gpu.clique matches NVML"));
  o.cliqueLabel = kUuid + ".1";
  const Discovery stale = assembleHost(tray.sources(), o);
  EXPECT_TRUE(hasFinding(stale, Severity::Error,
                         "nvidia.com/gpu.clique is " + kUuid + ".1 but NVML reports " + kUuid + ".32766"));
  o.cliqueLabel = "";
  EXPECT_TRUE(hasFinding(assembleHost(tray.sources(), o), Severity::Warning, "no nvidia.com/gpu.clique label"));
  Gb300Tray noFabric;
  for (NvmlGpu& g : noFabric.nvml.gpus) g.fabricState = 0;
  o.cliqueLabel = kUuid + ".32766";
  EXPECT_TRUE(hasFinding(assembleHost(noFabric.sources(), o), Severity::Warning, "the label is stale"));
}

TEST(AssembleHost, WithoutNvmlGpusComeFromHwlocAndAProfileFillsTheRest) {
  const Gb300Tray tray;
  const Sources noNvml{&tray.hwloc, &tray.sysfs, nullptr};
  const Discovery bare = assembleHost(noNvml, named());
  ASSERT_EQ(bare.fabric.hosts[0].gpus.size(), 4u);
  EXPECT_EQ(bare.fabric.hosts[0].gpus[0].sm, 0);
  EXPECT_EQ(bare.fabric.hosts[0].profile, "");
  EXPECT_TRUE(hasFinding(bare, Severity::Warning, "no NVML: sm and NVLink counts unknown"));
  DiscoverOptions o = named();
  o.profile = "gb300-nvl72";
  const Discovery filled = assembleHost(noNvml, o);
  EXPECT_EQ(filled.fabric.hosts[0].gpus[3].sm, 103);
  EXPECT_EQ(filled.fabric.hosts[0].gpus[3].nvlinks, 18);
  EXPECT_EQ(filled.fabric.hosts[0].nics[3].nearestGpu, 3);
  o.profile = "gb400";
  EXPECT_TRUE(hasFinding(assembleHost(noNvml, o), Severity::Error, "--profile gb400: unknown profile"));
}

TEST(AssembleHost, HwlocOnlyNicsTakeTheirGuidFromHwlocInfos) {
  Gb300Tray tray;
  for (HwlocPciDevice& dev : tray.hwloc.pciDevices)
    if (dev.vendorId == 0x15b3) {
      HwlocOsDev ib;
      ib.name = dev.busId == "0000:03:00.0" ? "mlx5_0" : "mlx5_x" + dev.busId.substr(0, 4);
      ib.kind = OsDevKind::OpenFabrics;
      ib.info["NodeGUID"] = "b83f:d203:00a1:b2c3";
      ib.info["SysImageGUID"] = "b83f:d203:00a1:b2c0";
      dev.osdevs.push_back(ib);
      dev.osdevs.push_back({"ibp3s0", OsDevKind::Network, {}});
    }
  const Sources hwlocOnly{&tray.hwloc, nullptr, &tray.nvml};
  const Discovery d = assembleHost(hwlocOnly, named());
  ASSERT_FALSE(d.fabric.hosts[0].nics.empty());
  const Nic& nic = d.fabric.hosts[0].nics[0];
  EXPECT_EQ(nic.hca, "mlx5_0");
  EXPECT_EQ(nic.guid, 0xb83fd20300a1b2c0u);
  EXPECT_EQ(nic.netdev, "ibp3s0");
  EXPECT_TRUE(hasFinding(d, Severity::Note, "NICs from hwloc only"));
}

TEST(AssembleHost, NothingFoundGivesAnEmptyHost) {
  const HwlocTopology hwloc;
  const SysfsInventory sysfs;
  const Discovery d = assembleHost({&hwloc, &sysfs, nullptr}, named("login01"));
  ASSERT_EQ(d.fabric.hosts.size(), 1u);
  EXPECT_TRUE(d.fabric.hosts[0].gpus.empty());
  EXPECT_TRUE(d.fabric.hosts[0].nics.empty());
  EXPECT_EQ(d.fabric.domains[0].name, "login01");
  EXPECT_FALSE(d.hasErrors());
}

TEST(GuessProfile, FromSmC2cAndCount) {
  auto gpus = [](int n, int sm, int c2c) {
    std::vector<Gpu> out(static_cast<size_t>(n));
    for (Gpu& g : out) {
      g.sm = sm;
      g.c2cLinks = c2c;
    }
    return out;
  };
  EXPECT_EQ(guessProfile(gpus(4, 103, 5)), "gb300-nvl72");
  EXPECT_EQ(guessProfile(gpus(4, 100, 5)), "gb200-nvl72");
  EXPECT_EQ(guessProfile(gpus(8, 90, 0)), "dgx-h100");
  EXPECT_EQ(guessProfile(gpus(8, 100, 0)), "dgx-b200");
  EXPECT_EQ(guessProfile(gpus(2, 90, 0)), "");
  EXPECT_EQ(guessProfile(gpus(0, 90, 0)), "");
}

}  // namespace
}  // namespace railtune::fabric::discover
