// The verbs transport's work-request ids (ib_wr_id.h): each kind round-trips at its bounds, the kinds never pass
// for one another, and the transport's own limits fit the bits.
#include <gtest/gtest.h>

#include "net_plugin/transports/ib/ib_comm.h"
#include "net_plugin/transports/ib/ib_wr_id.h"

namespace railtune::net::ib {
namespace {

TEST(NetIbWrId, DataIdsRoundTripAtTheirBounds) {
  for (int slot : {0, 1, kWrSlotLimit / 2, kWrSlotLimit - 1}) {
    for (int qp : {0, 1, kMaxQps - 1, kWrQpLimit - 1}) {
      const WrId id{.slot = slot, .qp = qp};
      const uint64_t wrId = encodeWrId(id);
      EXPECT_EQ(decodeWrId(wrId), id) << "slot " << slot << ", QP " << qp;
      EXPECT_EQ(wrId & (kWrClearToSendBit | kWrFlushBit), 0u) << "a data id is never taken for another kind";
    }
  }
  // NCCL's profiler descriptor sees the data id: the slot in the low byte, the QP index in the next.
  EXPECT_EQ(encodeWrId({.slot = 5, .qp = 3}), 0x305u);
}

TEST(NetIbWrId, ClearToSendAndFlushIdsRoundTripAtTheirBounds) {
  for (int freed : {0, 1, kCtsSignalEvery, kWrFreedLimit - 1}) {
    const WrId id{.kind = WrKind::ClearToSend, .freed = freed};
    EXPECT_EQ(decodeWrId(encodeWrId(id)), id) << "freed " << freed;
  }
  for (int slot : {0, kMaxInFlight - 1, kWrSlotLimit - 1}) {
    const WrId id{.kind = WrKind::Flush, .slot = slot};
    EXPECT_EQ(decodeWrId(encodeWrId(id)), id) << "flush " << slot;
  }
  EXPECT_NE(encodeWrId({.kind = WrKind::ClearToSend}), encodeWrId({.kind = WrKind::Flush}));
  EXPECT_NE(encodeWrId({.kind = WrKind::ClearToSend}), encodeWrId({}));
}

TEST(NetIbWrId, FieldsBeyondTheirBitsAreCutNotSpilled) {
  // A value past its field's bits must not reach the next field or a kind bit.
  const WrId decoded = decodeWrId(encodeWrId({.slot = kWrSlotLimit + 7, .qp = 2}));
  EXPECT_EQ(decoded.kind, WrKind::Data);
  EXPECT_EQ(decoded.slot, 7);
  EXPECT_EQ(decoded.qp, 2);
  EXPECT_EQ(decodeWrId(encodeWrId({.slot = 1, .qp = kWrQpLimit})).kind, WrKind::Data);
  EXPECT_EQ(decodeWrId(encodeWrId({.kind = WrKind::ClearToSend, .freed = kWrFreedLimit})).freed, 0);
}

TEST(NetIbWrId, TheTransportsLimitsFitTheBits) {
  EXPECT_LE(static_cast<int>(kFifoDepth), kWrSlotLimit);
  EXPECT_LE(kMaxInFlight, kWrSlotLimit);
  EXPECT_LE(kMaxQps, kWrQpLimit);
  EXPECT_LT(kCtsSignalEvery, kWrFreedLimit);
}

}  // namespace
}  // namespace railtune::net::ib
