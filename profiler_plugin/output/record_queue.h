// A bounded multi-producer queue of OperationRecords whose push never blocks and never allocates
// (D. Vyukov's bounded MPMC queue: each cell carries a sequence number that says whose turn it is).
// NCCL's threads push completed records; the writer thread pops them. All memory is allocated at
// construction. Records are copied in and out: they are trivially copyable and heap-free.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "profiler_plugin/record.h"

namespace railtune::profiler::output {

static_assert(std::is_trivially_copyable_v<OperationRecord>, "records are copied into the queue's cells");

class RecordQueue {
 public:
  // The capacity is rounded up to a power of two (at least 2).
  explicit RecordQueue(size_t capacity) {
    size_t size = 2;
    while (size < capacity) size *= 2;
    cells_ = std::make_unique<Cell[]>(size);
    mask_ = size - 1;
    for (size_t i = 0; i < size; ++i) cells_[i].sequence.store(i, std::memory_order_relaxed);
  }

  size_t capacity() const { return mask_ + 1; }

  // False when the queue is full.
  bool tryPush(const OperationRecord& record) noexcept {
    size_t position = enqueue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[position & mask_];
      const size_t sequence = cell.sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::ptrdiff_t>(sequence) - static_cast<std::ptrdiff_t>(position);
      if (lag == 0) {
        if (enqueue_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          cell.record = record;
          cell.sequence.store(position + 1, std::memory_order_release);
          return true;
        }
      } else if (lag < 0) {
        return false;  // the cell still holds an unread record from one lap ago: full
      } else {
        position = enqueue_.load(std::memory_order_relaxed);
      }
    }
  }

  bool tryPop(OperationRecord* out) noexcept {
    size_t position = dequeue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[position & mask_];
      const size_t sequence = cell.sequence.load(std::memory_order_acquire);
      const auto lag = static_cast<std::ptrdiff_t>(sequence) - static_cast<std::ptrdiff_t>(position + 1);
      if (lag == 0) {
        if (dequeue_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          *out = cell.record;
          cell.sequence.store(position + mask_ + 1, std::memory_order_release);
          return true;
        }
      } else if (lag < 0) {
        return false;  // empty
      } else {
        position = dequeue_.load(std::memory_order_relaxed);
      }
    }
  }

 private:
  struct Cell {
    std::atomic<size_t> sequence{0};
    OperationRecord record{};
  };

  std::unique_ptr<Cell[]> cells_;
  size_t mask_ = 0;
  alignas(64) std::atomic<size_t> enqueue_{0};
  alignas(64) std::atomic<size_t> dequeue_{0};
};

}  // namespace railtune::profiler::output
