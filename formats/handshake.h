// The railtune header a connection sends first (issue 5, "handshake"): who is at the other end (host,
// pid, device, HCA, rail, plane, rank) and which configuration it runs (the digest of
// common/config_digest.h), so that each side can log the path and warn when two ranks were started
// with different rules, rail maps or environments.
//
// The layout is fixed and little-endian whatever the host, so that the bytes are the same on every
// machine and the header can be read before anything else is known about the peer:
//
//   offset  size  field
//        0     4  magic "RTNH"
//        4     2  version (1)
//        6     2  length of the whole header in bytes (360)
//        8     4  pid (> 0)
//       12     4  device index (>= 0)
//       16     4  rail (-1 unknown)
//       20     4  plane (-1 single plane or unknown)
//       24     4  sender's rank (-1 unknown)
//       28     4  reserved, zero
//       32     8  configuration digest
//       40   256  host, NUL-terminated, zero-padded, printable ASCII, not empty
//      296    64  HCA (or network interface), NUL-terminated, zero-padded, printable ASCII
//
// decode() is strict: the bytes come from the network, and one canonical encoding per header means
// that encode(decode(bytes)) == bytes for every accepted input.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace railtune::formats::path_log {

inline constexpr uint16_t kHandshakeVersion = 1;
inline constexpr size_t kHandshakeBytes = 360;
inline constexpr size_t kHandshakeHostBytes = 256;  // with the terminating NUL
inline constexpr size_t kHandshakeHcaBytes = 64;    // IB_DEVICE_NAME_MAX, with the NUL

struct HandshakeHeader {
  std::string host;
  int pid = 0;
  int device = 0;
  std::string hca;
  int rail = -1;
  int plane = -1;
  int rank = -1;
  uint64_t digest = 0;
  bool operator==(const HandshakeHeader&) const = default;
};

using HandshakeBytes = std::array<std::byte, kHandshakeBytes>;

// Throws std::invalid_argument naming the field when the header cannot be encoded (a host longer
// than 255 characters, a negative pid...): the same rules decode() applies.
HandshakeBytes encodeHandshake(const HandshakeHeader& header);

struct HandshakeDecode {
  std::optional<HandshakeHeader> header;
  std::string error;  // set when header is empty: "handshake: bad magic 0x41424344 (not a railtune peer?)"
};

HandshakeDecode decodeHandshake(std::span<const std::byte> bytes);

// The header's own checks, shared by encode and decode: "" when valid, else the reason.
std::string handshakeProblem(const HandshakeHeader& header);

// The configuration digests of the two ends compared, with the text of the WARN (or INFO) line.
struct DigestComparison {
  bool match = false;
  std::string text;
};

DigestComparison compareDigests(uint64_t localDigest, const HandshakeHeader& peer);

}  // namespace railtune::formats::path_log
