#include "emulator/net_job/transfer.h"

#include <time.h>

#include <algorithm>
#include <deque>
#include <vector>

namespace railtune::emu::netjob {
namespace {

struct InFlight {
  void* request;
  size_t size;
};

struct Progress {
  const Transfer* transfer = nullptr;
  size_t posted = 0;  // bytes posted so far
  size_t completed = 0;
  std::deque<InFlight> inFlight;
  bool finished() const { return completed == transfer->size; }
};

// Posts chunks up to the window; true when something was posted.
bool postChunks(Progress& p, const TransferOptions& options) {
  bool any = false;
  while (p.posted < p.transfer->size && static_cast<int>(p.inFlight.size()) < options.window) {
    const size_t size = std::min(options.chunkBytes, p.transfer->size - p.posted);
    void* request = p.transfer->link->post(p.transfer->data + p.posted, size);
    if (request == nullptr) break;
    p.inFlight.push_back({request, size});
    p.posted += size;
    any = true;
  }
  return any;
}

// Tests the chunks in posting order (a connection completes them in order); true when one completed.
bool testChunks(Progress& p) {
  bool any = p.transfer->link->progress();
  while (!p.inFlight.empty() && p.transfer->link->done(p.inFlight.front().request, p.inFlight.front().size)) {
    p.completed += p.inFlight.front().size;
    p.inFlight.pop_front();
    any = true;
  }
  return any;
}

std::string waitingOn(const std::vector<Progress>& all) {
  std::string out;
  for (const Progress& p : all) {
    if (p.finished()) continue;
    out += (out.empty() ? "" : ", ") + std::string(p.transfer->link->isSend() ? "send to" : "receive from") + " rank " +
           std::to_string(p.transfer->link->peer()) + " (" + std::to_string(p.completed) + " of " +
           std::to_string(p.transfer->size) + " bytes)";
  }
  return out;
}

// Yields the core when a pass moved nothing: ranks share few cores and must not starve each other.
void yieldCore() {
  const timespec pause{0, 20'000};
  nanosleep(&pause, nullptr);
}

}  // namespace

void runTransfers(std::span<const Transfer> transfers, const TransferOptions& options, const std::string& what) {
  std::vector<Progress> all;
  for (const Transfer& t : transfers) {
    if (t.size == 0) continue;
    t.link->begin(t.data, t.size);
    Progress p;
    p.transfer = &t;
    all.push_back(std::move(p));
  }
  struct EndAll {
    std::vector<Progress>& all;
    ~EndAll() {
      for (Progress& p : all) p.transfer->link->end();
    }
  } endAll{all};
  for (;;) {
    bool moved = false, pending = false;
    for (Progress& p : all) {
      if (p.finished()) continue;
      moved |= postChunks(p, options);
      moved |= testChunks(p);
      pending |= !p.finished();
    }
    if (!pending) return;
    if (Clock::now() > options.deadline) throw TimeoutError(what + ": timed out waiting on " + waitingOn(all));
    if (!moved) yieldCore();
  }
}

}  // namespace railtune::emu::netjob
