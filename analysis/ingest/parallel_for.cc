// The analyses' parallel loop (parallel_for.h).
#include "analysis/ingest/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace railtune::analysis::ingest {

void parallelFor(size_t n, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), std::max<size_t>(n, 1));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

}  // namespace railtune::analysis::ingest
