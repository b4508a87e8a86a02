#include "emulator/net_job/profile_steps.h"

#include <stdexcept>

namespace railtune::emu::netjob {

StepBoard::StepBoard(size_t flows, int stepsPerFlow, std::chrono::steady_clock::time_point deadline)
    : flows_(flows), stepsPerFlow_(stepsPerFlow), deadline_(deadline) {}

void StepBoard::posted(size_t flow, int step, void* phandle) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<void*>& phandles = flows_.at(flow).phandles;
  if (static_cast<int>(phandles.size()) != step) throw std::logic_error("steps must be posted in order");
  phandles.push_back(phandle);
  changed_.notify_all();
}

// The collective may end without using every step of a flow (a part was empty): then the sequence
// completes the rest at once, as NCCL's proxy would find nothing left to wait for. When it failed the
// job is aborted, and NCCL's abort stops none of the proxy's events.
bool StepBoard::waitCompleted(size_t flow, int step) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_ || flows_.at(flow).completed > step; });
  return flows_.at(flow).completed > step || !failed_;
}

// Past its deadline the collective goes on without a phandle rather than wait: the job's own
// deadline then reports what is stuck.
void* StepBoard::waitPosted(size_t flow, int step) {
  if (step >= stepsPerFlow_) return nullptr;
  std::unique_lock<std::mutex> lock(mutex_);
  const std::vector<void*>& phandles = flows_.at(flow).phandles;
  const auto ready = [&] { return static_cast<int>(phandles.size()) > step; };
  if (!changed_.wait_until(lock, deadline_, ready)) return nullptr;
  return phandles[static_cast<size_t>(step)];
}

void StepBoard::transferDone(size_t flow) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++flows_.at(flow).completed;
  changed_.notify_all();
}

// The kernel's channels end with the collective (on NVLink-only ranks there is no step to wait for).
bool StepBoard::waitFinished() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_; });
  return !failed_;
}

void StepBoard::collectiveFinished(bool failed) {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  failed_ = failed;
  changed_.notify_all();
}

size_t BoardTransfers::indexOf(const ProxyFlow& flow) const {
  const size_t index = static_cast<size_t>(&flow - flows_.data());
  if (index >= flows_.size()) throw std::logic_error("a flow the profiled operation does not have");
  return index;
}

void BoardTransfers::post(const ProxyFlow& flow, int step, size_t /*bytes: the link's own transfer size*/,
                          void* phandle) {
  board_.posted(indexOf(flow), step, phandle);
}

bool BoardTransfers::complete(const ProxyFlow& flow, int step) {
  return board_.waitCompleted(indexOf(flow), step);
}

namespace {

class SteppedLink final : public Link {
 public:
  SteppedLink(Link& inner, StepBoard& board, size_t flow)
      : Link(inner.peer(), inner.isSend()), inner_(inner), board_(board), flow_(flow) {}
  ~SteppedLink() override { inner_.setProfilerHandle(nullptr); }
  bool overPlugin() const override { return inner_.overPlugin(); }

  void begin(uint8_t* base, size_t size) override {
    inner_.setProfilerHandle(board_.waitPosted(flow_, step_));
    inTransfer_ = true;
    inner_.begin(base, size);
  }
  void end() override {
    inner_.end();
    if (!inTransfer_) return;
    inTransfer_ = false;
    inner_.setProfilerHandle(nullptr);
    ++step_;
    board_.transferDone(flow_);
  }
  void* post(uint8_t* data, size_t size) override { return inner_.post(data, size); }
  bool done(void* request, size_t expectedSize) override { return inner_.done(request, expectedSize); }
  bool progress() override { return inner_.progress(); }

 private:
  Link& inner_;
  StepBoard& board_;
  size_t flow_;
  int step_ = 0;
  bool inTransfer_ = false;
};

}  // namespace

std::unique_ptr<Link> makeSteppedLink(Link& inner, StepBoard& board, size_t flow) {
  return std::make_unique<SteppedLink>(inner, board, flow);
}

}  // namespace railtune::emu::netjob
