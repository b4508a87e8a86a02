// The background thread of the plugins' record writers (the path log's and the profiler's): it sleeps
// until the interval passes or something wakes it, runs the writer's cycle without holding the lock,
// and at stop turns accepting() false (so that no record can arrive after the last cycle) and runs the
// final step once. Data-path threads never take the lock: they push into the writer's own queue and at
// most call wake(). The writer's own handshakes (the profiler's flush requests) use mutex() and the
// steps that run under it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace railtune {

class WriterThread {
 public:
  struct Steps {
    std::chrono::milliseconds interval{1000};
    // Under the lock: whether to wake before the interval ends (a flush request, a half-full queue).
    std::function<bool()> wakeEarly{};
    // Under the lock, before each cycle: a ticket the cycle and afterCycle are given (0 when unused).
    std::function<uint64_t()> beforeCycle{};
    // Without the lock: one round of taking, rendering and writing. Returns whether it found the
    // queue empty; the thread sleeps again only then, so that under a flood it writes without pause.
    std::function<bool(uint64_t ticket)> cycle{};
    // Under the lock, after each cycle.
    std::function<void(uint64_t ticket)> afterCycle{};
    // Without the lock, once after stop(): accepting() is already false.
    std::function<void()> finalCycle{};
    // Under the lock, after the final cycle.
    std::function<void()> stopped{};
  };

  WriterThread() = default;
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;
  ~WriterThread() { stop(); }

  void start(Steps steps) {
    steps_ = std::move(steps);
    thread_ = std::thread([this] { run(); });
  }

  // Idempotent; returns once the final cycle has run and the thread has ended.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ || !thread_.joinable()) return;
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  void wake() { wake_.notify_one(); }
  bool accepting() const { return accepting_.load(std::memory_order_acquire); }
  std::mutex& mutex() { return mutex_; }
  bool stoppingLocked() const { return stopping_; }  // with mutex() held

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    bool emptied = true;
    while (!stopping_) {
      if (emptied)
        wake_.wait_for(lock, steps_.interval, [this] { return stopping_ || (steps_.wakeEarly && steps_.wakeEarly()); });
      if (stopping_) break;
      const uint64_t ticket = steps_.beforeCycle ? steps_.beforeCycle() : 0;
      lock.unlock();
      emptied = steps_.cycle(ticket);
      lock.lock();
      if (steps_.afterCycle) steps_.afterCycle(ticket);
    }
    lock.unlock();
    accepting_.store(false, std::memory_order_release);
    steps_.finalCycle();
    lock.lock();
    if (steps_.stopped) steps_.stopped();
  }

  Steps steps_;
  std::atomic<bool> accepting_{true};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // under mutex_
  std::thread thread_;
};

}  // namespace railtune
