// NCCL's interface lists, as NCCL_IB_HCA and NCCL_SOCKET_IFNAME spell them (NCCL's parseStringList and
// matchIfList in src/misc/utils.cc): a comma list of `name[:port[:rail[:plane]]]`, a leading `^`
// excludes what matches, then a leading `=` asks for exact names instead of prefixes. The rules are
// NCCL's own, quirks included, so that a variable means the same to railtune as to NCCL's transports:
// empty entries and entries with an empty name are dropped, at most `maxEntries` are kept, names are cut
// to 63 characters, numbers are read as atoi reads them (a missing or empty field is -1, "x" is 0), and
// an empty list accepts everything unless it is excluded (`^` alone excludes every device).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::net {

inline constexpr size_t kMaxIbHcaEntries = 32;     // NCCL's MAX_IB_DEVS
inline constexpr size_t kMaxSocketIfEntries = 16;  // NCCL's MAX_IFS
inline constexpr size_t kMaxIfNameChars = 63;      // NCCL's netIf.prefix[64]

struct IfFilterEntry {
  std::string name;
  int port = -1;  // -1: every port
  int rail = -1;  // -1: not given (rail and plane are NCCL 2.30's)
  int plane = -1;
};

struct IfFilter {
  bool exclude = false;  // leading '^'
  bool exact = false;    // '=' (after any '^')
  std::vector<IfFilterEntry> entries;
};

struct IfMatch {
  bool accepted = false;
  int entry = -1;  // the entry that selected the device (never set when excluding), else -1
};

// Pure; never fails (NCCL accepts every string).
IfFilter parseIfFilter(std::string_view text, size_t maxEntries);

// Whether a device `name` (port `port`, -1 for interfaces without ports) passes the filter.
IfMatch matchIfFilter(const IfFilter& filter, std::string_view name, int port);

// "^=mlx5_0:1:0:-1,mlx5_1" style text of a parsed filter, for logs and tests.
std::string describeIfFilter(const IfFilter& filter);

}  // namespace railtune::net
