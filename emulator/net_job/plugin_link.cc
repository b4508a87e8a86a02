// The plugin side of links.h: what NCCL's net proxy does with a connection, chunk by chunk.
#include <string>

#include "emulator/net_job/links.h"

namespace railtune::emu::netjob {
namespace {

class PluginLink final : public Link {
 public:
  PluginLink(NetDriver& driver, void* comm, int myRank, int peer, bool send)
      : Link(peer, send), driver_(driver), comm_(comm), myRank_(myRank) {}
  ~PluginLink() override {
    end();
    if (isSend())
      driver_.closeSend(comm_);
    else
      driver_.closeRecv(comm_);
  }
  bool overPlugin() const override { return true; }
  void setProfilerHandle(void* phandle) override { phandle_ = phandle; }

  void begin(uint8_t* base, size_t size) override {
    end();
    if (size == 0) return;
    const ncclResult_t rc = driver_.regMr(comm_, base, size, NCCL_PTR_HOST, &mhandle_);
    if (rc != ncclSuccess) fail("regMr", rc);
  }
  void end() override {
    if (mhandle_ != nullptr) driver_.deregMr(comm_, mhandle_);
    mhandle_ = nullptr;
  }

  void* post(uint8_t* data, size_t size) override {
    void* request = nullptr;
    ncclResult_t rc;
    if (isSend()) {
      rc = driver_.isend(comm_, data, size, myRank_, mhandle_, phandle_, &request);
    } else {
      void* buffers[1] = {data};
      size_t sizes[1] = {size};
      int tags[1] = {peer()};
      void* mhandles[1] = {mhandle_};
      void* phandles[1] = {phandle_};
      rc = driver_.irecv(comm_, 1, buffers, sizes, tags, mhandles, phandles, &request);
    }
    if (rc != ncclSuccess) fail(isSend() ? "isend" : "irecv", rc);
    return request;
  }

  bool done(void* request, size_t expectedSize) override {
    int finished = 0;
    int size = -1;
    const ncclResult_t rc = driver_.test(request, &finished, &size);
    if (rc != ncclSuccess) fail("test", rc);
    if (finished && !isSend() && static_cast<size_t>(size) != expectedSize)
      throw LinkError("irecv from rank " + std::to_string(peer()) + " completed with " + std::to_string(size) +
                      " bytes, " + std::to_string(expectedSize) + " posted and sent");
    return finished != 0;
  }

 private:
  [[noreturn]] void fail(const char* call, ncclResult_t rc) {
    throw LinkError(std::string(call) + " on the plugin connection " + (isSend() ? "to" : "from") + " rank " +
                    std::to_string(peer()) + " failed (ncclResult " + std::to_string(static_cast<int>(rc)) + ")");
  }

  NetDriver& driver_;
  void* comm_;
  int myRank_;
  void* mhandle_ = nullptr;
  void* phandle_ = nullptr;
};

class StalledLink final : public Link {
 public:
  StalledLink(std::unique_ptr<Link> inner, std::chrono::steady_clock::time_point at)
      : Link(inner->peer(), inner->isSend()), inner_(std::move(inner)), at_(at) {}
  bool overPlugin() const override { return inner_->overPlugin(); }
  void begin(uint8_t* base, size_t size) override { inner_->begin(base, size); }
  void end() override { inner_->end(); }
  void* post(uint8_t* data, size_t size) override {
    return std::chrono::steady_clock::now() >= at_ ? nullptr : inner_->post(data, size);
  }
  bool done(void* request, size_t expectedSize) override { return inner_->done(request, expectedSize); }
  bool progress() override { return inner_->progress(); }
  void setProfilerHandle(void* phandle) override { inner_->setProfilerHandle(phandle); }

 private:
  std::unique_ptr<Link> inner_;
  std::chrono::steady_clock::time_point at_;
};

}  // namespace

std::unique_ptr<Link> makeStalledLink(std::unique_ptr<Link> inner, std::chrono::steady_clock::time_point at) {
  return std::make_unique<StalledLink>(std::move(inner), at);
}

std::unique_ptr<Link> makePluginLink(NetDriver& driver, void* comm, int myRank, int peer, bool send) {
  return std::make_unique<PluginLink>(driver, comm, myRank, peer, send);
}

}  // namespace railtune::emu::netjob
