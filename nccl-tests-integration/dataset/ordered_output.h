// Many jobs writing one output in job order, with bounded memory: `sweep parse` reads its files on every core and
// writes their rows in the order of the inputs. The job at the head of the order writes straight through; the
// others buffer, and wait once the buffers hold maxBuffered bytes until the head has moved on, so a 500 MB output
// next to thousands of small ones never makes the dataset's bytes pile up in memory.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::sweep {

class OrderedOutput {
 public:
  // write: where the bytes go, in order (called under a lock, one call at a time); it may throw, and the first
  // error is kept for error() while every later byte is dropped so that the jobs still finish.
  OrderedOutput(size_t jobs, size_t maxBuffered, std::function<void(std::string_view)> write);
  // Job `job`'s next bytes (text is cleared). Jobs must be started in index order (parallelFor does).
  void write(size_t job, std::string& text);
  void done(size_t job);
  const std::string& error() const { return error_; }  // after every job is done

 private:
  void put(std::string_view bytes);
  std::mutex mutex_;
  std::condition_variable moved_;
  std::function<void(std::string_view)> write_;
  std::vector<std::string> pending_;
  std::vector<bool> done_;
  size_t head_ = 0, buffered_ = 0, maxBuffered_;
  std::string error_;
};

}  // namespace railtune::sweep
