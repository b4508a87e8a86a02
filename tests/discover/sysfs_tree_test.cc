// readSysfs over the synthetic trees in tests/data/discover/sysfs/ (see the README there), over trees
// built on the spot to be hostile (symlink loops, huge and unreadable files), and once over the live /sys.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fabric/discover/sysfs_source.h"
#include "tests/discover/joined_lines.h"

namespace rd = railtune::fabric::discover;
namespace fs = std::filesystem;

namespace {

std::string sysfsFixture(const std::string& name) {
  return std::string(RAILTUNE_SYSFS_FIXTURES) + "/" + name;
}

const rd::RdmaDevice& rdma(const rd::SysfsInventory& inv, const std::string& name) {
  const auto it = std::find_if(inv.rdma.begin(), inv.rdma.end(), [&](const auto& d) { return d.name == name; });
  if (it == inv.rdma.end()) throw std::runtime_error("no RDMA device " + name);
  return *it;
}

const rd::NetDevice& net(const rd::SysfsInventory& inv, const std::string& name) {
  const auto it = std::find_if(inv.net.begin(), inv.net.end(), [&](const auto& d) { return d.name == name; });
  if (it == inv.net.end()) throw std::runtime_error("no netdev " + name);
  return *it;
}

// A scratch directory removed at the end of the test.
class SysfsScratch : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/railtune-sysfs-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel) << text;
  }
  void link(const std::string& rel, const std::string& target) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    fs::create_symlink(target, root_ + "/" + rel);
  }
  std::string root_;
};

}  // namespace

TEST(SysfsTree, Gb300OnePlane) {
  const rd::SysfsInventory inv = rd::readSysfs(sysfsFixture("gb300-1plane"));
  EXPECT_EQ(inv.notes, std::vector<std::string>{}) << joined(inv.notes);
  ASSERT_EQ(inv.rdma.size(), 5u);
  const char* busIds[] = {"0000:03:00.0", "0002:03:00.0", "0010:03:00.0", "0012:03:00.0"};
  const char* netdevs[] = {"ibp3s0", "ibP2p3s0", "ibP16p3s0", "ibP18p3s0"};
  for (int i = 0; i < 4; ++i) {
    const rd::RdmaDevice& cx8 = inv.rdma[static_cast<size_t>(i)];
    EXPECT_EQ(cx8.name, "mlx5_" + std::to_string(i));
    EXPECT_EQ(cx8.busId, busIds[i]);
    EXPECT_EQ(cx8.vendorId, 0x15b3);
    EXPECT_EQ(cx8.deviceId, 0x1023);
    EXPECT_EQ(cx8.numa, i < 2 ? 0 : 1);
    EXPECT_EQ(cx8.netdevs, std::vector<std::string>{netdevs[i]});
    ASSERT_EQ(cx8.ports.size(), 1u);
    EXPECT_EQ(cx8.ports[0].state, "ACTIVE");
    EXPECT_EQ(cx8.ports[0].linkLayer, "InfiniBand");
    EXPECT_EQ(cx8.ports[0].rateMbps, 800000);
    EXPECT_EQ(cx8.ports[0].rateText, "800 Gb/sec (4X XDR)");
    ASSERT_EQ(cx8.ports[0].gids.size(), 1u);  // the all-zero entry is dropped
    EXPECT_EQ(cx8.ports[0].gids[0].gid.substr(0, 20), "fe80:0000:0000:0000:");
    EXPECT_EQ(cx8.sysImageGuid, cx8.nodeGuid);
    // Each CX8 behind its own PCIe switch: host bridge, root port, switch upstream, downstream port.
    const std::string domain = cx8.busId.substr(0, 4);
    EXPECT_EQ(cx8.upstream, (std::vector<std::string>{"pci" + domain + ":00", domain + ":00:00.0", domain + ":01:00.0",
                                                      domain + ":02:00.0"}));
  }
  EXPECT_EQ(inv.rdma[0].nodeGuid, 0xb83fd20300a1b200ULL);
  EXPECT_EQ(inv.rdma[0].boardId, "NVD0000000087");
  EXPECT_EQ(inv.rdma[0].fwVersion, "40.45.1200");
  EXPECT_NE(inv.rdma[0].sysImageGuid, inv.rdma[1].sysImageGuid);

  const rd::RdmaDevice& bf3 = rdma(inv, "mlx5_4");
  EXPECT_EQ(bf3.deviceId, 0xa2dc);
  EXPECT_EQ(bf3.ports[0].linkLayer, "Ethernet");
  EXPECT_EQ(bf3.ports[0].rateMbps, 400000);
  ASSERT_EQ(bf3.ports[0].gids.size(), 4u);
  EXPECT_EQ(bf3.ports[0].gids[3].type, "RoCE v2");
  EXPECT_EQ(bf3.ports[0].gids[3].netdev, "enP6p1s0f0np0");
  const auto v4 = rd::parseGid(bf3.ports[0].gids[3].gid);
  ASSERT_TRUE(v4);
  EXPECT_EQ(rd::gidIpv4(*v4), "10.200.0.17");
}

TEST(SysfsTree, Gb300OnePlaneNetdevs) {
  const rd::SysfsInventory inv = rd::readSysfs(sysfsFixture("gb300-1plane"));
  ASSERT_EQ(inv.net.size(), 6u);
  const rd::NetDevice& ib = net(inv, "ibp3s0");
  EXPECT_EQ(ib.busId, "0000:03:00.0");
  EXPECT_EQ(ib.speedMbps, 800000);
  EXPECT_EQ(ib.operstate, "up");
  EXPECT_EQ(ib.type, 32);
  EXPECT_EQ(ib.mtu, 4092);
  const rd::NetDevice& eth0 = net(inv, "eth0");
  EXPECT_EQ(eth0.busId, "0005:01:00.0");
  EXPECT_EQ(eth0.type, 1);
  EXPECT_EQ(eth0.address, "02:00:00:00:05:01");
  EXPECT_EQ(eth0.speedMbps, 1000);
}

TEST(SysfsTree, Gb300TwoPlanesShareTheImageGuid) {
  const rd::SysfsInventory inv = rd::readSysfs(sysfsFixture("gb300-2plane"));
  EXPECT_EQ(inv.notes, std::vector<std::string>{}) << joined(inv.notes);
  ASSERT_EQ(inv.rdma.size(), 9u);
  for (size_t nic = 0; nic < 4; ++nic) {
    const rd::RdmaDevice& plane0 = inv.rdma[nic * 2];
    const rd::RdmaDevice& plane1 = inv.rdma[nic * 2 + 1];
    EXPECT_EQ(plane0.sysImageGuid, plane1.sysImageGuid);
    EXPECT_NE(plane0.nodeGuid, plane1.nodeGuid);
    EXPECT_EQ(plane0.busId.substr(0, 11), plane1.busId.substr(0, 11));
    EXPECT_EQ(plane0.busId.back(), '0');
    EXPECT_EQ(plane1.busId.back(), '1');
    EXPECT_EQ(plane0.upstream, plane1.upstream);
    EXPECT_EQ(plane1.ports[0].rateMbps, 400000);
  }
  EXPECT_NE(inv.rdma[0].sysImageGuid, inv.rdma[2].sysImageGuid);
  EXPECT_EQ(inv.rdma[2].netdevs, std::vector<std::string>{"ibP2p3s0f0"});
  EXPECT_EQ(inv.rdma.back().name, "mlx5_8");  // natural order: the BlueField-3 comes last
}

TEST(SysfsTree, RoceH100) {
  const rd::SysfsInventory inv = rd::readSysfs(sysfsFixture("roce-h100"));
  EXPECT_EQ(inv.notes, std::vector<std::string>{}) << joined(inv.notes);
  ASSERT_EQ(inv.rdma.size(), 8u);
  EXPECT_EQ(inv.rdma[7].name, "mlx5_11");
  for (size_t rail = 0; rail < 8; ++rail) {
    const rd::RdmaPort& port = inv.rdma[rail].ports.at(0);
    EXPECT_EQ(inv.rdma[rail].deviceId, 0x1021);
    EXPECT_EQ(port.linkLayer, "Ethernet");
    if (rail == 7) continue;
    ASSERT_EQ(port.gids.size(), 4u);
    const auto gid = rd::parseGid(port.gids[2].gid);
    ASSERT_TRUE(gid);
    EXPECT_EQ(rd::gidIpv4(*gid), "10.0." + std::to_string(rail) + ".11");  // one subnet per rail
  }
  EXPECT_EQ(inv.rdma[0].ports[0].gids[3].type, "");  // hidden type: the file reads nothing
  EXPECT_EQ(inv.rdma[1].ports[0].gids[3].type, "RoCE v2");
  EXPECT_EQ(inv.rdma[7].ports[0].state, "DOWN");
  EXPECT_EQ(net(inv, "enp220s0np0").speedMbps, -1);
  EXPECT_EQ(net(inv, "enp220s0np0").operstate, "down");
  EXPECT_EQ(net(inv, "docker0").busId, "");  // virtual
  EXPECT_EQ(inv.net.size(), 9u);             // lo skipped
}

TEST_F(SysfsScratch, MissingClassIsNotAnError) {
  const rd::SysfsInventory inv = rd::readSysfs(root_);
  EXPECT_TRUE(inv.rdma.empty());
  EXPECT_TRUE(inv.net.empty());
  ASSERT_EQ(inv.notes.size(), 2u);
  EXPECT_NE(inv.notes[0].find("no RDMA devices"), std::string::npos);
}

TEST_F(SysfsScratch, SymlinkLoopsAndBadValuesBecomeNotes) {
  write("sys/class/infiniband/mlx5_0/node_guid", "not-a-guid\n");
  write("sys/class/infiniband/mlx5_0/ports/1/rate", "fast\n");
  link("sys/class/infiniband/mlx5_0/device", "device");  // a link to itself
  link("sys/class/infiniband/mlx5_1", "../../class/infiniband/mlx5_1");
  link("sys/class/infiniband/mlx5_2", "/sys/class/infiniband/mlx5_3");  // absolute: stays inside the root
  link("sys/class/infiniband/mlx5_3", "/sys/class/infiniband/mlx5_2");
  const rd::SysfsInventory inv = rd::readSysfs(root_ + "/");
  ASSERT_EQ(inv.rdma.size(), 1u);
  const std::string notes = joined(inv.notes);
  EXPECT_NE(notes.find("mlx5_0: node_guid: unexpected value 'not-a-guid'"), std::string::npos) << notes;
  EXPECT_NE(notes.find("mlx5_0: ports/1/rate: unexpected value 'fast'"), std::string::npos) << notes;
  EXPECT_NE(notes.find("mlx5_0: device: Too many levels of symbolic links"), std::string::npos) << notes;
  EXPECT_NE(notes.find("mlx5_1: Too many levels of symbolic links"), std::string::npos) << notes;
  EXPECT_NE(notes.find("mlx5_2: Too many levels of symbolic links"), std::string::npos) << notes;
  EXPECT_NE(notes.find("mlx5_0: board_id: No such file or directory"), std::string::npos) << notes;
  EXPECT_EQ(inv.rdma[0].busId, "");
  EXPECT_EQ(inv.rdma[0].ports.at(0).rateMbps, 0);
}

TEST_F(SysfsScratch, HugeAndUnreadableFilesAreBounded) {
  write("sys/class/infiniband/mlx5_0/board_id", std::string(1 << 20, 'x'));
  write("sys/class/infiniband/mlx5_0/fw_ver", "1.2.3\n");
  ASSERT_EQ(::mkfifo((root_ + "/sys/class/infiniband/mlx5_0/sys_image_guid").c_str(), 0600), 0);
  const rd::SysfsRead huge = rd::readSysfsFile(root_ + "/sys/class/infiniband/mlx5_0/board_id");
  EXPECT_EQ(huge.error, 0);
  EXPECT_EQ(huge.text.size(), rd::kSysfsMaxRead);
  EXPECT_EQ(rd::readSysfsFile(root_ + "/sys/class/infiniband").error, EISDIR);
  const rd::SysfsInventory inv = rd::readSysfs(root_);  // the FIFO has no writer: read must not block
  ASSERT_EQ(inv.rdma.size(), 1u);
  EXPECT_EQ(inv.rdma[0].boardId.size(), rd::kSysfsMaxRead);
  EXPECT_EQ(inv.rdma[0].fwVersion, "1.2.3");
  EXPECT_EQ(inv.rdma[0].sysImageGuid, 0u);
}

TEST(SysfsTree, ResolveStaysInsideTheRoot) {
  int error = 0;
  const auto path =
      rd::resolveInRoot(sysfsFixture("gb300-1plane"), "sys/class/infiniband/mlx5_0/device/../../..", &error);
  ASSERT_TRUE(path) << error;
  EXPECT_EQ(*path, "/sys/devices/pci0000:00/0000:00:00.0");
  const auto above = rd::resolveInRoot(sysfsFixture("gb300-1plane"), "../../../../../../../../sys", &error);
  ASSERT_TRUE(above) << error;
  EXPECT_EQ(*above, "/sys");
  EXPECT_FALSE(rd::resolveInRoot(sysfsFixture("gb300-1plane"), "sys/class/nothing", &error));
  EXPECT_EQ(error, ENOENT);
}

// This build machine has no RDMA device: the live read must say so and still list the netdevs.
TEST(SysfsTree, LiveSystem) {
  const rd::SysfsInventory inv = rd::readSysfs("");
  if (!fs::exists("/sys/class/infiniband")) {
    EXPECT_TRUE(inv.rdma.empty());
    EXPECT_NE(joined(inv.notes).find("/sys/class/infiniband: not present"), std::string::npos);
  }
  for (const rd::NetDevice& dev : inv.net) EXPECT_NE(dev.name, "lo");
  EXPECT_EQ(inv.net.size(), rd::readSysfs("/").net.size());  // "" and "/" both mean the live system
}
