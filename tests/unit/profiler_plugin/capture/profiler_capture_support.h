// Helpers for the capture tests: a RecordSink that keeps what it gets, a clock the test moves, and
// event descriptors built the way NCCL fills them (src/plugin/profiler.cc).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "profiler_plugin/capture/capture_engine.h"

namespace railtune::profiler::testing {

// Keeps every record; room for `capacity` is reserved up front, so push() allocates nothing until then.
class RecordingSink final : public RecordSink {
 public:
  explicit RecordingSink(size_t capacity = 64) { records_.reserve(capacity); }
  bool push(const OperationRecord& record) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (records_.size() == records_.capacity()) return false;
    records_.push_back(record);
    return true;
  }
  std::vector<OperationRecord> records() {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size();
  }

 private:
  std::mutex mutex_;
  std::vector<OperationRecord> records_;
};

inline std::atomic<int64_t> gFakeNowNs{1000};
inline int64_t fakeClock() {
  return gFakeNowNs.load(std::memory_order_relaxed);
}
inline void advance(int64_t ns) {
  gFakeNowNs.fetch_add(ns, std::memory_order_relaxed);
}

inline CaptureOptions testOptions(EventMask mask, uint32_t operations = 32, uint32_t events = 256) {
  CaptureOptions options;
  options.mask = mask;
  options.operationSlots = operations;
  options.eventSlots = events;
  options.pid = getpid();
  options.clock = fakeClock;
  return options;
}

inline CommInfo commOf(int rank, int nRanks, uint64_t id = 0xc0ffee) {
  CommInfo comm;
  comm.commId = id;
  comm.commName = "test";
  comm.nNodes = nRanks;
  comm.nRanks = nRanks;
  comm.rank = rank;
  return comm;
}

inline EventDescriptor collEvent(const char* func, size_t count, const char* datatype, int nChannels, uint64_t seq) {
  EventDescriptor d;
  d.type = EventType::Coll;
  d.coll.seqNumber = seq;
  d.coll.func = func;
  d.coll.count = count;
  d.coll.datatype = datatype;
  d.coll.nChannels = nChannels;
  d.coll.algo = "RING";
  d.coll.proto = "SIMPLE";
  return d;
}

inline EventDescriptor p2pEvent(const char* func, size_t count, const char* datatype, int peer, int nChannels) {
  EventDescriptor d;
  d.type = EventType::P2p;
  d.p2p.func = func;
  d.p2p.count = count;
  d.p2p.datatype = datatype;
  d.p2p.peer = peer;
  d.p2p.nChannels = nChannels;
  return d;
}

inline EventDescriptor proxyOpEvent(void* parent, int channel, int peer, bool send, int nSteps, pid_t pid = getpid()) {
  EventDescriptor d;
  d.type = EventType::ProxyOp;
  d.parent = parent;
  d.proxyOp.pid = pid;
  d.proxyOp.channelId = channel;
  d.proxyOp.peer = peer;
  d.proxyOp.nSteps = nSteps;
  d.proxyOp.chunkSize = 1 << 19;
  d.proxyOp.isSend = send;
  return d;
}

inline EventDescriptor proxyStepEvent(void* parent, int step) {
  EventDescriptor d;
  d.type = EventType::ProxyStep;
  d.parent = parent;
  d.proxyStep.step = step;
  return d;
}

inline EventDescriptor kernelChEvent(void* parent, int channel) {
  EventDescriptor d;
  d.type = EventType::KernelCh;
  d.parent = parent;
  d.kernelCh.channelId = channel;
  d.kernelCh.pTimer = 123456789;
  return d;
}

inline EventDescriptor netPluginEvent(void* parent, int64_t id, void* data) {
  EventDescriptor d;
  d.type = EventType::NetPlugin;
  d.parent = parent;
  d.netPlugin.id = id;
  d.netPlugin.data = data;
  return d;
}

inline StateArgs transferred(size_t bytes) {
  StateArgs args;
  args.transSize = bytes;
  return args;
}

}  // namespace railtune::profiler::testing
