// The NVLink side of links.h. NVLink needs no net plugin; a Unix stream socket per directed edge
// stands for it, moved by non-blocking reads and writes from the rank's progress loop.
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "emulator/net_job/links.h"

namespace railtune::emu::netjob {
namespace {

class NvlinkLink final : public Link {
 public:
  NvlinkLink(int fd, int peer, bool send) : Link(peer, send), fd_(fd) {}
  ~NvlinkLink() override { ::close(fd_); }
  bool overPlugin() const override { return false; }
  void begin(uint8_t*, size_t) override {}
  void end() override {}

  void* post(uint8_t* data, size_t size) override {
    ops_.push_back(Op{data, size, 0, ++nextId_});
    return reinterpret_cast<void*>(ops_.back().id);
  }

  bool done(void* request, size_t) override {
    progress();
    const uintptr_t id = reinterpret_cast<uintptr_t>(request);
    return ops_.empty() || ops_.front().id > id;
  }

  bool progress() override {
    bool moved = false;
    while (!ops_.empty()) {
      Op& op = ops_.front();
      if (op.moved == op.size) {
        ops_.pop_front();
        continue;
      }
      const ssize_t n = isSend() ? ::send(fd_, op.data + op.moved, op.size - op.moved, MSG_NOSIGNAL | MSG_DONTWAIT)
                                 : ::recv(fd_, op.data + op.moved, op.size - op.moved, MSG_DONTWAIT);
      if (n > 0) {
        op.moved += static_cast<size_t>(n);
        moved = true;
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
      throw LinkError(std::string("NVLink stand-in ") + (isSend() ? "to" : "from") + " rank " + std::to_string(peer()) +
                      ": " + (n == 0 ? "the peer closed it" : std::strerror(errno)));
    }
    return moved;
  }

 private:
  struct Op {
    uint8_t* data;
    size_t size;
    size_t moved;
    uintptr_t id;
  };
  int fd_;
  std::deque<Op> ops_;
  uintptr_t nextId_ = 0;
};

}  // namespace

std::unique_ptr<Link> makeNvlinkLink(int fd, int peer, bool send) {
  return std::make_unique<NvlinkLink>(fd, peer, send);
}

}  // namespace railtune::emu::netjob
