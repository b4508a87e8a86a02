// The one pool of worker threads of railtune's tools (bounded_queue.h is the plugins' lock-free queue; this
// is for work that may block and throw): `paths import` renders and writes path logs on it, `sweep parse`
// writes a long output's dataset lines on it, the analyses read many files at once with parallelFor.
//
// Tasks start in the order they were submitted (with one worker they also end in that order). At most
// queueLimit wait, so a producer faster than the workers blocks in submit() and memory stays bounded. The
// first task that throws stops the pool: the tasks still queued are dropped unstarted, submit() returns
// false at once (a producer blocked on a full queue is released), and finish() rethrows that exception;
// the errors of tasks already running are dropped, so the caller sees one. Destroying a pool without
// finish() drops what is queued, lets the running tasks end and joins.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace railtune {

class WorkPool {
 public:
  // hardware_concurrency(), at least 1 (it may answer 0) and at most `most`.
  static unsigned defaultWorkers(unsigned most = 16) {
    return std::clamp(std::thread::hardware_concurrency(), 1u, std::max(most, 1u));
  }

  WorkPool(unsigned workers, size_t queueLimit) : limit_(std::max<size_t>(queueLimit, 1)) {
    workers = std::max(workers, 1u);
    threads_.reserve(workers);
    try {
      for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
    } catch (...) {  // a thread that could not start: those that did are joined before the error goes on
      close(true);
      throw;
    }
  }
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;
  ~WorkPool() { close(true); }

  // Queues the task, waiting while queueLimit tasks wait. False, with the task dropped, once a task has
  // failed or finish() has begun.
  bool submit(std::function<void()> task) {
    std::unique_lock lock(mutex_);
    roomy_.wait(lock, [this] { return queue_.size() < limit_ || error_ || closed_; });
    if (error_ || closed_) return false;
    queue_.push_back(std::move(task));
    ready_.notify_one();
    return true;
  }

  // Waits until every task queued has run (or, after an error, until the running ones have ended), then
  // rethrows the first task's exception. Nothing can be submitted afterwards.
  void finish() {
    close(false);
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

  // Whether a task has thrown: a long task (a loop over many items) checks it to stop early.
  bool failed() const { return failed_.load(std::memory_order_acquire); }

 private:
  // drop: the queued tasks are discarded unstarted (destruction); otherwise the workers run them first.
  void close(bool drop) {
    {
      std::deque<std::function<void()>> dropped;  // destroyed before the join, outside the lock
      std::lock_guard lock(mutex_);
      closed_ = true;
      if (drop) dropped.swap(queue_);
    }
    ready_.notify_all();
    roomy_.notify_all();
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }

  void work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty() || closed_ || error_; });
        if (error_ || queue_.empty()) return;  // after an error nothing queued starts; closed and empty: done
        task = std::move(queue_.front());
        queue_.pop_front();
        roomy_.notify_one();
      }
      try {
        task();
      } catch (...) {
        fail(std::current_exception());
        return;
      }
    }
  }

  void fail(std::exception_ptr error) {
    std::deque<std::function<void()>> dropped;  // destroyed after the lock is let go
    {
      std::lock_guard lock(mutex_);
      if (error_) return;
      error_ = std::move(error);
      failed_.store(true, std::memory_order_release);
      dropped.swap(queue_);
    }
    ready_.notify_all();
    roomy_.notify_all();
  }

  const size_t limit_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable ready_, roomy_;
  std::deque<std::function<void()>> queue_;  // under mutex_
  std::exception_ptr error_;                 // under mutex_: the first task's exception
  bool closed_ = false;                      // under mutex_
  std::atomic<bool> failed_{false};
};

// fn(0) .. fn(n-1), each index once, on `threads` workers of a WorkPool (0: defaultWorkers(), and never more
// than n); indices are taken in increasing order (`sweep parse`'s ordered output relies on it). The first
// fn that throws stops the rest (an index not started by then never is) and its exception is rethrown here.
// One thread or one index: run on the calling thread, no thread started.
inline void parallelFor(size_t n, const std::function<void(size_t)>& fn, unsigned threads = 0) {
  const size_t workers = std::min<size_t>(threads != 0 ? threads : WorkPool::defaultWorkers(~0u), n);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  WorkPool pool(static_cast<unsigned>(workers), workers);
  for (size_t w = 0; w < workers; ++w) {
    pool.submit([&] {
      for (size_t i = next++; i < n && !pool.failed(); i = next++) fn(i);
    });
  }
  pool.finish();
}

}  // namespace railtune
