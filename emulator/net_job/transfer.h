// Runs one step of a collective: a set of sends and receives, each cut into chunks and kept up to a
// window of chunks in flight per link, polled with test() until all complete, as NCCL's proxy does.
// Bounded: past the deadline it throws, naming the step and the links still waiting.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "emulator/net_job/links.h"

namespace railtune::emu::netjob {

using Clock = std::chrono::steady_clock;

struct TransferOptions {
  size_t chunkBytes = 128 * 1024;  // NCCL's Simple protocol moves a buffer slot per step (default 4 MiB / 8)
  int window = 8;                  // chunks in flight per link: NCCL_STEPS
  Clock::time_point deadline = Clock::time_point::max();
};

struct Transfer {
  Link* link = nullptr;
  uint8_t* data = nullptr;
  size_t size = 0;
};

class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws LinkError (a failed call), TimeoutError (the deadline passed; `what` names the step).
void runTransfers(std::span<const Transfer> transfers, const TransferOptions& options, const std::string& what);

}  // namespace railtune::emu::netjob
