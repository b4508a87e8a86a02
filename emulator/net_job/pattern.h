// What each rank sends and what every receiver must therefore see. Data are bytes and reductions are
// sums modulo 256, so that any size (odd ones too) works and every expected value is exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace railtune::emu::netjob {

// The byte `rank` contributes at `offset` of its buffer; `salt` differs per collective and iteration,
// so data left over from an earlier one cannot pass for new data.
uint8_t patternByte(int rank, uint32_t salt, size_t offset);
// out[i] = patternByte(rank, salt, offset + i).
void fillPattern(std::span<uint8_t> out, int rank, uint32_t salt, size_t offset);
// out[i] = sum over `ranks` of patternByte(r, salt, offset + i), modulo 256.
void fillSum(std::span<uint8_t> out, std::span<const int> ranks, uint32_t salt, size_t offset);

struct Mismatch {
  size_t index = 0;  // into the compared span
  uint8_t got = 0, expected = 0;
};
std::optional<Mismatch> firstMismatch(std::span<const uint8_t> got, std::span<const uint8_t> expected);

// A received byte that is not what the sender must have sent.
class VerifyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws VerifyError "rank R, COLLECTIVE iteration I: WHAT: byte at offset O is 0xGG, expected 0xEE"
// where O = baseOffset + the mismatch's index (an offset into the receiver's buffer).
void verifyBytes(std::span<const uint8_t> got, std::span<const uint8_t> expected, const std::string& where,
                 size_t baseOffset);

}  // namespace railtune::emu::netjob
