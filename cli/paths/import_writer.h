// The writer of `railtune paths import` (import.cc): each imported process's path log rendered and written on
// worker threads while the import goes on.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "analysis/nccl_log/import.h"

namespace railtune::cli {

namespace nl = analysis::nccl_log;

// Renders and writes the imported processes' path logs on worker threads while the import goes on: JSON
// rendering is most of an import's time. At most 2 processes per worker wait, so memory stays bounded. The
// first write error stops the writers and is thrown by finish().
class ParallelWriter {
 public:
  ParallelWriter(std::string dir,
                 std::function<void(const std::string&, const std::string&, const std::string&)> writeFile)
      : dir_(std::move(dir)), writeFile_(std::move(writeFile)) {
    const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
    limit_ = 2 * workers;
  }
  ~ParallelWriter() { stop(); }

  void add(nl::ImportedProcess&& process) {
    std::unique_lock lock(mutex_);
    roomy_.wait(lock, [this] { return queue_.size() < limit_ || !error_.empty(); });
    if (!error_.empty()) return;
    queue_.push_back(std::move(process));
    ready_.notify_one();
  }

  size_t finish() {
    stop();
    if (!error_.empty()) throw std::runtime_error(error_);
    return written_;
  }

 private:
  void stop() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : workers_)
      if (t.joinable()) t.join();
  }

  void work() {
    for (;;) {
      nl::ImportedProcess process;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty() || done_; });
        if (queue_.empty()) return;
        process = std::move(queue_.front());
        queue_.pop_front();
        roomy_.notify_one();
      }
      try {
        const auto [name, text] = nl::renderPathLog(process);
        writeFile_(dir_, name, text);
        std::lock_guard lock(mutex_);
        ++written_;
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex_);
        if (error_.empty()) error_ = e.what();
        roomy_.notify_all();
      }
    }
  }

  std::string dir_;
  std::function<void(const std::string&, const std::string&, const std::string&)> writeFile_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable ready_, roomy_;
  std::deque<nl::ImportedProcess> queue_;
  size_t limit_ = 2, written_ = 0;
  bool done_ = false;
  std::string error_;
};

}  // namespace railtune::cli
