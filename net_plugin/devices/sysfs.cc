// Reading the RDMA and network classes of sysfs (see sysfs.h).
#include "net_plugin/devices/sysfs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace railtune::net {
namespace {

constexpr size_t kMaxAttributeBytes = 4096;

std::string trimRight(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

std::vector<std::string> listDirectory(const std::string& path) {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(path, error), end; !error && it != end; it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string realPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

int parseLeadingInt(std::string_view text) {
  int64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && value < INT_MAX; ++i) {
    value = value * 10 + (text[i] - '0');
  }
  return i == 0 ? -1 : static_cast<int>(std::min<int64_t>(value, INT_MAX));
}

RdmaPort readRdmaPort(const std::string& portsDir, const std::string& number) {
  RdmaPort port;
  port.number = parseLeadingInt(number);
  port.state = readSysfsLine(portsDir + "/" + number + "/state").value_or("");
  port.active = parsePortActive(port.state);
  port.linkLayer = readSysfsLine(portsDir + "/" + number + "/link_layer").value_or("");
  port.speedMbps = parseRateMbps(readSysfsLine(portsDir + "/" + number + "/rate").value_or(""));
  return port;
}

RdmaDevice readRdmaDevice(const std::string& classDir, const std::string& name) {
  RdmaDevice device;
  device.name = name;
  const std::string dir = classDir + "/" + name;
  device.pciPath = realPath(dir + "/device");
  // NCCL folds the functions of one PCI device (the planes of a ConnectX-8) into one path.
  if (!device.pciPath.empty()) device.pciPath.back() = '0';
  device.guid = parseGuid(readSysfsLine(dir + "/sys_image_guid").value_or("")).value_or(0);
  device.netdevs = listDirectory(dir + "/device/net");
  for (const std::string& number : listDirectory(dir + "/ports")) {
    RdmaPort port = readRdmaPort(dir + "/ports", number);
    if (port.number > 0) device.ports.push_back(std::move(port));
  }
  std::sort(device.ports.begin(), device.ports.end(),
            [](const RdmaPort& a, const RdmaPort& b) { return a.number < b.number; });
  return device;
}

}  // namespace

std::optional<std::string> readSysfsLine(const std::string& path) {
  // O_NONBLOCK and the regular-file check: a FIFO or device node planted in a tree must not hang init.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::string text(kMaxAttributeBytes, '\0');
  ssize_t n = -1;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) n = ::read(fd, text.data(), text.size());
  ::close(fd);
  if (n < 0) return std::nullopt;
  text.resize(static_cast<size_t>(n));
  const size_t newline = text.find('\n');
  if (newline != std::string::npos) text.resize(newline);
  return trimRight(std::move(text));
}

bool parsePortActive(std::string_view state) {
  // The kernel writes "<number>: <NAME>"; 4 is IB_PORT_ACTIVE (ACTIVE_DEFER, 5, is not).
  const size_t colon = state.find(':');
  return colon != std::string_view::npos && parseLeadingInt(state.substr(0, colon)) == 4;
}

int parseRateMbps(std::string_view rate) {
  int64_t whole = 0, fraction = 0, scale = 1;
  size_t i = 0;
  for (; i < rate.size() && std::isdigit(static_cast<unsigned char>(rate[i])) && whole < INT_MAX; ++i) {
    whole = whole * 10 + (rate[i] - '0');
  }
  if (i == 0) return 0;
  if (i < rate.size() && rate[i] == '.') {
    for (++i; i < rate.size() && std::isdigit(static_cast<unsigned char>(rate[i])) && scale < 1000; ++i) {
      fraction = fraction * 10 + (rate[i] - '0'), scale *= 10;
    }
  }
  const int64_t mbps = whole * 1000 + fraction * 1000 / scale;
  return rate.substr(i).find("Gb/sec") == std::string_view::npos ? 0
                                                                 : static_cast<int>(std::min<int64_t>(mbps, INT_MAX));
}

std::optional<uint64_t> parseGuid(std::string_view text) {
  uint64_t value = 0;
  int digits = 0;
  for (const char c : text) {
    if (c == ':') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c)) || ++digits > 16) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(c))
                                                   ? c - '0'
                                                   : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  if (digits == 0) return std::nullopt;
  return value;
}

std::vector<RdmaDevice> readRdmaDevices(const std::string& root) {
  const std::string classDir = underRoot(root, "/sys/class/infiniband");
  std::vector<RdmaDevice> devices;
  for (const std::string& name : listDirectory(classDir)) devices.push_back(readRdmaDevice(classDir, name));
  return devices;
}

NetInterface readNetInterface(const std::string& root, const std::string& name) {
  const std::string dir = underRoot(root, "/sys/class/net/") + name;
  NetInterface netIf;
  netIf.name = name;
  netIf.pciPath = realPath(dir + "/device");
  netIf.operstate = readSysfsLine(dir + "/operstate").value_or("");
  const std::string speed = readSysfsLine(dir + "/speed").value_or("");
  netIf.speedMbps = std::max(0, parseLeadingInt(speed));
  return netIf;
}

std::vector<NetInterface> readNetInterfaces(const std::string& root) {
  std::vector<NetInterface> interfaces;
  for (const std::string& name : listDirectory(underRoot(root, "/sys/class/net"))) {
    interfaces.push_back(readNetInterface(root, name));
  }
  return interfaces;
}

std::string underRoot(const std::string& root, std::string_view path) {
  std::string base = root;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + std::string(path);
}

}  // namespace railtune::net
