// The railtune handshake header (formats/handshake.h): layout, round trip, every
// rejection with its reason, and the digest comparison text.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "formats/handshake.h"

namespace railtune::formats::path_log {
namespace {

HandshakeHeader sampleHeader() {
  HandshakeHeader h;
  h.host = "gb300-r01-t05";
  h.pid = 4121;
  h.device = 2;
  h.hca = "mlx5_2";
  h.rail = 2;
  h.plane = -1;
  h.rank = 11;
  h.digest = 0x0123456789abcdefULL;
  return h;
}

std::string decodeError(const HandshakeBytes& bytes) {
  const HandshakeDecode d = decodeHandshake(bytes);
  EXPECT_FALSE(d.header.has_value());
  return d.error;
}

TEST(NetPathlogHandshake, RoundTripsTypicalAndExtremeValues) {
  HandshakeHeader typical = sampleHeader();
  HandshakeHeader extreme;
  extreme.host = std::string(kHandshakeHostBytes - 1, 'h');
  extreme.pid = 0x7fffffff;
  extreme.device = 0x7fffffff;
  extreme.hca = "";  // a plain network interface has no HCA name
  extreme.digest = ~0ULL;
  for (const HandshakeHeader& h : {typical, extreme}) {
    const HandshakeDecode d = decodeHandshake(encodeHandshake(h));
    ASSERT_TRUE(d.header.has_value()) << d.error;
    EXPECT_EQ(*d.header, h);
  }
}

TEST(NetPathlogHandshake, LayoutIsFixedAndLittleEndian) {
  const HandshakeBytes b = encodeHandshake(sampleHeader());
  EXPECT_EQ(0, std::memcmp(b.data(), "RTNH", 4));
  EXPECT_EQ(b[4], std::byte{1});
  EXPECT_EQ(b[5], std::byte{0});
  EXPECT_EQ(b[6], std::byte{360 & 0xff});
  EXPECT_EQ(b[7], std::byte{360 >> 8});
  EXPECT_EQ(b[8], std::byte{4121 & 0xff});  // pid
  EXPECT_EQ(b[9], std::byte{4121 >> 8});
  EXPECT_EQ(b[12], std::byte{2});     // device
  EXPECT_EQ(b[20], std::byte{0xff});  // plane -1
  EXPECT_EQ(b[32], std::byte{0xef});  // digest, low byte first
  EXPECT_EQ(b[39], std::byte{0x01});
  EXPECT_EQ(0, std::memcmp(b.data() + 40, "gb300-r01-t05", 14));
  EXPECT_EQ(0, std::memcmp(b.data() + 296, "mlx5_2", 7));
}

TEST(NetPathlogHandshake, RejectsShortAndLongInput) {
  const HandshakeBytes b = encodeHandshake(sampleHeader());
  EXPECT_EQ(decodeHandshake(std::span(b.data(), 3)).error, "handshake: 3 bytes, too short for a header");
  EXPECT_EQ(decodeHandshake(std::span(b.data(), 100)).error, "handshake: 100 bytes, expected 360");
  std::byte longer[kHandshakeBytes + 1] = {};
  std::memcpy(longer, b.data(), b.size());
  EXPECT_EQ(decodeHandshake(longer).error, "handshake: 361 bytes, expected 360");
}

TEST(NetPathlogHandshake, RejectsBadMagicVersionLengthAndReserved) {
  HandshakeBytes b = encodeHandshake(sampleHeader());
  b[0] = std::byte{'G'};
  EXPECT_EQ(decodeError(b), "handshake: bad magic 0x484e5447 (not a railtune peer?)");
  b = encodeHandshake(sampleHeader());
  b[4] = std::byte{2};
  EXPECT_EQ(decodeError(b),
            "handshake: version 2, this railtune speaks version 1 (mixed railtune releases in one job?)");
  b = encodeHandshake(sampleHeader());
  b[6] = std::byte{0};
  EXPECT_EQ(decodeError(b), "handshake: length field 256, version 1 is 360");
  b = encodeHandshake(sampleHeader());
  b[29] = std::byte{1};
  EXPECT_EQ(decodeError(b), "handshake: reserved field is not zero");
}

TEST(NetPathlogHandshake, RejectsMalformedStrings) {
  HandshakeBytes b = encodeHandshake(sampleHeader());
  std::memset(b.data() + 40, 'x', kHandshakeHostBytes);
  EXPECT_EQ(decodeError(b), "handshake: host is not NUL-terminated within its 256 bytes");
  b = encodeHandshake(sampleHeader());
  b[40 + 20] = std::byte{'z'};  // after the NUL that ends "gb300-r01-t05"
  EXPECT_EQ(decodeError(b), "handshake: host has non-zero padding at byte 60");
  b = encodeHandshake(sampleHeader());
  b[40] = std::byte{0};
  for (size_t i = 41; i < 40 + 14; ++i) b[i] = std::byte{0};
  EXPECT_EQ(decodeError(b), "handshake: host is empty");
  b = encodeHandshake(sampleHeader());
  b[296 + 1] = std::byte{0x07};
  EXPECT_EQ(decodeError(b), "handshake: hca has a non-printable byte 0x07 at offset 1");
}

TEST(NetPathlogHandshake, RejectsOutOfRangeNumbers) {
  HandshakeBytes b = encodeHandshake(sampleHeader());
  std::memset(b.data() + 8, 0, 4);
  EXPECT_EQ(decodeError(b), "handshake: pid 0 is not positive");
  b = encodeHandshake(sampleHeader());
  std::memset(b.data() + 16, 0xfe, 4);
  EXPECT_EQ(decodeError(b), "handshake: rail -16843010 is below -1 (unknown)");
}

TEST(NetPathlogHandshake, EncodeRefusesWhatDecodeWouldReject) {
  HandshakeHeader h = sampleHeader();
  h.host = std::string(kHandshakeHostBytes, 'h');
  EXPECT_THROW(encodeHandshake(h), std::invalid_argument);
  h = sampleHeader();
  h.device = -1;
  try {
    encodeHandshake(h);
    FAIL() << "a negative device was encoded";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "handshake: cannot encode: device -1 is negative");
  }
}

TEST(NetPathlogHandshake, ComparesDigestsWithTextForTheWarning) {
  const HandshakeHeader peer = sampleHeader();
  const DigestComparison same = compareDigests(0x0123456789abcdefULL, peer);
  EXPECT_TRUE(same.match);
  EXPECT_EQ(same.text, "configuration digest 0123456789abcdef matches gb300-r01-t05 pid 4121 rank 11");
  const DigestComparison other = compareDigests(0xfedcba9876543210ULL, peer);
  EXPECT_FALSE(other.match);
  EXPECT_EQ(other.text,
            "configuration digest fedcba9876543210 here, digest 0123456789abcdef at gb300-r01-t05 pid 4121 rank 11: "
            "the ranks were started with different rules, rail map or environment (RAILTUNE_STRICT=1 fails the "
            "connection)");
}

}  // namespace
}  // namespace railtune::formats::path_log
