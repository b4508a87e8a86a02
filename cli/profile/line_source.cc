// Block reading and folder listing for the profile readers (line_source.h).
#include "cli/profile/line_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace railtune::cli::profile {
namespace {

constexpr size_t kBlockBytes = 8u << 20;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Hands every complete line in buffer[0, filled) to onLine; returns where the unfinished tail starts,
// or npos when onLine asked to stop.
size_t completeLines(const char* buffer, size_t filled, int* lineNumber,
                     const std::function<bool(std::string_view, int)>& onLine) {
  size_t start = 0;
  while (start < filled) {
    const void* found = std::memchr(buffer + start, '\n', filled - start);
    if (found == nullptr) break;
    const size_t end = static_cast<size_t>(static_cast<const char*>(found) - buffer);
    if (!onLine(std::string_view(buffer + start, end - start), ++*lineNumber)) return std::string::npos;
    start = end + 1;
  }
  return start;
}

}  // namespace

std::string forEachLine(const std::string& path, size_t padding,
                        const std::function<bool(std::string_view, int)>& onLine) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return path + ": cannot open: " + std::strerror(errno);
  // One buffer per reading thread, kept between files: zeroing 8 MiB per file would cost more than
  // parsing a small one.
  thread_local std::vector<char> buffer;
  if (buffer.size() < kBlockBytes + padding) buffer.resize(kBlockBytes + padding);
  size_t capacity = buffer.size() - padding, filled = 0;
  int lineNumber = 0;
  for (;;) {
    if (filled == capacity) {  // one line longer than the buffer: make room
      capacity *= 2;
      buffer.resize(capacity + padding);
    }
    std::fill_n(buffer.begin() + static_cast<std::ptrdiff_t>(capacity), padding, '\0');
    const ssize_t got = ::read(fd.get(), buffer.data() + filled, capacity - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return path + ": cannot read: " + std::strerror(errno);
    if (got == 0) break;
    filled += static_cast<size_t>(got);
    const size_t tail = completeLines(buffer.data(), filled, &lineNumber, onLine);
    if (tail == std::string::npos) return "";
    std::memmove(buffer.data(), buffer.data() + tail, filled - tail);
    filled -= tail;
  }
  if (filled > 0) {  // a last line without its newline (a truncated file, often)
    std::fill_n(buffer.begin() + static_cast<std::ptrdiff_t>(filled), padding, '\0');
    onLine(std::string_view(buffer.data(), filled), ++lineNumber);
  }
  return "";
}

std::vector<std::string> listJsonlFiles(const std::vector<std::string>& folders) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& folder : folders) {
    std::error_code error;
    if (!fs::is_directory(folder, error)) throw std::runtime_error(folder + ": not a folder");
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, error), end;
    for (; !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      std::error_code sizeError;  // an empty log (a rank without network flows) holds nothing to read
      if (name.size() > 6 && name.ends_with(".jsonl") && it->is_regular_file(error) && it->file_size(sizeError) > 0)
        files.push_back(it->path().string());
    }
    if (error) throw std::runtime_error(folder + ": cannot list: " + error.message());
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace railtune::cli::profile
