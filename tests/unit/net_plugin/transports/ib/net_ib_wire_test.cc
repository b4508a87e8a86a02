// The verbs transport's wire layouts: metadata round trips and refuses what is out of range; a clear-to-send
// element is accepted only whole.
#include <gtest/gtest.h>

#include <cstring>

#include "net_plugin/transports/ib/ib_wire.h"

namespace railtune::net::ib {
namespace {

ConnectionMeta sampleMeta() {
  ConnectionMeta meta;
  meta.qpCount = 4;
  for (int q = 0; q < 4; ++q) meta.qpn[q] = 0x100 + static_cast<uint32_t>(q);
  meta.linkLayer = kIbvLinkLayerEthernet;
  meta.port = 1;
  meta.mtu = kIbvMtu4096;
  meta.gidIndex = 3;
  meta.lid = 0;
  meta.serviceLevel = 3;
  meta.trafficClass = 106;
  meta.gid.raw[10] = 0xff;
  meta.gid.raw[11] = 0xff;
  meta.gid.raw[12] = 10;
  meta.controlAddr = 0x7f0000001000;
  meta.controlRkey = 0x1234;
  meta.flags = kMetaAdaptiveRouting;
  return meta;
}

TEST(NetIbWire, MetadataRoundTripsInAFixedLayout) {
  const MetaBytes bytes = encodeMeta(sampleMeta());
  EXPECT_EQ(static_cast<int>(bytes[0]), 0x52);  // "RTIM" little-endian
  std::string error;
  const std::optional<ConnectionMeta> back = decodeMeta(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->qpCount, 4);
  EXPECT_EQ(back->qpn[3], 0x103u);
  EXPECT_EQ(back->trafficClass, 106);
  EXPECT_EQ(back->serviceLevel, 3);
  EXPECT_EQ(back->controlAddr, 0x7f0000001000u);
  EXPECT_EQ(back->controlRkey, 0x1234u);
  EXPECT_EQ(std::memcmp(back->gid.raw, sampleMeta().gid.raw, 16), 0);
  EXPECT_EQ(encodeMeta(*back), bytes);
}

TEST(NetIbWire, MetadataCarriesEveryQpOfNcclsRange) {
  ConnectionMeta meta = sampleMeta();
  meta.qpCount = 128;  // NCCL_IB_QPS_PER_CONNECTION's maximum
  for (int q = 0; q < meta.qpCount; ++q) meta.qpn[q] = 0x100000u + static_cast<uint32_t>(q) * 7u;
  std::string error;
  const std::optional<ConnectionMeta> back = decodeMeta(encodeMeta(meta), error);
  ASSERT_TRUE(back) << error;
  ASSERT_EQ(back->qpCount, 128);
  for (int q = 0; q < meta.qpCount; ++q) EXPECT_EQ(back->qpn[q], meta.qpn[q]) << "QP " << q;
}

TEST(NetIbWire, MetadataOutOfRangeIsRefusedWithAReason) {
  std::string error;
  MetaBytes bytes = encodeMeta(sampleMeta());
  bytes[0] = std::byte{0};
  EXPECT_FALSE(decodeMeta(bytes, error));
  EXPECT_NE(error.find("magic"), std::string::npos);
  for (auto [field, value, words] : {std::tuple{6, 129, "QPs"}, std::tuple{6, 0, "QPs"}, std::tuple{10, 6, "MTU"},
                                     std::tuple{8, 3, "link layer"}, std::tuple{40, 0, "rkey"}}) {
    bytes = encodeMeta(sampleMeta());
    bytes[static_cast<size_t>(field)] = static_cast<std::byte>(value);  // 129: one past 128 QPs
    if (field == 40) std::memset(bytes.data() + 40, 0, 4);
    error.clear();
    EXPECT_FALSE(decodeMeta(bytes, error)) << words;
    EXPECT_NE(error.find(words), std::string::npos) << error;
  }
  bytes = encodeMeta(sampleMeta());
  bytes[4] = std::byte{9};
  EXPECT_FALSE(decodeMeta(bytes, error));
  EXPECT_NE(error.find("version"), std::string::npos);
}

TEST(NetIbWire, FifoElementIsAcceptedOnlyWhole) {
  alignas(64) std::byte slot[kFifoElementBytes] = {};
  EXPECT_FALSE(decodeFifoElement(slot));  // never written: zero never checks
  FifoElement e;
  e.addr = 0x7f00deadbee0;
  e.size = 1 << 20;
  e.rkey = 0xabcd;
  e.tag = -7;
  e.nreqs = 8;
  e.idx = 12345;
  encodeFifoElement(e, slot);
  const std::optional<FifoElement> back = decodeFifoElement(slot);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->addr, e.addr);
  EXPECT_EQ(back->size, e.size);
  EXPECT_EQ(back->tag, -7);
  EXPECT_EQ(back->nreqs, 8u);
  EXPECT_EQ(back->idx, 12345u);
  // Any field still holding the previous round's bytes (a torn placement) fails the check.
  for (size_t at : {0, 8, 16, 20, 24, 32}) {
    alignas(64) std::byte torn[kFifoElementBytes];
    std::memcpy(torn, slot, sizeof torn);
    torn[at] = static_cast<std::byte>(static_cast<unsigned>(torn[at]) ^ 0x01);
    EXPECT_FALSE(decodeFifoElement(torn)) << "byte " << at;
  }
}

TEST(NetIbWire, FifoElementIsLittleEndianAtItsOffsets) {
  alignas(64) std::byte slot[kFifoElementBytes] = {};
  FifoElement e;
  e.addr = 0x0102030405060708;
  e.size = 0x1112131415161718;
  e.rkey = 0x21222324;
  e.tag = 0x31323334;
  e.nreqs = 0x41424344;
  e.idx = 0x5152535455565758;
  encodeFifoElement(e, slot);
  const auto byteAt = [&](size_t at) { return static_cast<unsigned>(slot[at]); };
  EXPECT_EQ(byteAt(0), 0x08u);  // addr, lowest byte first
  EXPECT_EQ(byteAt(7), 0x01u);
  EXPECT_EQ(byteAt(8), 0x18u);   // size
  EXPECT_EQ(byteAt(16), 0x24u);  // rkey
  EXPECT_EQ(byteAt(19), 0x21u);
  EXPECT_EQ(byteAt(20), 0x34u);  // tag
  EXPECT_EQ(byteAt(24), 0x44u);  // nreqs; 28..31 the check word
  EXPECT_EQ(byteAt(32), 0x58u);  // idx
  EXPECT_EQ(byteAt(39), 0x51u);
  const std::optional<FifoElement> back = decodeFifoElement(slot);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->addr, e.addr);
  EXPECT_EQ(back->size, e.size);
  EXPECT_EQ(back->rkey, e.rkey);
  EXPECT_EQ(back->tag, e.tag);
  EXPECT_EQ(back->nreqs, e.nreqs);
  EXPECT_EQ(back->idx, e.idx);
}

TEST(NetIbWire, FifoElementOfOneRoundIsReadOnlyWithItsIndex) {
  alignas(64) std::byte slot[kFifoElementBytes] = {};
  EXPECT_FALSE(decodeFifoElement(slot, 0));  // never written: the index matches, the check does not
  FifoElement e;
  e.addr = 0x7f00deadbee0;
  e.size = 4096;
  e.rkey = 0xabcd;
  e.tag = 3;
  e.nreqs = 1;
  e.idx = 257;
  encodeFifoElement(e, slot);
  const std::optional<FifoElement> back = decodeFifoElement(slot, 257);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->addr, e.addr);
  EXPECT_EQ(back->rkey, e.rkey);
  EXPECT_EQ(back->idx, 257u);
  EXPECT_FALSE(decodeFifoElement(slot, 1));    // the previous round's element in this slot
  EXPECT_FALSE(decodeFifoElement(slot, 513));  // the next round's, not yet written
  alignas(64) std::byte torn[kFifoElementBytes];
  std::memcpy(torn, slot, sizeof torn);
  torn[8] = static_cast<std::byte>(static_cast<unsigned>(torn[8]) ^ 0x01);  // its index, but a field half-placed
  EXPECT_FALSE(decodeFifoElement(torn, 257));
}

}  // namespace
}  // namespace railtune::net::ib
