// libFuzzer target for what the verbs transport reads from its peer (net_plugin/transports/ib/ib_wire.h): the
// connection metadata block from the setup stream, and clear-to-send elements from the FIFO the peer writes.
// The input is a metadata block (first kMetaBytes bytes, zero-padded) and then 64-byte elements. Besides crashes
// and sanitizer reports it checks the decoders' promises: a block that decodes has 1..128 QPs and encodes back to
// the same fields; one that does not says why; an element decodes only when whole, and then round-trips; the
// by-index decoder agrees with the general one.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "net_plugin/transports/ib/ib_wire.h"

namespace {

namespace ib = railtune::net::ib;

void require(bool promise) {
  if (!promise) std::abort();
}

bool sameMeta(const ib::ConnectionMeta& a, const ib::ConnectionMeta& b) {
  if (a.qpCount != b.qpCount || a.linkLayer != b.linkLayer || a.port != b.port || a.mtu != b.mtu ||
      a.gidIndex != b.gidIndex || a.lid != b.lid || a.serviceLevel != b.serviceLevel ||
      a.trafficClass != b.trafficClass || a.controlAddr != b.controlAddr || a.controlRkey != b.controlRkey ||
      a.flags != b.flags || std::memcmp(a.gid.raw, b.gid.raw, sizeof a.gid.raw) != 0)
    return false;
  return std::equal(a.qpn, a.qpn + a.qpCount, b.qpn);
}

void checkMeta(const uint8_t* data, size_t size) {
  ib::MetaBytes bytes{};
  std::memcpy(bytes.data(), data, std::min(size, bytes.size()));
  std::string error;
  const std::optional<ib::ConnectionMeta> meta = ib::decodeMeta(bytes, error);
  if (!meta) {
    require(!error.empty());
    return;
  }
  require(meta->qpCount >= 1 && meta->qpCount <= ib::kMaxQps);
  std::string again;
  const std::optional<ib::ConnectionMeta> back = ib::decodeMeta(ib::encodeMeta(*meta), again);
  require(back.has_value() && sameMeta(*meta, *back));
}

void checkElement(const uint8_t* data) {
  alignas(64) std::byte element[ib::kFifoElementBytes];
  std::memcpy(element, data, sizeof element);
  const std::optional<ib::FifoElement> e = ib::decodeFifoElement(element);
  uint64_t idx = 0;
  std::memcpy(&idx, element + 32, sizeof idx);
  const std::optional<ib::FifoElement> byIndex = ib::decodeFifoElement(element, le64toh(idx));
  require(e.has_value() == byIndex.has_value());
  if (!e) return;
  require(!ib::decodeFifoElement(element, le64toh(idx) + 1).has_value());
  alignas(64) std::byte encoded[ib::kFifoElementBytes];
  ib::encodeFifoElement(*e, encoded);
  const std::optional<ib::FifoElement> back = ib::decodeFifoElement(encoded);
  require(back.has_value() && back->addr == e->addr && back->size == e->size && back->rkey == e->rkey &&
          back->tag == e->tag && back->nreqs == e->nreqs && back->idx == e->idx);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  checkMeta(data, size);
  for (size_t at = ib::kMetaBytes; at + ib::kFifoElementBytes <= size; at += ib::kFifoElementBytes)
    checkElement(data + at);
  return 0;
}
