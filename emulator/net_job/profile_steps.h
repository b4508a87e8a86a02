// The meeting point of the two threads of a profiled collective (profile_collective.h): the profiler's
// proxy (ProfilerSequence, playing NCCL's event order) posts and completes steps, the job's own
// collective moves and verifies the bytes over its links. Step k of a flow is one transfer of the
// collective on that flow's link (one runTransfers phase): its chunks go out with the phandle of the
// sequence's ProxyStep k, so the net plugin's events land under that step; the sequence completes step
// k once the link's transfer k is done.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "emulator/net_job/links.h"
#include "emulator/profiler_sequence.h"

namespace railtune::emu::netjob {

class StepBoard {
 public:
  StepBoard(size_t flows, int stepsPerFlow, std::chrono::steady_clock::time_point deadline);

  // The sequence's side (its proxy thread).
  void posted(size_t flow, int step, void* phandle);
  // Returns once the step is done (true), or early once the collective has finished: true when it
  // succeeded without using the step, false when it failed (the job aborts: the step never completes).
  bool waitCompleted(size_t flow, int step);

  // The collective's side: the phandle for transfer `step` of the flow, once the sequence posted it
  // (NULL past the flow's steps or after the deadline), and the end of that transfer.
  void* waitPosted(size_t flow, int step);
  void transferDone(size_t flow);
  void collectiveFinished(bool failed);  // nothing waits on the collective any longer
  bool waitFinished();                   // until collectiveFinished(): true when it succeeded

 private:
  struct FlowState {
    std::vector<void*> phandles;  // by step, as posted
    int completed = 0;            // transfers done
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<FlowState> flows_;
  int stepsPerFlow_;
  std::chrono::steady_clock::time_point deadline_;
  bool finished_ = false, failed_ = false;
};

// The sequence's NetTransfers over the board: flows are identified by their place in `flows`.
class BoardTransfers final : public NetTransfers {
 public:
  BoardTransfers(StepBoard& board, const std::vector<ProxyFlow>& flows) : board_(board), flows_(flows) {}
  void post(const ProxyFlow& flow, int step, size_t bytes, void* phandle) override;
  bool complete(const ProxyFlow& flow, int step) override;
  bool kernelEnded() override { return board_.waitFinished(); }

 private:
  size_t indexOf(const ProxyFlow& flow) const;
  StepBoard& board_;
  const std::vector<ProxyFlow>& flows_;
};

// A plugin link as the profiled collective sees it: each transfer (begin .. end) is the flow's next
// step; the chunks carry that step's phandle.
std::unique_ptr<Link> makeSteppedLink(Link& inner, StepBoard& board, size_t flow);

}  // namespace railtune::emu::netjob
