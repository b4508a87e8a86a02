// What the verbs transport puts on the wire besides the data, in fixed little-endian layouts so that hosts of
// either byte order agree (NCCL sends its structs raw; railtune does not):
//   - the connection metadata each end sends over the out-of-band TCP stream after the railtune preamble
//     (QPNs, GID/LID, MTU, QP count, where its control buffer is and its rkey, traffic class and SL);
//   - the clear-to-send element a receiver RDMA-writes into the sender's FIFO for each posted buffer.
// The element carries a check word over its fields, so a sender that reads an element while the NIC is still
// placing it (RDMA places bytes in no promised order within a write) sees a mismatch and looks again later,
// instead of trusting a torn element; NCCL relies on 64-byte writes landing whole, which PCIe gives on
// hardware but nothing in the verbs contract promises.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "net_plugin/engine.h"
#include "net_plugin/transports/ib/verbs_abi.h"

namespace railtune::net::ib {

// QPs per connection (RAILTUNE_NET_QPS / NCCL_IB_QPS_PER_CONNECTION): all of NCCL's range (NCCL_IB_MAX_QPS,
// src/transport/net_ib/common.h:172@v2.30.7), so the count a user asks for is the count both ends build.
inline constexpr int kMaxQps = 128;
inline constexpr uint32_t kHandleMagic = 0x42495452;  // "RTIB": a listen handle of the verbs transport
inline constexpr uint32_t kMetaMagic = 0x4d495452;    // "RTIM"
inline constexpr uint16_t kMetaVersion = 2;           // 2: up to 128 QPNs (version 1 carried 16)
inline constexpr size_t kMetaBytes = 576;

struct ConnectionMeta {
  int qpCount = 0;
  uint32_t qpn[kMaxQps] = {};
  uint8_t linkLayer = kIbvLinkLayerInfiniband;
  uint8_t port = 1;
  uint8_t mtu = kIbvMtu4096;  // the port's active MTU (IbvMtu)
  uint8_t gidIndex = 0;
  uint16_t lid = 0;
  uint8_t serviceLevel = 0;
  uint8_t trafficClass = 0;
  IbvGid gid{};
  uint64_t controlAddr = 0;  // sender: its CTS FIFO; receiver: its size records
  uint32_t controlRkey = 0;
  uint32_t flags = 0;  // kMetaAdaptiveRouting...
};
inline constexpr uint32_t kMetaAdaptiveRouting = 1;
inline constexpr uint32_t kMetaSplitData = 2;  // every request uses all QPs (else one, rotating)

using MetaBytes = std::array<std::byte, kMetaBytes>;
MetaBytes encodeMeta(const ConnectionMeta& meta);
// nullopt with `error` set when the bytes are not a metadata block of this version, or a field is out of range.
std::optional<ConnectionMeta> decodeMeta(std::span<const std::byte, kMetaBytes> bytes, std::string& error);

// One clear-to-send element: 64 bytes, one per posted receive buffer (up to kMaxRecvs per FIFO slot).
//   0  u64 addr     8  u64 size    16 u32 rkey   20 u32 tag (as int)   24 u32 nreqs
//  28  u32 check   32  u64 idx (the receiver's request number + 1)    40..63 zero
inline constexpr size_t kFifoElementBytes = 64;
inline constexpr size_t kFifoDepth = 256;  // slots; NCCL's MAX_REQUESTS
struct FifoElement {
  uint64_t addr = 0;
  uint64_t size = 0;
  uint32_t rkey = 0;
  int32_t tag = 0;
  uint32_t nreqs = 0;
  uint64_t idx = 0;
};
void encodeFifoElement(const FifoElement& element, std::byte* out);  // writes kFifoElementBytes
// nullopt while the element is not (yet) whole: its check word does not match its fields.
std::optional<FifoElement> decodeFifoElement(const std::byte* in);
// The same, for the element of one round: nullopt at once (one load) while its index is not expectedIdx.
std::optional<FifoElement> decodeFifoElement(const std::byte* in, uint64_t expectedIdx);

// The size records a sender RDMA-writes for a grouped receive (n > 1), one int32 per buffer, before its last
// write-with-immediate on the first QP; the receiver reads them after that completion.
inline constexpr size_t kSizeRecordBytes = sizeof(int32_t) * kMaxRecvs;

}  // namespace railtune::net::ib
