// libFuzzer target for the sysfs text parsers (fabric/discover/sysfs_source.h): every parser on the
// whole input, then the promises each one makes: what it accepts formats back to the same value, and
// the values stay inside their documented ranges.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fabric/discover/sysfs_source.h"
#include "fabric/model.h"

namespace rd = railtune::fabric::discover;

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

void checkRate(const std::string& text) {
  const auto rate = rd::parseRateMbps(text);
  if (!rate) return;
  require(*rate > 0 && *rate <= 100'000'000);
  char again[64];
  std::snprintf(again, sizeof(again), "%d.%03d Gb/sec (4X XDR)", *rate / 1000, *rate % 1000);
  require(rd::parseRateMbps(again) == rate);
}

void checkIdentifiers(const std::string& text) {
  if (const auto guid = rd::parseGuid(text)) require(rd::parseGuid(rd::formatGuid(*guid)) == guid);
  if (const auto gid = rd::parseGid(text)) {
    require(rd::parseGid(rd::formatGid(*gid)) == gid);
    require(rd::isZeroGid(*gid) == (rd::formatGid(*gid) == "0000:0000:0000:0000:0000:0000:0000:0000"));
    if (const auto v4 = rd::gidIpv4(*gid)) require(v4->size() >= 7 && v4->size() <= 15);
  }
  if (const auto id = rd::parseHexId(text)) {
    char again[16];
    std::snprintf(again, sizeof(again), "0x%04x", static_cast<unsigned>(*id));
    require(rd::parseHexId(again) == id);
  }
}

void checkNumbers(const std::string& text) {
  if (const auto numa = rd::parseNumaNode(text)) {
    require(*numa >= -1 && *numa <= 65535);
    require(rd::parseNumaNode(std::to_string(*numa)) == numa);
  }
  if (const auto value = rd::parseSysfsInt(text)) require(rd::parseSysfsInt(std::to_string(*value)) == value);
  const int speed = rd::netSpeedMbps({0, text});
  require(speed >= -1);
  if (const auto state = rd::parsePortState(text)) {
    require(!state->empty());
    for (char c : *state) require(std::isupper(static_cast<unsigned char>(c)) || c == '_');
  }
}

void checkPciPath(const std::string& text) {
  const rd::PciLocation pci = rd::pciLocationOf(text);
  require(pci.busId.empty() == pci.upstream.empty());
  if (pci.busId.empty()) return;
  require(railtune::fabric::normalizeBusId(pci.busId) == pci.busId);
  require(pci.upstream.front().compare(0, 3, "pci") == 0);
  for (size_t i = 1; i < pci.upstream.size(); ++i) {
    require(railtune::fabric::normalizeBusId(pci.upstream[i]) == pci.upstream[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  checkRate(text);
  checkIdentifiers(text);
  checkNumbers(text);
  checkPciPath(text);
  return 0;
}
