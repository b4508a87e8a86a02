// Per-connection traffic counters: plain relaxed atomics the data path bumps (no lock, no
// allocation) and the path log writer samples for its snapshot and close records.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "formats/path_log.h"

namespace railtune::net::pathlog {

// The writer and the connections speak the path log format's vocabulary (formats/path_log.h).
using formats::path_log::Direction;
using formats::path_log::PathRecord;
using formats::path_log::RecordKind;
using formats::path_log::Traffic;

class ConnectionCounters {
 public:
  void countSent(size_t bytes) noexcept {
    bytesSent_.fetch_add(bytes, std::memory_order_relaxed);
    messagesSent_.fetch_add(1, std::memory_order_relaxed);
  }
  void countReceived(size_t bytes) noexcept {
    bytesReceived_.fetch_add(bytes, std::memory_order_relaxed);
    messagesReceived_.fetch_add(1, std::memory_order_relaxed);
  }
  // Bytes one QP of an ib connection carried (qp: its index in the connection, [0, kMaxQpsRecorded); others are
  // not counted). The records list QPs 0 to the highest index counted.
  void countQpBytes(int qp, size_t bytes) noexcept {
    if (qp < 0 || qp >= formats::path_log::kMaxQpsRecorded) return;
    bytesPerQp_[qp].fetch_add(bytes, std::memory_order_relaxed);
    int seen = qpCount_.load(std::memory_order_relaxed);
    while (seen < qp + 1 && !qpCount_.compare_exchange_weak(seen, qp + 1, std::memory_order_relaxed)) {
    }
  }
  // Time during which the connection had work pending (the transport measures it).
  void addBusy(uint64_t nanoseconds) noexcept { busyNs_.fetch_add(nanoseconds, std::memory_order_relaxed); }

  // Each counter is read on its own: a snapshot taken during traffic may be a message apart
  // between bytes and messages, which is fine for a log.
  Traffic sample() const noexcept {
    Traffic out;
    out.bytesSent = bytesSent_.load(std::memory_order_relaxed);
    out.bytesReceived = bytesReceived_.load(std::memory_order_relaxed);
    out.messagesSent = messagesSent_.load(std::memory_order_relaxed);
    out.messagesReceived = messagesReceived_.load(std::memory_order_relaxed);
    out.busyUs = busyNs_.load(std::memory_order_relaxed) / 1000;
    out.qpCount = qpCount_.load(std::memory_order_relaxed);
    for (int i = 0; i < out.qpCount; ++i) out.bytesPerQp[i] = bytesPerQp_[i].load(std::memory_order_relaxed);
    return out;
  }

 private:
  std::atomic<uint64_t> bytesSent_{0}, bytesReceived_{0}, messagesSent_{0}, messagesReceived_{0}, busyNs_{0};
  std::atomic<int> qpCount_{0};  // the highest QP index counted + 1; 0: no QP counted (a socket connection)
  std::atomic<uint64_t> bytesPerQp_[formats::path_log::kMaxQpsRecorded] = {};
};

}  // namespace railtune::net::pathlog
