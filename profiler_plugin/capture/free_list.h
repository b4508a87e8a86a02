// A fixed set of slot indices handed out and taken back by any thread without a lock and without
// allocating (a Treiber stack over indices). The head carries a counter beside the index, so that a
// slot taken and returned between another thread's read and its compare-exchange (ABA) cannot
// corrupt the list. Memory for `capacity` links is allocated once, at construction.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace railtune::profiler {

class FreeList {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;

  explicit FreeList(uint32_t capacity) : next_(new std::atomic<uint32_t>[capacity]) {
    // Index i links to i + 1, so that slots are handed out in index order at first.
    for (uint32_t i = 0; i < capacity; ++i) next_[i].store(i + 2 <= capacity ? i + 2 : 0, std::memory_order_relaxed);
    head_.store(capacity > 0 ? 1 : 0, std::memory_order_release);
  }

  // A free index, or kEmpty. Acquire: what the last owner wrote before push() is visible.
  uint32_t pop() {
    uint64_t head = head_.load(std::memory_order_acquire);
    for (;;) {
      const uint32_t top = static_cast<uint32_t>(head);  // index + 1; 0 = empty
      if (top == 0) return kEmpty;
      const uint32_t below = next_[top - 1].load(std::memory_order_relaxed);
      const uint64_t replaced = (((head >> 32) + 1) << 32) | below;
      if (head_.compare_exchange_weak(head, replaced, std::memory_order_acq_rel, std::memory_order_acquire)) {
        return top - 1;
      }
    }
  }

  // Returns an index taken with pop(). Release: the slot's contents go to the next owner.
  void push(uint32_t index) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    for (;;) {
      next_[index].store(static_cast<uint32_t>(head), std::memory_order_relaxed);
      const uint64_t replaced = (((head >> 32) + 1) << 32) | (index + 1);
      if (head_.compare_exchange_weak(head, replaced, std::memory_order_release, std::memory_order_relaxed)) return;
    }
  }

 private:
  std::unique_ptr<std::atomic<uint32_t>[]> next_;
  std::atomic<uint64_t> head_{0};
};

}  // namespace railtune::profiler
