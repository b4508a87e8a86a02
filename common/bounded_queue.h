// A bounded multi-producer queue whose push never blocks and never allocates (D. Vyukov's bounded
// MPMC queue: each cell carries a sequence number that says whose turn it is). NCCL's threads push
// records (the net plugin's path log, the profiler's operation records); a writer thread pops them.
// All memory is allocated at construction.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace railtune {

template <typename T>
class BoundedQueue {
 public:
  // The capacity is rounded up to a power of two (at least 2).
  explicit BoundedQueue(size_t capacity) {
    size_t size = 2;
    while (size < capacity) size *= 2;
    cells_ = std::make_unique<Cell[]>(size);
    mask_ = size - 1;
    for (size_t i = 0; i < size; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }

  size_t capacity() const { return mask_ + 1; }
  // Positions so far: every value pushed before a call to pushed() has been popped once popped()
  // reaches what that call returned (a writer's "flush what was there" uses this).
  size_t pushed() const { return enqueue_.load(std::memory_order_acquire); }
  size_t popped() const { return dequeue_.load(std::memory_order_acquire); }

  // False when the queue is full; the value is then left untouched. An rvalue is moved in, an lvalue
  // copied (the profiler's records are copied from the capture's scratch).
  template <typename U>
  bool tryPush(U&& value) noexcept {
    size_t position = enqueue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[position & mask_];
      const size_t sequence = cell.sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::ptrdiff_t>(sequence) - static_cast<std::ptrdiff_t>(position);
      if (lag == 0) {
        if (enqueue_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          cell.value = std::forward<U>(value);
          cell.sequence.store(position + 1, std::memory_order_release);
          return true;
        }
      } else if (lag < 0) {
        return false;  // the cell still holds an unread value from one lap ago: full
      } else {
        position = enqueue_.load(std::memory_order_relaxed);
      }
    }
  }

  // Pops one value by handing it to consume(T&) where it lies, without copying it out; the cell is
  // free for producers again once consume returns (or throws). False when the queue is empty. For the
  // profiler's writer, whose records are kilobytes and are read once.
  template <typename Consume>
  bool tryConsume(Consume&& consume) {
    size_t position = dequeue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[position & mask_];
      const size_t sequence = cell.sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::ptrdiff_t>(sequence) - static_cast<std::ptrdiff_t>(position + 1);
      if (lag == 0) {
        if (dequeue_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          struct Release {
            Cell& cell;
            size_t next;
            ~Release() { cell.sequence.store(next, std::memory_order_release); }
          } release{cell, position + mask_ + 1};
          consume(cell.value);
          return true;
        }
      } else if (lag < 0) {
        return false;  // empty
      } else {
        position = dequeue_.load(std::memory_order_relaxed);
      }
    }
  }

  bool tryPop(T& out) noexcept {
    return tryConsume([&out](T& value) { out = std::move(value); });
  }

 private:
  struct Cell {
    std::atomic<size_t> sequence{0};
    T value{};
  };

  std::unique_ptr<Cell[]> cells_;
  size_t mask_ = 0;
  alignas(64) std::atomic<size_t> enqueue_{0};
  alignas(64) std::atomic<size_t> dequeue_{0};
};

}  // namespace railtune
