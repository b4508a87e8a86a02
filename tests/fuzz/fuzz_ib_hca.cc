// libFuzzer target for NCCL's interface-list syntax (formats/nccl_if_list.h), as NCCL_IB_HCA
// and NCCL_SOCKET_IFNAME spell it. The input is "<list>\n<device name>\n<port>"; besides crashes and
// sanitizer reports it checks the parser's promises: the entry limit, the name length, no empty name,
// describe/parse round trip, and that a match names an existing entry only when accepting.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "formats/nccl_if_list.h"

namespace {

void require(bool promise) {
  if (!promise) std::abort();
}

std::string_view takeLine(std::string_view* rest) {
  const size_t newline = rest->find('\n');
  const std::string_view line = rest->substr(0, newline);
  *rest = newline == std::string_view::npos ? std::string_view{} : rest->substr(newline + 1);
  return line;
}

void checkFilter(const railtune::formats::NcclIfList& filter, size_t maxEntries) {
  require(filter.entries.size() <= maxEntries);
  for (const railtune::formats::NcclIfEntry& entry : filter.entries) {
    require(!entry.name.empty() && entry.name.size() <= railtune::formats::kMaxIfNameChars);
    require(entry.rail >= INT16_MIN && entry.rail <= INT16_MAX);
    require(entry.plane >= INT16_MIN && entry.plane <= INT16_MAX);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const std::string_view list = takeLine(&rest);
  const std::string_view name = takeLine(&rest);
  const int port = static_cast<int>(rest.size() % 4) - 1;  // -1 .. 2
  using railtune::formats::kMaxIbHcaEntries;
  const railtune::formats::NcclIfList filter = railtune::formats::parseNcclIfList(list, kMaxIbHcaEntries);
  checkFilter(filter, kMaxIbHcaEntries);
  checkFilter(railtune::formats::parseNcclIfList(list, railtune::formats::kMaxSocketIfEntries),
              railtune::formats::kMaxSocketIfEntries);
  const railtune::formats::NcclIfMatch match = railtune::formats::matchNcclIfList(filter, name, port);
  require(match.entry >= -1 && match.entry < static_cast<int>(filter.entries.size()));
  require(match.entry == -1 || match.accepted);
  // A described filter reads back as the same filter when its names hold no separator.
  bool plainNames = true;
  for (const auto& entry : filter.entries)
    plainNames = plainNames && entry.name.find_first_of(",:") == std::string::npos;
  // (A first name starting with '^' or '=' would read back as a flag.)
  if (plainNames && (filter.entries.empty() || filter.entries.front().name.find_first_of("^=") != 0)) {
    const std::string described = railtune::formats::describeNcclIfList(filter);
    require(railtune::formats::describeNcclIfList(railtune::formats::parseNcclIfList(described, kMaxIbHcaEntries)) ==
            described);
  }
  return 0;
}
