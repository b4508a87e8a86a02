#include "common/record_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace railtune {
namespace {

bool safeFileChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

std::string safeName(const std::string& text) {
  std::string out = text.empty() ? "unknown" : text;
  for (char& c : out) {
    if (!safeFileChar(c)) c = '_';
  }
  if (out == "." || out == "..") out = "_";
  return out;
}

constexpr int kClaimAttempts = 8;  // the start time's name, then 7 random ones

std::string randomHexDigits(size_t count) {
  unsigned char bytes[8] = {};
  if (getentropy(bytes, sizeof bytes) != 0) {  // GLIBC_2.25; not expected to fail for 8 bytes
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const uint64_t mixed = static_cast<uint64_t>(now.tv_nsec) * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(getpid());
    std::memcpy(bytes, &mixed, sizeof bytes);
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < count && i < 2 * sizeof bytes; ++i) out += kDigits[(bytes[i / 2] >> (i % 2 ? 4 : 0)) & 0xf];
  return out;
}

std::runtime_error folderError(const std::string& folder, const std::string& component, int error) {
  return std::runtime_error("cannot create folder " + folder + ": " + component + ": " + std::strerror(error));
}

// The rule of the kernel's fs.protected_symlinks, checked here because a host (or a container's
// runtime) may have it off: in a sticky, world-writable folder such as /tmp, a symlink that belongs
// to neither this user nor the folder's owner may have been planted by another user, to make the
// plugin create folders and files (as the training job's user) where that user chose.
void refuseForeignSymlink(int parentFd, const struct stat& symlinkInfo, const std::string& folder,
                          const std::string& component) {
  struct stat parent {};
  if (fstat(parentFd, &parent) != 0) throw folderError(folder, component, errno);
  const bool shared = (parent.st_mode & S_ISVTX) != 0 && (parent.st_mode & S_IWOTH) != 0;
  if (!shared || symlinkInfo.st_uid == geteuid() || symlinkInfo.st_uid == parent.st_uid) return;
  throw std::runtime_error("cannot create folder " + folder + ": " + component + " is a symlink of uid " +
                           std::to_string(symlinkInfo.st_uid) +
                           " in a world-writable sticky folder, not this user's or the folder's owner's: not followed");
}

// The descriptor of `name` in `parentFd`, made when missing. O_PATH: a folder this user may pass
// through (x) but not list (r) is entered as the kernel would. O_NOFOLLOW: a symlink is seen (and
// judged) before it is followed. Another process creating the same folder at the same time is fine.
int enterFolder(int parentFd, const std::string& name, const std::string& folder, const std::string& component) {
  for (int round = 0; round < 4; ++round) {
    const int fd = openat(parentFd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return fd;
    int error = errno;
    if (error == ENOENT) {
      if (mkdirat(parentFd, name.c_str(), 0755) == 0 || errno == EEXIST) continue;
      throw folderError(folder, component, errno);
    }
    struct stat entry {};
    if (fstatat(parentFd, name.c_str(), &entry, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(entry.st_mode)) {
      refuseForeignSymlink(parentFd, entry, folder, component);
      const int target = openat(parentFd, name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (target >= 0) return target;
      error = errno;
    }
    throw folderError(folder, component, error);
  }
  throw folderError(folder, component, EEXIST);  // made and removed again, over and over
}

// An existing file of this process's name: this process's own when nobody holds its lock and it is
// not empty (an earlier load of the plugin wrote it and closed it). -1 otherwise.
int reopenOwnFile(int folderFd, const std::string& name, int access) {
  const int fd = openat(folderFd, name.c_str(), access | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  struct stat info {};
  if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    return fd;
  }
  close(fd);  // also drops the lock, if taken
  return -1;
}

// The lock that tells other writers a new file is taken. Another process's reopenOwnFile() may hold it
// for an instant (it then finds the file empty and leaves): a few tries, never a wait without end.
void lockNewFile(int fd) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0 || (errno != EWOULDBLOCK && errno != EINTR)) return;
    usleep(1000);
  }
}

}  // namespace

std::string recordFileStem(const Identity& identity, std::string_view tag) {
  std::string stem = safeName(identity.job) + "-" + safeName(identity.host) + "-" + std::to_string(identity.pid);
  if (!tag.empty()) stem += "." + safeName(std::string(tag));
  return stem;
}

std::string processStartTag() {
  char text[1024] = {};
  const int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  const ssize_t got = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
  if (fd >= 0) close(fd);
  // "pid (comm) state ppid ...": the name may hold spaces and ')', so fields count from the last ')'.
  const char* field = got > 0 ? std::strrchr(text, ')') : nullptr;
  for (int skipped = 0; field != nullptr && skipped < 20; ++skipped) field = std::strchr(field + 1, ' ');
  unsigned long long ticks = 0;
  if (field == nullptr || std::sscanf(field + 1, "%llu", &ticks) != 1) return randomHexDigits(8);
  char hex[24];
  std::snprintf(hex, sizeof hex, "%llx", ticks);
  return hex;
}

int openRecordFolder(const std::string& folder) {
  if (folder.empty()) throw std::runtime_error("cannot create folder \"\": an empty name");
  int fd = open(folder[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw folderError(folder, folder[0] == '/' ? "/" : ".", errno);
  try {
    // One component at a time from the root (or the working folder): each is judged before it is
    // entered, and the next is made inside the very folder that was judged.
    for (size_t begin = 0; begin < folder.size();) {
      const size_t end = std::min(folder.find('/', begin), folder.size());
      const std::string name = folder.substr(begin, end - begin);
      begin = end + 1;
      if (name.empty() || name == ".") continue;
      const int next = enterFolder(fd, name, folder, folder.substr(0, end));
      close(fd);
      fd = next;
    }
  } catch (...) {
    close(fd);
    throw;
  }
  return fd;
}

ClaimedFile claimRecordFile(int folderFd, const std::string& folder, const Identity& identity,
                            const std::string& suffix, bool readable) {
  const std::string start = processStartTag();
  const int access = readable ? O_RDWR : O_WRONLY;
  for (int attempt = 0; attempt < kClaimAttempts; ++attempt) {
    ClaimedFile file;
    file.tag = attempt == 0 ? start : start + "_" + randomHexDigits(4);
    const std::string name = recordFileStem(identity, file.tag) + suffix;
    // O_EXCL: a name another process (or another writer in this one) took is never written twice.
    file.fd = openat(folderFd, name.c_str(), access | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (file.fd >= 0) {
      lockNewFile(file.fd);
      return file;
    }
    if (errno != EEXIST) throw std::runtime_error("cannot open " + folder + "/" + name + ": " + std::strerror(errno));
    if (attempt > 0) continue;
    file.fd = reopenOwnFile(folderFd, name, access);
    file.continued = file.fd >= 0;
    if (file.continued) return file;
  }
  throw std::runtime_error("cannot open " + folder + "/" + recordFileStem(identity, start) + suffix + ": it and " +
                           std::to_string(kClaimAttempts - 1) + " other names are taken");
}

int openForAppend(const std::string& path, bool readable) {
  const int fd = open(path.c_str(), (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  return fd;
}

int openForAppendAt(int folderFd, const std::string& folder, const std::string& name, bool readable) {
  const int flags = (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW;
  const int fd = openat(folderFd, name.c_str(), flags, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + folder + "/" + name + ": " + std::strerror(errno));
  return fd;
}

bool writeAll(int fd, std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace railtune
