// Compact spec → model (fabric/expand.h) and the hardware profiles it draws on.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "fabric/expand.h"
#include "fabric/profiles.h"
#include "fabric/validate.h"

namespace railtune::fabric {
namespace {

ClusterSpec gb300(int domains) {
  ClusterSpec spec;
  spec.profile = "gb300-nvl72";
  spec.domains = domains;
  return spec;
}

TEST(Expand, Gb300TwoRacksFourRailsSinglePlane) {
  const Fabric f = expand(gb300(2));
  ASSERT_EQ(f.domains.size(), 2u);
  ASSERT_EQ(f.hosts.size(), 36u);
  EXPECT_EQ(f.hosts[18].name, "rack01-tray00");
  EXPECT_EQ(f.hosts[18].tray, 0);
  EXPECT_EQ(f.network.rails, 4);
  EXPECT_EQ(f.network.planes, 1);
  for (const Host& h : f.hosts) {
    ASSERT_EQ(h.gpus.size(), 4u);
    ASSERT_EQ(h.nics.size(), 4u);
    EXPECT_EQ(h.cpus.size(), 2u);
    for (size_t r = 0; r < 4; ++r) {
      EXPECT_EQ(h.nics[r].rail, static_cast<int>(r));
      EXPECT_EQ(h.nics[r].plane, -1);
      EXPECT_EQ(h.nics[r].speedMbps, 800000);
      EXPECT_EQ(h.nics[r].nearestGpu, static_cast<int>(r));
      EXPECT_EQ(h.nics[r].hca, "mlx5_" + std::to_string(r));
    }
    for (const Gpu& g : h.gpus) {
      EXPECT_EQ(g.sm, 103);
      EXPECT_EQ(g.nvlinks, 18);
      EXPECT_EQ(g.c2cLinks, 5);
      EXPECT_EQ(g.c2cBwMBps, 44712);
      EXPECT_EQ(g.model, "B300");
    }
  }
  // One rail group, one leaf per rail, one spine and no core.
  ASSERT_EQ(f.network.railGroups.size(), 1u);
  EXPECT_EQ(f.network.railGroups[0].domains, (std::vector<std::string>{"rack00", "rack01"}));
  ASSERT_EQ(f.network.switches.size(), 5u);
  EXPECT_EQ(f.network.switches[4].tier, SwitchTier::Spine);
  EXPECT_EQ(f.network.switches[0].speedGbps, 800);
}

TEST(Expand, TwoPlaneCx8IsTwoDevicesOf400GOnTheSameRail) {
  ClusterSpec spec = gb300(1);
  spec.planes = 2;
  const Fabric f = expand(spec);
  const Host& h = f.hosts[0];
  ASSERT_EQ(h.nics.size(), 8u);
  std::set<std::string> hcas, busIds;
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(h.nics[i].rail, static_cast<int>(i / 2));
    EXPECT_EQ(h.nics[i].plane, static_cast<int>(i % 2));
    EXPECT_EQ(h.nics[i].speedMbps, 400000);
    hcas.insert(h.nics[i].hca);
    busIds.insert(h.nics[i].busId);
  }
  EXPECT_EQ(hcas.size(), 8u);
  EXPECT_EQ(busIds.size(), 8u);
  EXPECT_EQ(f.network.planes, 2);
  EXPECT_NE(f.leafFor("rg0", 0, 1), nullptr);
  EXPECT_EQ(f.leafFor("rg0", 0, 1)->speedGbps, 400);
}

TEST(Expand, RailGroupsOfNRacksGetSpinesJoinedByACore) {
  ClusterSpec spec = gb300(5);
  spec.racksPerRailGroup = 2;
  const Fabric f = expand(spec);
  ASSERT_EQ(f.network.railGroups.size(), 3u);
  EXPECT_EQ(f.network.railGroups[2].domains, (std::vector<std::string>{"rack04"}));
  EXPECT_EQ(f.findDomain("rack03")->railGroup, "rg1");
  EXPECT_EQ(f.network.switches.size(), 3u * 4u + 1u);  // one shared spine, so no core

  spec.racksPerRailGroup = -1;
  spec.railGroups = {{"east", {"rack00", "rack01"}, "spine-e"}, {"west", {"rack02", "rack03", "rack04"}, "spine-w"}};
  const Fabric g = expand(spec);
  EXPECT_EQ(g.findDomain("rack02")->railGroup, "west");
  EXPECT_EQ(g.network.switches.size(), 2u * 4u + 2u + 1u);
  EXPECT_EQ(g.network.switches.back().tier, SwitchTier::Core);
  Diagnostics d;
  validate(g, d);
  EXPECT_FALSE(d.hasErrors());
}

void expectRejectedWith(const ClusterSpec& spec, const std::string& message) {
  try {
    expand(spec);
    ADD_FAILURE() << "accepted: " << message;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Expand, NamePatterns) {
  ClusterSpec spec = gb300(1);
  spec.domainPattern = "nvl-{d:03}";
  spec.hostPattern = "gpu-{d}-{t:02}.{domain}";
  spec.trays = 2;
  const Fabric f = expand(spec);
  EXPECT_EQ(f.hosts[1].name, "gpu-0-01.nvl-000");
  spec.hostPattern = "{rack}-{t}";
  EXPECT_THROW(expand(spec), std::invalid_argument);
  spec.hostPattern = "{t";
  EXPECT_THROW(expand(spec), std::invalid_argument);
  spec.hostPattern = "fixed";  // every host the same name: one error naming the pattern, not one per host
  spec.trays = 2;
  expectRejectedWith(spec, "hostNames: two hosts named 'fixed' (domain nvl-000, tray 1)");
}

// Clusters that number racks and trays from 1 (gb300-r01-t01): "+N" after an index, before its width.
TEST(Expand, NamePatternsCountFromOne) {
  ClusterSpec spec = gb300(2);
  spec.domainPattern = "gb300-r{d+1:02}";
  spec.hostPattern = "{domain}-t{t+1:02}";
  spec.trays = 18;
  const Fabric f = expand(spec);
  EXPECT_EQ(f.hosts.front().name, "gb300-r01-t01");
  EXPECT_EQ(f.hosts.back().name, "gb300-r02-t18");
  spec.hostPattern = "{domain}-t{t+16:x}";
  EXPECT_EQ(expand(spec).hosts.front().name, "gb300-r01-t10");
  for (const char* bad : {"{t+}", "{t-1}", "{t+1x}", "{t+123456}", "{domain+1}"}) {
    spec.hostPattern = bad;
    expectRejectedWith(spec, "hostNames: ");
  }
  spec.hostPattern = "{t+x}";
  expectRejectedWith(spec, "hostNames: bad offset in {t+x} (use e.g. {d+1} or {t+1:02} to count from 1)");
}

void expectRejected(const ClusterSpec& spec, const std::string& field) {
  try {
    expand(spec);
    ADD_FAILURE() << "accepted a spec with a bad " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field + ":"), std::string::npos) << e.what();
  }
}

TEST(Expand, RejectsImpossibleSpecsNamingTheField) {
  ClusterSpec spec = gb300(2);
  spec.profile = "gb400";
  expectRejected(spec, "profile");
  spec = gb300(2);
  spec.rails = 5;
  expectRejected(spec, "rails");
  spec = gb300(0);
  expectRejected(spec, "domains");
  spec = gb300(2);
  spec.profile = "gb200-nvl72";
  spec.planes = 2;
  expectRejected(spec, "planes");
  spec = gb300(100000);
  expectRejected(spec, "domains x trays");
  spec = gb300(2);
  spec.railGroups = {{"a", {"rack00", "rack01"}, ""}, {"b", {"rack01"}, ""}};
  expectRejected(spec, "railGroups");
  spec.railGroups = {{"a", {"rack00"}, ""}};
  expectRejected(spec, "railGroups");  // rack01 in no group
  spec.railGroups = {{"a", {"rack00", "rack01", "rack09"}, ""}};
  expectRejected(spec, "railGroups");
  spec = gb300(2);
  spec.linkLayer = "Myrinet";
  expectRejected(spec, "linkLayer");
}

TEST(Profiles, EveryProfileExpandsToAValidCluster) {
  for (const std::string& name : profileNames()) {
    ClusterSpec spec;
    spec.profile = name;
    spec.domains = 3;
    spec.racksPerRailGroup = 2;
    const Fabric f = expand(spec);
    Diagnostics d;
    validate(f, d);
    EXPECT_FALSE(d.hasErrors()) << name << ": " << (d.all().empty() ? "" : d.all()[0].str());
    const Profile* p = findProfile(name);
    ASSERT_NE(p, nullptr);
    for (const Gpu& g : p->gpus) EXPECT_EQ(normalizeBusId(g.busId), g.busId) << name;
    for (const ProfileNic& n : p->nics) {
      EXPECT_EQ(normalizeBusId(n.single.busId), n.single.busId) << name;
      EXPECT_GE(n.nearestGpu, 0) << name;
      for (const ProfileNicDevice& dev : n.planeDevices) EXPECT_EQ(normalizeBusId(dev.busId), dev.busId) << name;
    }
  }
}

TEST(Profiles, FactsFromTheReferences) {
  const Profile* gb300p = findProfile("gb300-nvl72");
  ASSERT_NE(gb300p, nullptr);
  EXPECT_EQ(gb300p->trays, 18);
  EXPECT_EQ(gb300p->nicSpeedMbps, 800000);
  EXPECT_EQ(gb300p->planes, 1);
  EXPECT_EQ(gb300p->planeCounts, (std::vector<int>{1, 2}));
  const Profile* gb200p = findProfile("gb200-nvl72");
  ASSERT_NE(gb200p, nullptr);
  EXPECT_EQ(gb200p->gpu.sm, 100);
  EXPECT_EQ(gb200p->nicSpeedMbps, 400000);
  EXPECT_EQ(gb200p->nics.size(), 4u);
  const Profile* h100 = findProfile("dgx-h100");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->gpus.size(), 8u);
  EXPECT_EQ(h100->gpu.sm, 90);
  EXPECT_EQ(h100->gpu.c2cLinks, 0);
  EXPECT_EQ(h100->cpus.at(0).arch, CpuArch::X86_64);
  EXPECT_EQ(h100->cpus.at(0).vendor, "GenuineIntel");
  const Profile* b200 = findProfile("dgx-b200");
  ASSERT_NE(b200, nullptr);
  EXPECT_EQ(b200->gpu.sm, 100);
  EXPECT_EQ(b200->nics.size(), 8u);
  EXPECT_EQ(findProfile("gb400"), nullptr);
}

}  // namespace
}  // namespace railtune::fabric

namespace railtune::fabric {
namespace {

TEST(Expand, RoceNicsGetEthernetNetdevNames) {
  // systemd's predictable names: "ib" IPoIB, "en" Ethernet, the same PCI path; mlx5 Ethernet ports add "np<N>".
  EXPECT_EQ(netdevForLinkLayer("ibp3s0", "Ethernet"), "enp3s0np0");
  EXPECT_EQ(netdevForLinkLayer("ibP2p3s0f1", "Ethernet"), "enP2p3s0f1np1");
  EXPECT_EQ(netdevForLinkLayer("enp25s0np0", "InfiniBand"), "ibp25s0");
  EXPECT_EQ(netdevForLinkLayer("ibp3s0", "InfiniBand"), "ibp3s0");
  EXPECT_EQ(netdevForLinkLayer("eth0", "Ethernet"), "eth0");
  ClusterSpec spec;
  spec.linkLayer = "Ethernet";
  spec.planes = 2;
  const auto cluster = expand(spec);  // the range-for would not keep expand's temporary alive past .front()
  for (const Nic& nic : cluster.hosts.front().nics) {
    EXPECT_EQ(nic.netdev.rfind("en", 0), 0u) << nic.netdev;
    EXPECT_EQ(nic.linkLayer, "Ethernet");
  }
}

TEST(Expand, NicGuidsFromAPatternOnePerNicSharedByItsPlanes) {
  ClusterSpec spec;
  spec.domains = 2;
  spec.planes = 2;
  spec.nicGuids = "0xb83fd203{h:04x}{r:02x}00";
  const Fabric f = expand(spec);
  const Host& host = f.hosts.at(19);  // rack01-tray01: host index 19
  ASSERT_EQ(host.nics.size(), 8u);
  EXPECT_EQ(host.nics[0].guid, 0xb83fd20300130000ULL);
  EXPECT_EQ(host.nics[1].guid, host.nics[0].guid);  // plane 1 of rail 0: the same ASIC
  EXPECT_EQ(host.nics[2].guid, 0xb83fd20300130100ULL);
  spec.nicGuids = "0x{t:04x}{r:02x}";  // rack00-tray00 and rack01-tray00 alike
  EXPECT_THROW(expand(spec), std::invalid_argument);
  spec.nicGuids = "b83f{h}{r}";  // no 0x
  EXPECT_THROW(expand(spec), std::invalid_argument);
  spec.nicGuids = "0x{h:020x}{r}";  // more than 16 digits
  EXPECT_THROW(expand(spec), std::invalid_argument);
  spec.nicGuids = "0x{p}";
  EXPECT_THROW(expand(spec), std::invalid_argument);
}

}  // namespace
}  // namespace railtune::fabric
