#include "common/record_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace

std::string recordFileStem(const Identity& identity) {
  return safeName(identity.job) + "-" + safeName(identity.host) + "-" + std::to_string(identity.pid);
}

int openForAppend(const std::string& path, bool readable) {
  const int fd = open(path.c_str(), (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
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
