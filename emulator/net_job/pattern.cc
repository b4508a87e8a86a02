#include "emulator/net_job/pattern.h"

#include <algorithm>
#include <cstdio>

namespace railtune::emu::netjob {

namespace {

// A cheap 64-bit mix (splitmix64's finaliser) of (salt, offset): neighbouring offsets and salts differ.
uint64_t mix(uint32_t salt, size_t offset) {
  uint64_t x = static_cast<uint64_t>(offset) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(salt) << 40);
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Each byte is base + (rank + 1) x step with an odd step, so two ranks never send the same byte (for
// ranks fewer than 256 apart) and the sum over any set of ranks is count x base + (sum of rank + 1)
// x step: the expected value of a partial or full reduction costs one hash per byte, whatever P.
uint8_t patternFrom(uint64_t x, unsigned count, unsigned rankSum) {
  const unsigned base = static_cast<unsigned>(x & 0xff), step = static_cast<unsigned>((x >> 8) & 0xff) | 1u;
  return static_cast<uint8_t>(count * base + rankSum * step);
}

}  // namespace

uint8_t patternByte(int rank, uint32_t salt, size_t offset) {
  return patternFrom(mix(salt, offset), 1, static_cast<unsigned>(rank) + 1);
}

void fillPattern(std::span<uint8_t> out, int rank, uint32_t salt, size_t offset) {
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = patternFrom(mix(salt, offset + i), 1, static_cast<unsigned>(rank) + 1);
}

void fillSum(std::span<uint8_t> out, std::span<const int> ranks, uint32_t salt, size_t offset) {
  unsigned rankSum = 0;
  for (int r : ranks) rankSum += static_cast<unsigned>(r) + 1;
  const auto count = static_cast<unsigned>(ranks.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = patternFrom(mix(salt, offset + i), count, rankSum);
}

std::optional<Mismatch> firstMismatch(std::span<const uint8_t> got, std::span<const uint8_t> expected) {
  const size_t n = std::min(got.size(), expected.size());
  for (size_t i = 0; i < n; ++i)
    if (got[i] != expected[i]) return Mismatch{i, got[i], expected[i]};
  return std::nullopt;
}

void verifyBytes(std::span<const uint8_t> got, std::span<const uint8_t> expected, const std::string& where,
                 size_t baseOffset) {
  if (got.size() != expected.size())
    throw VerifyError(where + ": received " + std::to_string(got.size()) + " bytes, expected " +
                      std::to_string(expected.size()));
  const auto m = firstMismatch(got, expected);
  if (!m) return;
  char detail[96];
  std::snprintf(detail, sizeof detail, ": byte at offset %zu is 0x%02x, expected 0x%02x", baseOffset + m->index, m->got,
                m->expected);
  throw VerifyError(where + detail);
}

}  // namespace railtune::emu::netjob
