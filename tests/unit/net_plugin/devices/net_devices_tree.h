// Fake sysfs trees built on the spot, for cases the committed trees (tests/data/discover/sysfs) lack:
// a host without RDMA, RDMA ports that are down, an attribute that is a FIFO.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace railtune::testing {

class FakeSysfs {
 public:
  FakeSysfs() {
    root_ = std::filesystem::temp_directory_path() /
            ("railtune-net-devices-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "sys/class/net");
  }
  ~FakeSysfs() { std::filesystem::remove_all(root_); }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;

  std::string root() const { return root_.string(); }

  void write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  // A PCI function at sys/devices/pci0000:00/<bus>, returned relative to the root.
  std::string pciFunction(const std::string& bus) const {
    const std::string relative = "sys/devices/pci0000:00/" + bus;
    std::filesystem::create_directories(root_ / relative);
    return relative;
  }

  // sys/class/net/<name>, on a PCI function when `bus` is given, else virtual.
  void addInterface(const std::string& name, const std::string& bus, const std::string& operstate,
                    const std::string& speed) const {
    const std::string dir = bus.empty() ? "sys/devices/virtual/net/" + name : pciFunction(bus) + "/net/" + name;
    write(dir + "/operstate", operstate + "\n");
    write(dir + "/speed", speed + "\n");
    if (!bus.empty()) std::filesystem::create_directory_symlink("../../../" + bus, root_ / dir / "device");
    std::filesystem::create_directory_symlink("../../../" + dir, root_ / "sys/class/net" / name);
  }

  // sys/class/infiniband/<name> with one port, on PCI function `bus`, its netdev `netdev` (may be "").
  void addHca(const std::string& name, const std::string& bus, const std::string& state,
              const std::string& netdev) const {
    const std::string dir = pciFunction(bus) + "/infiniband/" + name;
    write(dir + "/sys_image_guid", "0002:c903:0000:0001\n");
    write(dir + "/ports/1/state", state + "\n");
    write(dir + "/ports/1/link_layer", "Ethernet\n");
    write(dir + "/ports/1/rate", "100 Gb/sec (4X EDR)\n");
    std::filesystem::create_directory_symlink("../../../" + bus, root_ / dir / "device");
    if (!netdev.empty()) addInterface(netdev, bus, "up", "100000");
    std::filesystem::create_directories(root_ / "sys/class/infiniband");
    std::filesystem::create_directory_symlink("../../../" + dir, root_ / "sys/class/infiniband" / name);
  }

 private:
  static int& counter() {
    static int value = 0;
    return value;
  }
  std::filesystem::path root_;
};

}  // namespace railtune::testing
