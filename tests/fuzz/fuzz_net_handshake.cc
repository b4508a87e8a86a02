// libFuzzer target for the net plugin's handshake header (formats/handshake.h), whose
// bytes come from the network. Two properties besides crashes and sanitizer reports:
//  - arbitrary bytes: decode either fails with a reason, or accepts a header whose encoding is
//    exactly those bytes (one canonical encoding);
//  - a header built from the input: encode refuses it exactly when validation does, and otherwise
//    decode(encode(x)) == x.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

#include "formats/handshake.h"

namespace {

using railtune::formats::path_log::HandshakeHeader;

void require(bool promise) {
  if (!promise) std::abort();
}

void checkDecode(std::span<const std::byte> bytes) {
  const auto decoded = railtune::formats::path_log::decodeHandshake(bytes);
  if (!decoded.header) {
    require(decoded.error.rfind("handshake: ", 0) == 0);
    return;
  }
  const auto again = railtune::formats::path_log::encodeHandshake(*decoded.header);
  require(bytes.size() == again.size() && std::memcmp(bytes.data(), again.data(), again.size()) == 0);
}

int32_t takeInt(const uint8_t*& data, size_t& size) {
  uint32_t value = 0;
  for (int i = 0; i < 4 && size > 0; ++i, ++data, --size) value |= static_cast<uint32_t>(*data) << (8 * i);
  return static_cast<int32_t>(value);
}

// The rest of the input, split at the first '\n' into host and HCA.
HandshakeHeader headerFrom(const uint8_t* data, size_t size) {
  HandshakeHeader h;
  h.pid = takeInt(data, size);
  h.device = takeInt(data, size);
  h.rail = takeInt(data, size);
  h.plane = takeInt(data, size);
  h.rank = takeInt(data, size);
  h.digest = static_cast<uint32_t>(takeInt(data, size)) * 0x9e3779b97f4a7c15ULL;
  const std::string rest(reinterpret_cast<const char*>(data), size);
  const size_t cut = rest.find('\n');
  h.host = rest.substr(0, cut);
  h.hca = cut == std::string::npos ? "" : rest.substr(cut + 1);
  return h;
}

void checkRoundTrip(const HandshakeHeader& header) {
  const bool valid = railtune::formats::path_log::handshakeProblem(header).empty();
  try {
    const auto bytes = railtune::formats::path_log::encodeHandshake(header);
    require(valid);
    const auto decoded = railtune::formats::path_log::decodeHandshake(bytes);
    require(decoded.header.has_value() && *decoded.header == header);
  } catch (const std::invalid_argument&) {
    require(!valid);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  checkDecode(std::span(reinterpret_cast<const std::byte*>(data), size));
  checkRoundTrip(headerFrom(data, size));
  return 0;
}
