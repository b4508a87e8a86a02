// Replacing a file whole (atomic_file.h).
#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace railtune {

AtomicFileError::AtomicFileError(Stage failed, std::string file, std::string temporaryFile, std::string why)
    : std::runtime_error("cannot write " + file + ": " + why),
      stage(failed),
      path(std::move(file)),
      temporary(std::move(temporaryFile)),
      reason(std::move(why)) {}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  temporary_ = path_ + ".tmp." + std::to_string(getpid());
  struct stat st {};
  if (stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    fail(AtomicFileError::Stage::kRefused, "it exists and is not a regular file");
  fd_ = open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(AtomicFileError::Stage::kCreate, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  discard();
}

void AtomicFile::discard() {
  if (fd_ < 0) return;
  close(fd_);
  unlink(temporary_.c_str());
  fd_ = -1;
}

void AtomicFile::fail(AtomicFileError::Stage stage, const std::string& why) {
  discard();
  throw AtomicFileError(stage, path_, temporary_, why);
}

void AtomicFile::write(std::string_view bytes) {
  if (fd_ < 0) fail(AtomicFileError::Stage::kWrite, "already closed");
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(AtomicFileError::Stage::kWrite, std::strerror(n < 0 ? errno : EIO));
    written += static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) fail(AtomicFileError::Stage::kWrite, "already closed");
  // EINVAL: a file system that cannot sync (some FUSE mounts); the rename still keeps the file whole.
  if (fsync(fd_) != 0 && errno != EINVAL) fail(AtomicFileError::Stage::kWrite, std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    const int error = errno;
    unlink(temporary_.c_str());
    throw AtomicFileError(AtomicFileError::Stage::kWrite, path_, temporary_, std::strerror(error));
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    unlink(temporary_.c_str());
    throw AtomicFileError(AtomicFileError::Stage::kRename, path_, temporary_, std::strerror(error));
  }
}

void writeFileAtomically(const std::string& path, std::string_view text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

void writeFileAtomically(const std::string& path, const std::vector<std::string>& pieces) {
  AtomicFile file(path);
  for (const std::string& text : pieces) file.write(text);
  file.commit();
}

}  // namespace railtune
