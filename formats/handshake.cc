// See handshake.h for the layout. Integers are written byte by byte (little-endian) rather than by
// copying a struct, so that neither padding nor the host's byte order can leak into the bytes.
#include "formats/handshake.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "common/config_digest.h"

namespace railtune::formats::path_log {
namespace {

constexpr std::array<std::byte, 4> kMagic = {std::byte{'R'}, std::byte{'T'}, std::byte{'N'}, std::byte{'H'}};
constexpr size_t kVersionAt = 4, kLengthAt = 6, kPidAt = 8, kDeviceAt = 12, kRailAt = 16, kPlaneAt = 20;
constexpr size_t kRankAt = 24, kReservedAt = 28, kDigestAt = 32, kHostAt = 40;
constexpr size_t kHcaAt = kHostAt + kHandshakeHostBytes;
static_assert(kHcaAt + kHandshakeHcaBytes == kHandshakeBytes, "handshake layout and size disagree");

void putUnsigned(HandshakeBytes& out, size_t at, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) out[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xffu);
}

uint64_t getUnsigned(std::span<const std::byte> in, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value |= static_cast<uint64_t>(in[at + i]) << (8 * i);
  return value;
}

int getInt32(std::span<const std::byte> in, size_t at) {
  return static_cast<int32_t>(static_cast<uint32_t>(getUnsigned(in, at, 4)));
}

void putText(HandshakeBytes& out, size_t at, const std::string& text) {
  std::memcpy(out.data() + at, text.data(), text.size());  // the rest stays zero
}

std::string hexDigits(uint64_t value, int digits) {
  char text[17] = {};
  std::snprintf(text, sizeof(text), "%0*llx", digits, static_cast<unsigned long long>(value));
  return text;
}

bool printable(char c) {
  return c >= 0x20 && c < 0x7f;
}

std::string checkText(std::string_view field, const std::string& text, size_t capacity, bool required) {
  if (required && text.empty()) return std::string(field) + " is empty";
  if (text.size() >= capacity) {
    return std::string(field) + " is " + std::to_string(text.size()) + " characters, at most " +
           std::to_string(capacity - 1) + " fit";
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (!printable(text[i])) {
      return std::string(field) + " has a non-printable byte 0x" + hexDigits(static_cast<unsigned char>(text[i]), 2) +
             " at offset " + std::to_string(i);
    }
  }
  return "";
}

// A NUL-terminated field: the text before the first NUL, then zeros to the end of the field.
std::optional<std::string> readText(std::span<const std::byte> in, size_t at, size_t capacity, std::string_view field,
                                    std::string* error) {
  const char* begin = reinterpret_cast<const char*>(in.data() + at);
  const size_t length = strnlen(begin, capacity);
  if (length == capacity) {
    *error = std::string(field) + " is not NUL-terminated within its " + std::to_string(capacity) + " bytes";
    return std::nullopt;
  }
  for (size_t i = length; i < capacity; ++i) {
    if (begin[i] != '\0') {
      *error = std::string(field) + " has non-zero padding at byte " + std::to_string(at + i);
      return std::nullopt;
    }
  }
  return std::string(begin, length);
}

std::string checkPrefix(std::span<const std::byte> bytes) {
  if (bytes.size() < kPidAt) return "handshake: " + std::to_string(bytes.size()) + " bytes, too short for a header";
  if (std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return "handshake: bad magic 0x" + hexDigits(getUnsigned(bytes, 0, 4), 8) + " (not a railtune peer?)";
  }
  const uint64_t version = getUnsigned(bytes, kVersionAt, 2);
  if (version != kHandshakeVersion) {
    return "handshake: version " + std::to_string(version) + ", this railtune speaks version " +
           std::to_string(kHandshakeVersion) + " (mixed railtune releases in one job?)";
  }
  const uint64_t length = getUnsigned(bytes, kLengthAt, 2);
  if (length != kHandshakeBytes) {
    return "handshake: length field " + std::to_string(length) + ", version 1 is " + std::to_string(kHandshakeBytes);
  }
  if (bytes.size() != kHandshakeBytes) {
    return "handshake: " + std::to_string(bytes.size()) + " bytes, expected " + std::to_string(kHandshakeBytes);
  }
  if (getUnsigned(bytes, kReservedAt, 4) != 0) return "handshake: reserved field is not zero";
  return "";
}

}  // namespace

std::string handshakeProblem(const HandshakeHeader& header) {
  if (header.pid <= 0) return "pid " + std::to_string(header.pid) + " is not positive";
  if (header.device < 0) return "device " + std::to_string(header.device) + " is negative";
  if (header.rail < -1) return "rail " + std::to_string(header.rail) + " is below -1 (unknown)";
  if (header.plane < -1) return "plane " + std::to_string(header.plane) + " is below -1 (single plane)";
  if (header.rank < -1) return "rank " + std::to_string(header.rank) + " is below -1 (unknown)";
  if (std::string e = checkText("host", header.host, kHandshakeHostBytes, true); !e.empty()) return e;
  return checkText("hca", header.hca, kHandshakeHcaBytes, false);
}

HandshakeBytes encodeHandshake(const HandshakeHeader& header) {
  if (std::string error = handshakeProblem(header); !error.empty()) {
    throw std::invalid_argument("handshake: cannot encode: " + error);
  }
  HandshakeBytes out{};
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  putUnsigned(out, kVersionAt, kHandshakeVersion, 2);
  putUnsigned(out, kLengthAt, kHandshakeBytes, 2);
  putUnsigned(out, kPidAt, static_cast<uint32_t>(header.pid), 4);
  putUnsigned(out, kDeviceAt, static_cast<uint32_t>(header.device), 4);
  putUnsigned(out, kRailAt, static_cast<uint32_t>(header.rail), 4);
  putUnsigned(out, kPlaneAt, static_cast<uint32_t>(header.plane), 4);
  putUnsigned(out, kRankAt, static_cast<uint32_t>(header.rank), 4);
  putUnsigned(out, kDigestAt, header.digest, 8);
  putText(out, kHostAt, header.host);
  putText(out, kHcaAt, header.hca);
  return out;
}

HandshakeDecode decodeHandshake(std::span<const std::byte> bytes) {
  HandshakeDecode result;
  if (result.error = checkPrefix(bytes); !result.error.empty()) return result;
  HandshakeHeader header;
  header.pid = getInt32(bytes, kPidAt);
  header.device = getInt32(bytes, kDeviceAt);
  header.rail = getInt32(bytes, kRailAt);
  header.plane = getInt32(bytes, kPlaneAt);
  header.rank = getInt32(bytes, kRankAt);
  header.digest = getUnsigned(bytes, kDigestAt, 8);
  std::string error;
  std::optional<std::string> host = readText(bytes, kHostAt, kHandshakeHostBytes, "host", &error);
  std::optional<std::string> hca = host ? readText(bytes, kHcaAt, kHandshakeHcaBytes, "hca", &error) : std::nullopt;
  if (!host || !hca) {
    result.error = "handshake: " + error;
    return result;
  }
  header.host = std::move(*host);
  header.hca = std::move(*hca);
  if (error = handshakeProblem(header); !error.empty()) {
    result.error = "handshake: " + error;
    return result;
  }
  result.header = std::move(header);
  return result;
}

DigestComparison compareDigests(uint64_t localDigest, const HandshakeHeader& peer) {
  DigestComparison out;
  out.match = localDigest == peer.digest;
  const std::string who = peer.host + " pid " + std::to_string(peer.pid) +
                          (peer.rank >= 0 ? " rank " + std::to_string(peer.rank) : std::string());
  if (out.match) {
    out.text = "configuration digest " + digestHex(localDigest) + " matches " + who;
  } else {
    out.text = "configuration digest " + digestHex(localDigest) + " here, digest " + digestHex(peer.digest) + " at " +
               who +
               ": the ranks were started with different rules, rail map or environment "
               "(RAILTUNE_STRICT=1 fails the connection)";
  }
  return out;
}

}  // namespace railtune::formats::path_log
