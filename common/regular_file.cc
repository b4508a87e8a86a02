#include "common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace railtune {
namespace {

struct RegularFileDescriptor {
  int fd = -1;
  ~RegularFileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string notRegularReason(unsigned mode) {
  const char* name = fileTypeName(mode);
  if (std::strncmp(name, "a ", 2) != 0) return "is not a regular file";
  return std::string("is ") + name + ", not a regular file";
}

std::string capText(size_t maxBytes) {
  if (maxBytes > 0 && maxBytes % (size_t{1} << 20) == 0) return std::to_string(maxBytes >> 20) + " MiB";
  return std::to_string(maxBytes) + " bytes";
}

std::string errnoText(const char* what, int error) {
  return std::string(what) + ": " + std::strerror(error);
}

// Reads the opened regular file up to maxBytes + 1 bytes (one more, so that a file that grew past
// the cap after fstat is still noticed). Returns the reason it failed, "" when read.
std::string readOpenedFile(int fd, size_t sizeHint, size_t maxBytes, std::string& bytes) {
  bytes.assign(std::min(sizeHint, maxBytes) + 1, '\0');
  size_t used = 0;
  while (true) {
    if (used == bytes.size()) {
      if (bytes.size() > maxBytes) break;
      bytes.resize(std::min(bytes.size() * 2 + 4096, maxBytes + 1));
    }
    const ssize_t n = ::read(fd, bytes.data() + used, bytes.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errnoText("read error", errno);
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  if (used > maxBytes) return "larger than " + capText(maxBytes);
  bytes.resize(used);
  return {};
}

}  // namespace

const char* fileTypeName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      break;
  }
  return "not a regular file";
}

RegularFile readRegularFile(const std::string& path, size_t maxBytes) {
  RegularFile file;
  file.path = path;
  if (path.empty()) {
    file.reason = "no file named (empty path)";
    return file;
  }
  // Look before opening: opening some devices does something (a tape rewinds, a watchdog arms), and a
  // socket cannot be opened at all but deserves its own name in the message.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    file.reason = notRegularReason(st.st_mode);
    return file;
  }
  // O_NONBLOCK: should the path have become a FIFO since stat, open returns at once even without a
  // writer; O_NOCTTY: a terminal never becomes the job's controlling terminal.
  RegularFileDescriptor opened{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (opened.fd < 0) {
    file.reason = errnoText("cannot open", errno);
    return file;
  }
  if (::fstat(opened.fd, &st) != 0) {  // what counts is what was opened, not what stat saw
    file.reason = errnoText("cannot stat", errno);
    return file;
  }
  if (!S_ISREG(st.st_mode)) {
    file.reason = notRegularReason(st.st_mode);
    return file;
  }
  if (st.st_size > 0 && static_cast<uint64_t>(st.st_size) > maxBytes) {
    file.reason = "larger than " + capText(maxBytes);
    return file;
  }
  file.reason = readOpenedFile(opened.fd, static_cast<size_t>(std::max<off_t>(st.st_size, 0)), maxBytes, file.bytes);
  if (!file.ok()) file.bytes.clear();
  return file;
}

}  // namespace railtune
