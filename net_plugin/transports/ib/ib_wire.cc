// Fixed little-endian encodings of the verbs transport's metadata and clear-to-send elements. See ib_wire.h.
#include "net_plugin/transports/ib/ib_wire.h"

#include <atomic>
#include <bit>
#include <cstring>

namespace railtune::net::ib {
namespace {

// Little-endian on the wire. On a little-endian host (x86-64, aarch64) each is one unaligned load or store:
// g++ does not merge the byte loop into one when the bytes come from a copy of atomically read words (as
// decodeFifoElement's do), which made every clear-to-send poll cost about 200 instructions.
template <typename T>
void put(std::byte* out, size_t at, T value) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out + at, &value, sizeof(T));
  } else {
    for (size_t i = 0; i < sizeof(T); ++i)
      out[at + i] = static_cast<std::byte>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
  }
}

template <typename T>
T get(const std::byte* in, size_t at) {
  if constexpr (std::endian::native == std::endian::little) {
    T value;
    std::memcpy(&value, in + at, sizeof(T));
    return value;
  } else {
    uint64_t value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<uint64_t>(in[at + i]) << (8 * i);
    return static_cast<T>(value);
  }
}

// Layout of the metadata block.
constexpr size_t kAtMagic = 0, kAtVersion = 4, kAtQpCount = 6, kAtLinkLayer = 8, kAtPort = 9, kAtMtu = 10,
                 kAtGidIndex = 11, kAtLid = 12, kAtSl = 14, kAtTc = 15, kAtGid = 16, kAtControlAddr = 32,
                 kAtControlRkey = 40, kAtFlags = 44, kAtQpn = 48;  // 48 + 128 x 4 = 560; the rest zero
static_assert(kAtQpn + 4 * kMaxQps <= kMetaBytes);

uint32_t fifoCheck(const FifoElement& e) {
  // A mix of every field (not a CRC: it only has to tell a whole element from one half-placed).
  uint64_t h = 0x9e3779b97f4a7c15ull ^ e.idx;
  for (const uint64_t v : {e.addr, e.size, static_cast<uint64_t>(e.rkey),
                           static_cast<uint64_t>(static_cast<uint32_t>(e.tag)), static_cast<uint64_t>(e.nreqs)}) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  const uint32_t check = static_cast<uint32_t>(h ^ (h >> 32));
  return check == 0 ? 1 : check;  // never 0: a zeroed element never checks
}

}  // namespace

MetaBytes encodeMeta(const ConnectionMeta& meta) {
  MetaBytes bytes{};
  std::byte* out = bytes.data();
  put<uint32_t>(out, kAtMagic, kMetaMagic);
  put<uint16_t>(out, kAtVersion, kMetaVersion);
  put<uint16_t>(out, kAtQpCount, static_cast<uint16_t>(meta.qpCount));
  put<uint8_t>(out, kAtLinkLayer, meta.linkLayer);
  put<uint8_t>(out, kAtPort, meta.port);
  put<uint8_t>(out, kAtMtu, meta.mtu);
  put<uint8_t>(out, kAtGidIndex, meta.gidIndex);
  put<uint16_t>(out, kAtLid, meta.lid);
  put<uint8_t>(out, kAtSl, meta.serviceLevel);
  put<uint8_t>(out, kAtTc, meta.trafficClass);
  std::memcpy(out + kAtGid, meta.gid.raw, 16);
  put<uint64_t>(out, kAtControlAddr, meta.controlAddr);
  put<uint32_t>(out, kAtControlRkey, meta.controlRkey);
  put<uint32_t>(out, kAtFlags, meta.flags);
  for (int i = 0; i < meta.qpCount && i < kMaxQps; ++i)
    put<uint32_t>(out, kAtQpn + 4 * static_cast<size_t>(i), meta.qpn[i]);
  return bytes;
}

std::optional<ConnectionMeta> decodeMeta(std::span<const std::byte, kMetaBytes> bytes, std::string& error) {
  const std::byte* in = bytes.data();
  if (get<uint32_t>(in, kAtMagic) != kMetaMagic) {
    error = "the peer's connection metadata has the wrong magic (not railtune's verbs transport)";
    return std::nullopt;
  }
  if (get<uint16_t>(in, kAtVersion) != kMetaVersion) {
    error = "the peer's connection metadata is version " + std::to_string(get<uint16_t>(in, kAtVersion)) +
            ", this plugin reads version " + std::to_string(kMetaVersion);
    return std::nullopt;
  }
  ConnectionMeta meta;
  meta.qpCount = get<uint16_t>(in, kAtQpCount);
  meta.linkLayer = get<uint8_t>(in, kAtLinkLayer);
  meta.port = get<uint8_t>(in, kAtPort);
  meta.mtu = get<uint8_t>(in, kAtMtu);
  meta.gidIndex = get<uint8_t>(in, kAtGidIndex);
  meta.lid = get<uint16_t>(in, kAtLid);
  meta.serviceLevel = get<uint8_t>(in, kAtSl);
  meta.trafficClass = get<uint8_t>(in, kAtTc);
  std::memcpy(meta.gid.raw, in + kAtGid, 16);
  meta.controlAddr = get<uint64_t>(in, kAtControlAddr);
  meta.controlRkey = get<uint32_t>(in, kAtControlRkey);
  meta.flags = get<uint32_t>(in, kAtFlags);
  if (meta.qpCount < 1 || meta.qpCount > kMaxQps) {
    error = "the peer offers " + std::to_string(meta.qpCount) + " QPs (1.." + std::to_string(kMaxQps) + ")";
    return std::nullopt;
  }
  if (meta.mtu < kIbvMtu256 || meta.mtu > kIbvMtu4096) {
    error = "the peer's MTU code " + std::to_string(meta.mtu) + " is not 1..5 (256..4096 bytes)";
    return std::nullopt;
  }
  if (meta.linkLayer != kIbvLinkLayerInfiniband && meta.linkLayer != kIbvLinkLayerEthernet) {
    error = "the peer's link layer " + std::to_string(meta.linkLayer) + " is neither InfiniBand nor Ethernet";
    return std::nullopt;
  }
  if (meta.controlAddr == 0 || meta.controlRkey == 0) {
    error = "the peer's control buffer address or rkey is 0";
    return std::nullopt;
  }
  for (int i = 0; i < meta.qpCount; ++i) meta.qpn[i] = get<uint32_t>(in, kAtQpn + 4 * static_cast<size_t>(i));
  return meta;
}

void encodeFifoElement(const FifoElement& e, std::byte* out) {
  std::memset(out, 0, kFifoElementBytes);
  put<uint64_t>(out, 0, e.addr);
  put<uint64_t>(out, 8, e.size);
  put<uint32_t>(out, 16, e.rkey);
  put<uint32_t>(out, 20, static_cast<uint32_t>(e.tag));
  put<uint32_t>(out, 24, e.nreqs);
  put<uint32_t>(out, 28, fifoCheck(e));
  put<uint64_t>(out, 32, e.idx);
}

namespace {

// The element's five 8-byte words, each read once, atomically and with acquire order (the NIC or the simulator
// writes this memory while we read it; the element is 64-byte aligned), in host order.
void loadFifoWords(const std::byte* in, uint64_t (&words)[5]) {
  for (size_t w = 0; w < 5; ++w) {
    auto* source = const_cast<uint64_t*>(reinterpret_cast<const uint64_t*>(in) + w);
    const uint64_t value = std::atomic_ref<uint64_t>(*source).load(std::memory_order_acquire);
    if constexpr (std::endian::native == std::endian::little) {
      words[w] = value;
    } else {
      words[w] = __builtin_bswap64(value);
    }
  }
}

// Judges the copy: the layout of encodeFifoElement, the 32-bit fields the halves of words 2 and 3.
std::optional<FifoElement> fifoElementOf(const uint64_t (&words)[5]) {
  FifoElement e;
  e.addr = words[0];
  e.size = words[1];
  e.rkey = static_cast<uint32_t>(words[2]);
  e.tag = static_cast<int32_t>(static_cast<uint32_t>(words[2] >> 32));
  e.nreqs = static_cast<uint32_t>(words[3]);
  e.idx = words[4];
  if (static_cast<uint32_t>(words[3] >> 32) != fifoCheck(e)) return std::nullopt;
  return e;
}

}  // namespace

std::optional<FifoElement> decodeFifoElement(const std::byte* in) {
  uint64_t words[5];
  loadFifoWords(in, words);
  return fifoElementOf(words);
}

std::optional<FifoElement> decodeFifoElement(const std::byte* in, uint64_t expectedIdx) {
  // The index word alone first: a sender polls an element that still holds the previous round far more often
  // than it finds the new one (NCCL's sender likewise polls the idx field, p2p.cc ncclIbIsend).
  auto* idxWord = const_cast<uint64_t*>(reinterpret_cast<const uint64_t*>(in) + 4);
  uint64_t idx = std::atomic_ref<uint64_t>(*idxWord).load(std::memory_order_acquire);
  if constexpr (std::endian::native != std::endian::little) idx = __builtin_bswap64(idx);
  if (idx != expectedIdx) return std::nullopt;
  std::optional<FifoElement> e = decodeFifoElement(in);
  if (e && e->idx != expectedIdx) return std::nullopt;
  return e;
}

}  // namespace railtune::net::ib
