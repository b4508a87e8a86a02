// Writing an output file whole (output_file.h).
#include "cli/sweep/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace railtune::cli {

void writeOutputFile(const std::string& path, const std::string& text) {
  writeOutputFile(path, std::vector<std::string>{text});
}

void writeOutputFile(const std::string& path, const std::vector<std::string>& pieces) {
  const auto fail = [&](const std::string& why) { throw std::runtime_error("cannot write " + path + ": " + why); };
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail("it exists and is not a regular file");
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(std::strerror(errno));
  for (const std::string& text : pieces) {
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        close(fd);
        unlink(temporary.c_str());
        fail(std::strerror(error));
      }
      written += static_cast<size_t>(n);
    }
  }
  if (fsync(fd) != 0 && errno != EINVAL) {
    const int error = errno;
    close(fd);
    unlink(temporary.c_str());
    fail(std::strerror(error));
  }
  if (close(fd) != 0) {
    const int error = errno;
    unlink(temporary.c_str());
    fail(std::strerror(error));
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(temporary.c_str());
    fail(std::strerror(error));
  }
}

}  // namespace railtune::cli
