// NCCL's interface lists, as NCCL_IB_HCA and NCCL_SOCKET_IFNAME spell them: a comma list of
// `name[:port[:rail[:plane]]]`, a leading `^` excludes what matches, then a leading `=` asks for exact names
// instead of prefixes (NCCL v2.30.7: parseStringList and matchIfList in src/misc/utils.cc:189-243, the `^`/`=`
// prefixes in src/transport/net_ib/init.cc:320-324 and src/os/linux.cc:385-389). A format the net plugin,
// `railtune topo env` and `railtune doctor` all speak, so it is here and not in one of them. The rules are NCCL's
// own, quirks included, so that a variable means the same to railtune as to NCCL's transports: empty entries and
// entries with an empty name are dropped, at most `maxEntries` are kept, names are cut to 63 characters, numbers
// are read as atoi reads them (a missing or empty field is -1, "x" is 0), and an empty list accepts everything
// unless it is excluded (`^` alone excludes every device).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::formats {

inline constexpr size_t kMaxIbHcaEntries = 32;     // NCCL's MAX_IB_DEVS (src/transport/net_ib/common.h:112)
inline constexpr size_t kMaxSocketIfEntries = 16;  // NCCL's MAX_IFS (src/include/socket.h:25)
inline constexpr size_t kMaxIfNameChars = 63;      // NCCL's netIf.prefix[64] (src/include/utils.h:47)

struct NcclIfEntry {
  std::string name;
  int port = -1;  // -1: every port
  int rail = -1;  // -1: not given (rail and plane are NCCL 2.30's)
  int plane = -1;
};

struct NcclIfList {
  bool exclude = false;  // leading '^'
  bool exact = false;    // '=' (after any '^')
  std::vector<NcclIfEntry> entries;
};

struct NcclIfMatch {
  bool accepted = false;
  int entry = -1;  // the entry that selected the device (never set when excluding), else -1
};

// Pure; never fails (NCCL accepts every string).
NcclIfList parseNcclIfList(std::string_view text, size_t maxEntries);

// Whether a device `name` is the one `entry` names in `list`: the whole name with '=', a prefix without.
bool ncclIfNameMatches(const NcclIfList& list, const NcclIfEntry& entry, std::string_view name);

// Whether a device `name` (port `port`, -1 for interfaces without ports) passes the list.
NcclIfMatch matchNcclIfList(const NcclIfList& list, std::string_view name, int port);

// "^=mlx5_0:1:0:-1,mlx5_1" style text of a parsed list, for logs and tests.
std::string describeNcclIfList(const NcclIfList& list);

}  // namespace railtune::formats
