// readSysfs: walks /sys/class/infiniband and /sys/class/net below a root and fills a SysfsInventory.
// Whatever cannot be read becomes one note ("mlx5_2: ports/1/rate: Permission denied") and the datum
// stays unknown; only the absence of the whole tree is reported differently (no RDMA devices).
#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "fabric/discover/sysfs_source.h"

namespace railtune::fabric::discover {
namespace {

constexpr size_t kMaxEntries = 4096;  // per directory: more is not a device class we understand

// Name order with digit runs compared as numbers, so that mlx5_2 comes before mlx5_10.
bool naturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      const size_t ei = a.find_first_not_of("0123456789", i), ej = b.find_first_not_of("0123456789", j);
      std::string_view da(a), db(b);
      da = da.substr(i, ei == std::string::npos ? std::string::npos : ei - i);
      db = db.substr(j, ej == std::string::npos ? std::string::npos : ej - j);
      while (da.size() > 1 && da.front() == '0') da.remove_prefix(1);
      while (db.size() > 1 && db.front() == '0') db.remove_prefix(1);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i = ei == std::string::npos ? a.size() : ei;
      j = ej == std::string::npos ? b.size() : ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i, ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;
}

struct Listing {
  int error = 0;
  std::vector<std::string> names;  // sorted, without "." and ".."
};

Listing listDir(const std::string& path) {
  Listing listing;
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) {
    listing.error = errno;
    return listing;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (listing.names.size() == kMaxEntries) break;
    listing.names.push_back(name);
  }
  ::closedir(dir);
  std::sort(listing.names.begin(), listing.names.end(), naturalLess);
  return listing;
}

// Numeric names ("1", "12") in numeric order; others are ignored.
std::vector<int> numericNames(const std::vector<std::string>& names) {
  std::vector<int> numbers;
  for (const std::string& name : names) {
    const auto n = parseSysfsInt(name);
    if (n && *n >= 0 && name.find_first_not_of("0123456789") == std::string::npos) numbers.push_back(*n);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

// One device's directory (resolved, relative to root); failures become notes under the device's name.
class DeviceDir {
 public:
  DeviceDir(std::string base, std::string dir, std::string name, std::vector<std::string>* notes)
      : base_(std::move(base)), dir_(std::move(dir)), name_(std::move(name)), notes_(notes) {}

  std::string path(const std::string& file) const { return base_ + dir_ + "/" + file; }
  const std::string& dir() const { return dir_; }

  void note(const std::string& file, int error) const {
    notes_->push_back(name_ + ": " + file + ": " + std::strerror(error));
  }
  void noteBad(const std::string& file, const std::string& text) const {
    notes_->push_back(name_ + ": " + file + ": unexpected value '" + text.substr(0, 64) + "'");
  }

  // The attribute's text; a failure is noted unless it is one of `quietErrors`.
  std::optional<std::string> text(const std::string& file, std::initializer_list<int> quietErrors = {}) const {
    SysfsRead read = readSysfsFile(path(file));
    if (read.error == 0) return std::move(read.text);
    if (std::find(quietErrors.begin(), quietErrors.end(), read.error) == quietErrors.end()) note(file, read.error);
    return std::nullopt;
  }

  template <typename Parser>
  auto parsed(const std::string& file, Parser parser) const -> decltype(parser(std::string())) {
    const auto raw = text(file);
    if (!raw) return std::nullopt;
    auto value = parser(*raw);
    if (!value) noteBad(file, *raw);
    return value;
  }

  // The PCI location of the symlink `file` (usually "device"); empty when it does not exist.
  PciLocation pciLink(const std::string& root, const std::string& file) const {
    int error = 0;
    const auto target = resolveInRoot(root, dir_ + "/" + file, &error);
    if (!target) {
      if (error != ENOENT) note(file, error);
      return {};
    }
    return pciLocationOf(*target);
  }

 private:
  std::string base_;
  std::string dir_;
  std::string name_;
  std::vector<std::string>* notes_;
};

std::vector<GidEntry> readGids(const DeviceDir& dev, const std::string& port) {
  std::vector<GidEntry> gids;
  const Listing listing = listDir(dev.path(port + "/gids"));
  if (listing.error != 0) {
    if (listing.error != ENOENT) dev.note(port + "/gids", listing.error);
    return gids;
  }
  for (int index : numericNames(listing.names)) {
    const std::string i = std::to_string(index);
    const auto gid = dev.parsed(port + "/gids/" + i, parseGid);
    if (!gid || isZeroGid(*gid)) continue;
    GidEntry entry;
    entry.index = index;
    entry.gid = formatGid(*gid);
    // A container may hide the type (the read fails with EINVAL) and unset entries have no netdev.
    entry.type = dev.text(port + "/gid_attrs/types/" + i, {EINVAL, ENOENT}).value_or("");
    entry.netdev = dev.text(port + "/gid_attrs/ndevs/" + i, {EINVAL, ENOENT}).value_or("");
    gids.push_back(std::move(entry));
  }
  return gids;
}

RdmaPort readPort(const DeviceDir& dev, int number) {
  RdmaPort port;
  port.port = number;
  const std::string p = "ports/" + std::to_string(number);
  port.state = dev.parsed(p + "/state", parsePortState).value_or("");
  port.linkLayer = dev.text(p + "/link_layer").value_or("");
  port.rateText = dev.text(p + "/rate").value_or("");
  if (!port.rateText.empty()) {
    const auto rate = parseRateMbps(port.rateText);
    if (rate) port.rateMbps = *rate;
    if (!rate) dev.noteBad(p + "/rate", port.rateText);
  }
  port.gids = readGids(dev, p);
  return port;
}

void readPciSide(const std::string& root, const DeviceDir& dev, RdmaDevice* out) {
  const PciLocation pci = dev.pciLink(root, "device");
  out->busId = pci.busId;
  out->upstream = pci.upstream;
  if (pci.busId.empty()) return;  // soft RoCE and other non-PCI devices have nothing more to read
  out->numa = dev.parsed("device/numa_node", parseNumaNode).value_or(-1);
  out->vendorId = dev.parsed("device/vendor", parseHexId).value_or(0);
  out->deviceId = dev.parsed("device/device", parseHexId).value_or(0);
  const Listing net = listDir(dev.path("device/net"));
  if (net.error != 0 && net.error != ENOENT) dev.note("device/net", net.error);
  out->netdevs = net.names;
}

RdmaDevice readRdmaDevice(const std::string& root, const DeviceDir& dev, const std::string& name) {
  RdmaDevice device;
  device.name = name;
  device.nodeGuid = dev.parsed("node_guid", parseGuid).value_or(0);
  device.sysImageGuid = dev.parsed("sys_image_guid", parseGuid).value_or(0);
  device.boardId = dev.text("board_id").value_or("");
  device.fwVersion = dev.text("fw_ver").value_or("");
  readPciSide(root, dev, &device);
  const Listing ports = listDir(dev.path("ports"));
  if (ports.error != 0) dev.note("ports", ports.error);
  for (int number : numericNames(ports.names)) device.ports.push_back(readPort(dev, number));
  return device;
}

NetDevice readNetDevice(const std::string& root, const DeviceDir& dev, const std::string& name) {
  NetDevice net;
  net.name = name;
  net.busId = dev.pciLink(root, "device").busId;
  // The kernel refuses to report the speed of a down link with EINVAL; that is "unknown", not a failure.
  SysfsRead speed = readSysfsFile(dev.path("speed"));
  if (speed.error != 0 && speed.error != EINVAL) dev.note("speed", speed.error);
  net.speedMbps = netSpeedMbps(speed);
  net.operstate = dev.text("operstate").value_or("");
  net.address = dev.text("address").value_or("");
  net.type = dev.parsed("type", parseSysfsInt).value_or(0);
  net.mtu = dev.parsed("mtu", parseSysfsInt).value_or(0);
  return net;
}

// Calls `read` for each entry of sys/class/<cls> resolved inside root; returns false when the class
// directory itself is missing.
template <typename Read>
bool forEachClassEntry(const std::string& root, const std::string& base, const std::string& cls,
                       std::vector<std::string>* notes, Read read) {
  const std::string classDir = "/sys/class/" + cls;
  const Listing listing = listDir(base + classDir);
  if (listing.error == ENOENT) return false;
  if (listing.error != 0) notes->push_back(classDir + ": " + std::strerror(listing.error));
  for (const std::string& name : listing.names) {
    int error = 0;
    const auto dir = resolveInRoot(root, classDir + "/" + name, &error);
    if (!dir) {
      notes->push_back(name + ": " + std::strerror(error));
      continue;
    }
    read(name, DeviceDir(base, *dir, name, notes));
  }
  return true;
}

}  // namespace

SysfsInventory readSysfs(const std::string& root) {
  SysfsInventory inventory;
  std::string base = root;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  if (base == "/") base.clear();
  const std::string resolveRoot = base.empty() ? "/" : base;

  const bool haveRdma = forEachClassEntry(resolveRoot, base, "infiniband", &inventory.notes,
                                          [&](const std::string& name, const DeviceDir& dev) {
                                            inventory.rdma.push_back(readRdmaDevice(resolveRoot, dev, name));
                                          });
  if (!haveRdma) inventory.notes.push_back("/sys/class/infiniband: not present (no RDMA devices on this host)");

  const bool haveNet =
      forEachClassEntry(resolveRoot, base, "net", &inventory.notes, [&](const std::string& name, const DeviceDir& dev) {
        if (name != "lo") inventory.net.push_back(readNetDevice(resolveRoot, dev, name));
      });
  if (!haveNet) inventory.notes.push_back("/sys/class/net: not present");
  return inventory;
}

}  // namespace railtune::fabric::discover
