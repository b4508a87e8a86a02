// Fakes for the hang watchdog's tests: an InFlightSource holding operations with their start times
// (optionally holding the watchdog inside a scan), and a RecordSink that keeps what it is given.
#pragma once

#include <time.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "profiler_plugin/record_sink.h"

namespace railtune::testing {

inline int64_t monotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Polls `done` every millisecond until it holds or `limit` passes; true when it held.
inline bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

inline formats::profile::OperationRecord collective(uint64_t comm, uint64_t seq, const char* operation) {
  formats::profile::OperationRecord r;
  r.kind = formats::profile::RecordKind::Collective;
  r.comm = comm;
  r.rank = 1;
  r.nRanks = 4;
  r.seq = seq;
  r.operation.assign(operation);
  r.bytes = 1 << 20;
  r.algorithm.assign("RING");
  r.protocol.assign("SIMPLE");
  r.channels = 2;
  return r;
}

class FakeSource final : public profiler::InFlightSource {
 public:
  void add(const formats::profile::OperationRecord& op, int64_t startNs) {
    std::lock_guard<std::mutex> lock(mutex_);
    ops_.push_back({op, startNs});
  }
  void complete(uint64_t seq) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(ops_, [&](const Op& op) { return op.record.seq == seq; });
  }
  // The next scan waits inside incomplete() until release().
  void holdNextScan() {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_ = true;
  }
  bool insideScan() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return inside_;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    hold_ = false;
    released_.notify_all();
  }
  int scans() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return scans_;
  }
  void throwOnScan() {
    std::lock_guard<std::mutex> lock(mutex_);
    throw_ = true;
  }

  int housekeeps() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return housekeeps_;
  }
  void housekeep(int64_t) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++housekeeps_;
  }

  size_t incomplete(int64_t nowNs, uint64_t olderThanNs, std::span<formats::profile::OperationRecord> out) override {
    std::unique_lock<std::mutex> lock(mutex_);
    inside_ = true;
    released_.wait(lock, [&] { return !hold_; });
    inside_ = false;
    ++scans_;
    if (throw_) throw std::runtime_error("capture state corrupted");
    size_t n = 0;
    for (const Op& op : ops_) {
      if (n == out.size() || op.startNs > nowNs - static_cast<int64_t>(olderThanNs)) continue;
      out[n] = op.record;
      out[n].kind = formats::profile::RecordKind::Hang;
      out[n].stuckForNs = static_cast<uint64_t>(nowNs - op.startNs);
      ++n;
    }
    return n;
  }

 private:
  struct Op {
    formats::profile::OperationRecord record;
    int64_t startNs;
  };
  mutable std::mutex mutex_;
  std::condition_variable released_;
  std::vector<Op> ops_;
  bool hold_ = false, inside_ = false, throw_ = false;
  int scans_ = 0, housekeeps_ = 0;
};

class FakeSink final : public profiler::RecordSink {
 public:
  bool push(const formats::profile::OperationRecord& record) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.push_back(record);
    return true;
  }
  std::vector<formats::profile::OperationRecord> records() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
  }
  size_t size() const { return records().size(); }

 private:
  mutable std::mutex mutex_;
  std::vector<formats::profile::OperationRecord> records_;
};

}  // namespace railtune::testing
