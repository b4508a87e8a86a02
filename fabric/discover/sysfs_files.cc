// Bounded access to a sysfs tree: reading one attribute with a size cap, resolving a path's symlinks
// inside a root (a fixture directory or "/"), and locating a device path on the PCI hierarchy.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <deque>

#include "fabric/discover/sysfs_source.h"
#include "fabric/model.h"

namespace railtune::fabric::discover {
namespace {

std::deque<std::string> splitPath(const std::string& path) {
  std::deque<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

std::string joinPath(const std::vector<std::string>& parts) {
  std::string path;
  for (const std::string& part : parts) path += "/" + part;
  return path.empty() ? "/" : path;
}

// The link's target, or nullopt with *error set; targets longer than PATH_MAX-ish are refused.
std::optional<std::string> readLink(const std::string& path, int* error) {
  char buffer[4096];
  const ssize_t n = ::readlink(path.c_str(), buffer, sizeof(buffer));
  if (n < 0) {
    *error = errno;
    return std::nullopt;
  }
  if (static_cast<size_t>(n) == sizeof(buffer)) {
    *error = ENAMETOOLONG;
    return std::nullopt;
  }
  return std::string(buffer, static_cast<size_t>(n));
}

bool isHostBridge(const std::string& part) {
  // "pci0000:00", "pci0008:00": the root of one PCI domain in /sys/devices.
  return part.size() > 3 && part.compare(0, 3, "pci") == 0 && normalizeBusId(part.substr(3) + ":00.0").has_value();
}

}  // namespace

SysfsRead readSysfsFile(const std::string& path) {
  SysfsRead result;
  // O_NONBLOCK: a FIFO planted in a fixture must not block the reader.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    result.error = errno;
    return result;
  }
  char buffer[kSysfsMaxRead];
  size_t used = 0;
  while (used < sizeof(buffer)) {
    const ssize_t n = ::read(fd, buffer + used, sizeof(buffer) - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result.error = errno;
      break;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  if (result.error != 0) return result;
  result.text.assign(buffer, used);
  while (!result.text.empty() && std::isspace(static_cast<unsigned char>(result.text.back()))) result.text.pop_back();
  return result;
}

std::optional<std::string> resolveInRoot(const std::string& root, const std::string& relative, int* error) {
  const std::string base = root == "/" ? "" : root;
  std::vector<std::string> done;
  std::deque<std::string> todo = splitPath(relative);
  int links = 0;
  while (!todo.empty()) {
    const std::string part = todo.front();
    todo.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    const std::string candidate = base + joinPath(done) + (done.empty() ? "" : "/") + part;
    struct stat info {};
    if (::lstat(candidate.c_str(), &info) != 0) {
      *error = errno;
      return std::nullopt;
    }
    if (!S_ISLNK(info.st_mode)) {
      done.push_back(part);
      continue;
    }
    if (++links > kSysfsMaxLinks) {
      *error = ELOOP;
      return std::nullopt;
    }
    const auto target = readLink(candidate, error);
    if (!target) return std::nullopt;
    if (!target->empty() && target->front() == '/') done.clear();
    const std::deque<std::string> expansion = splitPath(*target);
    todo.insert(todo.begin(), expansion.begin(), expansion.end());
  }
  return joinPath(done);
}

PciLocation pciLocationOf(const std::string& devicePath) {
  PciLocation location;
  const std::deque<std::string> parts = splitPath(devicePath);
  std::vector<std::string> chain;  // host bridge, then every PCI function below it
  for (const std::string& part : parts) {
    if (chain.empty()) {
      if (isHostBridge(part)) chain.push_back(part);
      continue;
    }
    const auto busId = normalizeBusId(part);
    // A PCI function's name is its full bus id; anything else (virtio2, net, infiniband) is not PCI.
    if (busId && part.size() >= 12) chain.push_back(*busId);
  }
  if (chain.size() < 2) return location;
  location.busId = chain.back();
  chain.pop_back();
  location.upstream = std::move(chain);
  return location;
}

}  // namespace railtune::fabric::discover
