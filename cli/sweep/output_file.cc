// Writing an output file whole (output_file.h).
#include "cli/sweep/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace railtune::cli {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  struct stat st {};
  if (stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail("it exists and is not a regular file");
  temporary_ = path_ + ".tmp." + std::to_string(getpid());
  fd_ = open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(std::strerror(errno));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) {
    close(fd_);
    unlink(temporary_.c_str());
  }
}

void OutputFile::fail(const std::string& why) {
  if (fd_ >= 0) {
    close(fd_);
    unlink(temporary_.c_str());
    fd_ = -1;
  }
  throw std::runtime_error("cannot write " + path_ + ": " + why);
}

void OutputFile::write(std::string_view bytes) {
  if (fd_ < 0) fail("already closed");
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::strerror(n < 0 ? errno : EIO));
    written += static_cast<size_t>(n);
  }
}

void OutputFile::commit() {
  if (fd_ < 0) fail("already closed");
  if (fsync(fd_) != 0 && errno != EINVAL) fail(std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    const int error = errno;
    unlink(temporary_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(error));
  }
  if (rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    unlink(temporary_.c_str());
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(error));
  }
}

void writeOutputFile(const std::string& path, const std::string& text) {
  writeOutputFile(path, std::vector<std::string>{text});
}

void writeOutputFile(const std::string& path, const std::vector<std::string>& pieces) {
  OutputFile file(path);
  for (const std::string& text : pieces) file.write(text);
  file.commit();
}

}  // namespace railtune::cli
