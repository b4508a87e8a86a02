// The fake sysfs tree (sim_sysfs.h).
#include "emulator/verbs_sim/sim_sysfs.h"

#include <filesystem>
#include <fstream>
#include <system_error>

namespace railtune::verbs_sim {
namespace {

namespace fs = std::filesystem;

bool writeLine(const fs::path& path, const std::string& text, std::string* error) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path);
  out << text << '\n';
  if (!out) {
    if (error->empty()) *error = "cannot write " + path.string();
    return false;
  }
  return true;
}

void link(const fs::path& target, const fs::path& at, std::string* error) {
  std::error_code ec;
  fs::create_directories(at.parent_path(), ec);
  fs::remove(at, ec);
  fs::create_directory_symlink(target, at, ec);
  if (ec && error->empty()) *error = "cannot link " + at.string() + ": " + ec.message();
}

}  // namespace

std::string writeSysfsTree(const SimFabric& fabric, int host, const std::string& rootDir) {
  if (host < 0 || host >= static_cast<int>(fabric.hosts.size())) return "no host " + std::to_string(host);
  std::string error;
  const fs::path root = fs::path(rootDir) / "sys";
  for (const SimDeviceDesc& dev : fabric.hosts[static_cast<size_t>(host)].devices) {
    const fs::path pci = root / "devices" / "pci0000:00" / dev.pciAddress;
    const fs::path ibdev = root / "class" / "infiniband" / dev.name;
    std::error_code ec;
    fs::create_directories(pci, ec);
    writeLine(pci / "vendor", "0x15b3", &error);
    writeLine(pci / "device", dev.vendorPartId == 4131 ? "0x1023" : "0x1021", &error);
    link(fs::path("../../../devices/pci0000:00") / dev.pciAddress, ibdev / "device", &error);
    writeLine(ibdev / "node_guid", guidText(dev.nodeGuid), &error);
    writeLine(ibdev / "sys_image_guid", guidText(dev.sysImageGuid), &error);
    writeLine(ibdev / "node_type", "1: CA", &error);
    writeLine(ibdev / "hca_type", dev.vendorPartId == 4131 ? "MT4131" : "MT4129", &error);
    for (const SimPortDesc& port : dev.ports) {
      const fs::path p = ibdev / "ports" / std::to_string(port.number);
      writeLine(p / "state", port.up ? "4: ACTIVE" : "1: DOWN", &error);
      writeLine(p / "phys_state", port.up ? "5: LinkUp" : "3: Disabled", &error);
      writeLine(p / "rate", port.rateText, &error);
      writeLine(p / "link_layer", port.ethernet ? "Ethernet" : "InfiniBand", &error);
      char lid[16];
      std::snprintf(lid, sizeof lid, "0x%x", port.lid);
      writeLine(p / "lid", lid, &error);
      for (size_t i = 0; i < port.gids.size(); ++i) {
        writeLine(p / "gids" / std::to_string(i), gidText(port.gids[i]), &error);
        writeLine(p / "gid_attrs" / "types" / std::to_string(i), port.gids[i].roceV2 ? "RoCE v2" : "IB/RoCE v1",
                  &error);
      }
      if (port.ethernet) {
        // The RoCE netdev: NCCL and the plugin find it under device/net and read its state and speed.
        std::string ifname = "eth" + std::to_string(dev.rail);
        const fs::path net = pci / "net" / ifname;
        writeLine(net / "operstate", port.up ? "up" : "down", &error);
        writeLine(net / "speed", std::to_string(port.speed100Mbps * 100), &error);
        link(fs::path("../../..") / dev.pciAddress, net / "device", &error);
        link(fs::path("../../devices/pci0000:00") / dev.pciAddress / "net" / ifname, root / "class" / "net" / ifname,
             &error);
      }
    }
  }
  return error;
}

}  // namespace railtune::verbs_sim
