// The work-request ids the verbs transport posts, and what a completion reads back from them: one bit layout,
// encoded and decoded here only (the sender, the receiver and their completion handlers all go through it).
//   data        (a sender's writes, a receiver's receives): bits 0-7 the request's FIFO slot, bits 8-15 the QP index;
//   clear-to-send (a receiver's RDMA write on QP 0):       bit 40, bits 0-15 the send-queue entries its completion
//                                                          frees (0 for an unsignaled one);
//   flush       (a receiver's RDMA read on its loopback QP): bit 41, bits 0-7 the flush request.
// The data id is also what NCCL's IB profiler descriptor gets as wr_id.
#pragma once

#include <cstdint>

namespace railtune::net::ib {

enum class WrKind : uint8_t { Data, ClearToSend, Flush };

struct WrId {
  WrKind kind = WrKind::Data;
  int slot = 0;   // Data: the request's FIFO slot; Flush: the flush request's index (0..kWrSlotLimit-1)
  int qp = 0;     // Data: the QP's index in the connection (0..kWrQpLimit-1)
  int freed = 0;  // ClearToSend: the send-queue entries its completion frees (0..kWrFreedLimit-1)
  bool operator==(const WrId&) const = default;
};

inline constexpr int kWrSlotLimit = 1 << 8;
inline constexpr int kWrQpLimit = 1 << 8;
inline constexpr int kWrFreedLimit = 1 << 16;
inline constexpr uint64_t kWrClearToSendBit = uint64_t{1} << 40;
inline constexpr uint64_t kWrFlushBit = uint64_t{1} << 41;

// Fields beyond their limits are cut to their bits; the transport's own limits fit (static_asserts in ib_comm.h).
constexpr uint64_t encodeWrId(const WrId& id) {
  const auto bits = [](int value, int limit) {
    return static_cast<uint64_t>(value) & static_cast<uint64_t>(limit - 1);
  };
  switch (id.kind) {
    case WrKind::ClearToSend:
      return kWrClearToSendBit | bits(id.freed, kWrFreedLimit);
    case WrKind::Flush:
      return kWrFlushBit | bits(id.slot, kWrSlotLimit);
    case WrKind::Data:
      break;
  }
  return bits(id.slot, kWrSlotLimit) | (bits(id.qp, kWrQpLimit) << 8);
}

constexpr WrId decodeWrId(uint64_t wrId) {
  WrId id;
  if ((wrId & kWrClearToSendBit) != 0) {
    id.kind = WrKind::ClearToSend;
    id.freed = static_cast<int>(wrId & (kWrFreedLimit - 1));
  } else if ((wrId & kWrFlushBit) != 0) {
    id.kind = WrKind::Flush;
    id.slot = static_cast<int>(wrId & (kWrSlotLimit - 1));
  } else {
    id.slot = static_cast<int>(wrId & (kWrSlotLimit - 1));
    id.qp = static_cast<int>((wrId >> 8) & (kWrQpLimit - 1));
  }
  return id;
}

}  // namespace railtune::net::ib
