// Streaming line reader (line_reader.h).
#include "analysis/ingest/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace railtune::analysis::ingest {
namespace {

constexpr size_t kBlockBytes = 8u << 20;

class LogFd {
 public:
  explicit LogFd(int fd) : fd_(fd) {}
  ~LogFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  LogFd(const LogFd&) = delete;
  LogFd& operator=(const LogFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens a regular file for reading. O_NONBLOCK: a FIFO (or a device) swapped in after the folder was
// listed must not block the open; it is then refused by its type.
int openRegular(const std::string& path, ReadOutcome* outcome) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    outcome->reason = std::string("cannot open: ") + std::strerror(errno);
    outcome->error = path + ": " + outcome->reason;
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    outcome->reason = "not a regular file; skipped";
    outcome->error = path + ": " + outcome->reason;
    ::close(fd);
    return -1;
  }
  return fd;
}

// One file's pass over its blocks: complete lines go to the handlers, an over-long line is skipped as
// it streams by.
class LineStream {
 public:
  LineStream(std::vector<char>& buffer, size_t padding, const LineHandlers& handlers, size_t maxLine)
      : buffer_(buffer), padding_(padding), handlers_(handlers), maxLine_(maxLine) {}

  // Bytes [filled, filled + got) were just read. Returns false when the handler asked to stop.
  bool take(size_t got) {
    filled_ += got;
    size_t start = 0;
    if (skipping_) {
      const void* found = std::memchr(buffer_.data(), '\n', filled_);
      if (found == nullptr) {
        skipped_ += filled_;
        filled_ = 0;
        return true;
      }
      const size_t end = static_cast<size_t>(static_cast<const char*>(found) - buffer_.data());
      handlers_.tooLong(skippedLine_, skipped_ + end);
      skipping_ = false;
      start = end + 1;
    }
    for (;;) {
      const void* found = std::memchr(buffer_.data() + start, '\n', filled_ - start);
      if (found == nullptr) break;
      const size_t end = static_cast<size_t>(static_cast<const char*>(found) - buffer_.data());
      if (!deliver(start, end - start)) return false;
      start = end + 1;
    }
    const size_t tail = filled_ - start;
    if (tail > maxLine_) {  // the line already exceeds the cap: forget it as it goes by
      skipping_ = true;
      skippedLine_ = ++number_;
      skipped_ = tail;
      filled_ = 0;
      return true;
    }
    std::memmove(buffer_.data(), buffer_.data() + start, tail);
    filled_ = tail;
    return true;
  }

  void finish() {
    if (skipping_) {
      handlers_.tooLong(skippedLine_, skipped_);
    } else if (filled_ > 0) {  // a last line without its newline (a truncated file, often)
      std::fill_n(buffer_.begin() + static_cast<std::ptrdiff_t>(filled_), padding_, '\0');
      deliver(0, filled_);
    }
  }

  size_t filled() const { return filled_; }

 private:
  bool deliver(size_t start, size_t size) {
    ++number_;
    if (size > maxLine_) {
      handlers_.tooLong(number_, size);
      return true;
    }
    return handlers_.line(std::string_view(buffer_.data() + start, size), number_, buffer_.size() - start);
  }

  std::vector<char>& buffer_;
  size_t padding_;
  const LineHandlers& handlers_;
  size_t maxLine_;
  size_t filled_ = 0, skipped_ = 0;
  bool skipping_ = false;
  int number_ = 0, skippedLine_ = 0;
};

}  // namespace

std::string tooLongMessage(size_t bytes, size_t maxLineBytes) {
  const std::string cap = maxLineBytes % (1u << 20) == 0 ? std::to_string(maxLineBytes >> 20) + " MiB"
                                                         : std::to_string(maxLineBytes) + " bytes";
  return "line longer than " + cap + " (" + std::to_string(bytes) + " bytes); skipped";
}

ReadOutcome forEachLine(const std::string& path, size_t padding, const LineHandlers& handlers, size_t maxLineBytes) {
  ReadOutcome outcome;
  LogFd fd(openRegular(path, &outcome));
  if (fd.get() < 0) return outcome;
  outcome.opened = true;
  // One buffer per reading thread, kept between files: zeroing 8 MiB per file would cost more than
  // parsing a small one. A line up to the cap always fits beside a block's worth of room to read.
  const size_t capacity = std::max(kBlockBytes, 2 * maxLineBytes + 2);
  thread_local std::vector<char> buffer;
  if (buffer.size() < capacity + padding) buffer.resize(capacity + padding);
  LineStream stream(buffer, padding, handlers, maxLineBytes);
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer.data() + stream.filled(), capacity - stream.filled());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      outcome.reason = std::string("cannot read: ") + std::strerror(errno);
      outcome.error = path + ": " + outcome.reason;
      return outcome;
    }
    if (got == 0) break;
    if (!stream.take(static_cast<size_t>(got))) return outcome;
  }
  stream.finish();
  return outcome;
}

}  // namespace railtune::analysis::ingest
