// A reproducible NCCL-like workload for one connection: a plan of receives (grouped ones with up to
// maxRecvs buffers and distinct tags, sizes from 0 bytes to past the transport's chunk size), the
// sender's side and the receiver's side, each driven as NCCL's proxy drives the net plugin: many
// requests in flight, the oldest tested first, host buffers registered once. Both sides build the
// same plan from the same seed, so they can run in different processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tests/e2e/net_fault_harness.h"

namespace railtune::testing::netfault {

struct PlannedMessage {
  int tag = 0;
  size_t size = 0;      // what the sender sends
  size_t capacity = 0;  // what the receiver posts (>= size)
  uint32_t seed = 0;    // the content
};

struct PlannedReceive {
  std::vector<PlannedMessage> buffers;  // one irecv with buffers.size() buffers
  std::vector<size_t> sendOrder;        // the order in which the sender sends them (tags match them)
  bool optionalCompletion = false;      // NCCL presets *request to 0x1 (single-buffer receives only)
  bool flush = false;                   // iflush after it completes
};

struct Plan {
  std::vector<PlannedReceive> receives;
  size_t sendBytes() const;
  size_t receiveBytes() const;
};

Plan makePlan(uint32_t seed, int receives, int maxRecvs);

void fillMessage(std::span<std::byte> bytes, uint32_t seed);
// "" when the bytes are what fillMessage wrote, else the first difference.
std::string checkMessage(std::span<const std::byte> bytes, uint32_t seed);

// Each returns "" when every request completed (and, for the receiver, every byte and size was
// right), else what went wrong. `inFlight` bounds the requests outstanding on the comm.
std::string runSender(emu::NetDriver& net, void* sendComm, const Plan& plan, size_t inFlight, Millis limit);
std::string runReceiver(emu::NetDriver& net, void* recvComm, const Plan& plan, size_t inFlight, Millis limit);

}  // namespace railtune::testing::netfault
