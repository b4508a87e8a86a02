// Port speed, path MTU and GID choice, as NCCL's IB transport makes them. See ib_port.h.
#include "net_plugin/transports/ib/ib_port.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "net_plugin/devices/sysfs.h"

namespace railtune::net::ib {
namespace {

// NCCL's ibvSpeeds and ibvWidths (src/transport/net_ib/init.cc:112-140@v2.30.7): a lane's Mb/s by the
// lowest set bit of the speed code, lanes by the lowest set bit of the width code; no bit set -> the last.
constexpr int kLaneMbps[] = {2500, 5000, 10000, 10000, 14000, 25000, 50000, 100000, 200000};
constexpr int kLanes[] = {1, 4, 8, 12, 2};

template <size_t N>
int byLowestBit(unsigned code, const int (&table)[N]) {
  size_t bit = 0;
  while (bit < N - 1 && (code & (1u << bit)) == 0) ++bit;
  return table[bit];
}

uint32_t word(const IbvGid& gid, int i) {
  uint32_t w = 0;
  std::memcpy(&w, gid.raw + 4 * i, 4);
  return w;  // network order, compared with htonl constants as NCCL does
}

bool configuredGid(const IbvGid& gid) {
  const uint32_t trailer = word(gid, 1) | word(gid, 2) | word(gid, 3);
  return !((word(gid, 0) | trailer) == 0 || (word(gid, 0) == htonl(0xfe800000) && trailer == 0));
}

bool linkLocalGid(const IbvGid& gid) {
  return word(gid, 0) == htonl(0xfe800000) && word(gid, 1) == 0;
}

bool validGid(const IbvGid& gid) {
  return configuredGid(gid) && !linkLocalGid(gid);
}

struct AddressRange {
  int family = AF_INET;
  unsigned char bytes[16] = {};
  int prefix = 0;  // 0: every address matches
};

// NCCL's envIbAddrRange: "addr/len"; an address that does not parse, or no '/', means no range.
AddressRange parseRange(const std::string& text, int family) {
  AddressRange range;
  range.family = family;
  const size_t slash = text.find('/');
  if (text.empty() || slash == std::string::npos) return range;
  if (inet_pton(family, text.substr(0, slash).c_str(), range.bytes) != 1) return range;
  const int bits = static_cast<int>(std::strtol(text.c_str() + slash + 1, nullptr, 10));
  range.prefix = (bits < 0 || bits > (family == AF_INET ? 32 : 128)) ? 0 : bits;
  return range;
}

// NCCL's matchGidAddrPrefix: IPv4 compares the GID's last word, IPv6 the leading bits.
bool inRange(const AddressRange& range, const IbvGid& gid) {
  if (range.prefix == 0) return true;
  if (range.family == AF_INET) {
    const uint32_t mask = htonl(range.prefix == 32 ? 0xffffffffu : ~((1u << (32 - range.prefix)) - 1));
    uint32_t base = 0;
    std::memcpy(&base, range.bytes, 4);
    return ((base ^ word(gid, 3)) & mask) == 0;
  }
  int bits = range.prefix;
  for (int i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    const unsigned mask = bits >= 8 ? 0xffu : (0xffu << (8 - bits)) & 0xffu;
    if (((range.bytes[i] ^ gid.raw[i]) & mask) != 0) return false;
  }
  return true;
}

}  // namespace

int portSpeedMbps(const IbvPortAttr& attr) {
  const unsigned speed = attr.activeSpeedEx != 0 ? attr.activeSpeedEx : attr.activeSpeed;
  if (speed == 0 && attr.activeWidth == 0) return 0;
  return byLowestBit(speed, kLaneMbps) * byLowestBit(attr.activeWidth, kLanes);
}

int pathMtu(int local, int remote) {
  return local < remote ? local : remote;
}

int mtuBytes(int mtu) {
  return mtu >= kIbvMtu256 && mtu <= kIbvMtu4096 ? 128 << mtu : 0;
}

GidOptions gidOptionsFrom(const ncclib::NcclIbEnv& env, int policyGidIndex) {
  GidOptions options;
  options.gidIndex = policyGidIndex;
  options.family = env.addressFamilyIpv6 ? AF_INET6 : AF_INET;
  options.range = env.addressRange;
  options.roceVersion = static_cast<int>(env.roceVersion.value);
  options.routableFlidGidIndex = static_cast<int>(env.routableFlidGidIndex.value);
  return options;
}

int gidFamily(const IbvGid& gid) {
  const bool mapped = (word(gid, 0) | word(gid, 1) | (word(gid, 2) ^ htonl(0x0000ffff))) == 0;
  const bool mappedMulticast =
      word(gid, 0) == htonl(0xff0e0000) && (word(gid, 1) | (word(gid, 2) ^ htonl(0x0000ffff))) == 0;
  return mapped || mappedMulticast ? AF_INET : AF_INET6;
}

std::string gidText(const IbvGid& gid) {
  char text[40];
  for (int i = 0; i < 8; ++i)
    std::snprintf(text + 5 * i, sizeof text - 5 * static_cast<size_t>(i), i < 7 ? "%02x%02x:" : "%02x%02x",
                  gid.raw[2 * i], gid.raw[2 * i + 1]);
  return text;
}

GidChoice chooseGid(const IbvPortAttr& port, const GidOptions& options, const GidReader& readGid,
                    const GidTypeReader& readType) {
  GidChoice choice;
  auto read = [&](int index) {
    IbvGid gid{};
    if (!readGid(index, gid)) throw std::runtime_error("cannot read GID " + std::to_string(index));
    return gid;
  };
  if (port.linkLayer == kIbvLinkLayerInfiniband) {
    const int routable = options.routableFlidGidIndex;
    if (routable >= 0 && routable < port.gidTblLen) {
      const IbvGid gid = read(routable);
      if (gid.raw[4] != 0 || gid.raw[5] != 0) {
        choice.index = routable;
        choice.gid = gid;
        choice.why = "IB GID " + std::to_string(routable) + " (routable FLID)";
        return choice;
      }
    }
    choice.gid = read(0);
    choice.why = "IB GID 0";
    return choice;
  }
  if (options.gidIndex >= 0) {
    choice.index = options.gidIndex;
    choice.gid = read(options.gidIndex);
    choice.why = "RoCE GID " + std::to_string(options.gidIndex) + " (NCCL_IB_GID_INDEX)";
    return choice;
  }
  // NCCL's scan (ncclUpdateGidIndex): keep the best so far, starting at 0.
  const AddressRange range = parseRange(options.range, options.family);
  int best = 0;
  IbvGid bestGid = read(0);
  for (int next = 1; next < port.gidTblLen; ++next) {
    IbvGid candidate{};
    if (!readGid(next, candidate)) continue;
    const int candidateFamily = gidFamily(candidate);
    const bool matches = inRange(range, candidate);
    if (candidateFamily != gidFamily(bestGid) && candidateFamily == options.family && matches) {
      best = next;
      bestGid = candidate;
      continue;
    }
    if (candidateFamily != options.family || !validGid(candidate) || !matches) continue;
    const std::optional<int> candidateVersion = readType(next);
    if (!candidateVersion) continue;  // hidden in a container: NCCL moves on
    const std::optional<int> bestVersion = readType(best);
    if ((bestVersion != candidateVersion || !validGid(bestGid)) && *candidateVersion == options.roceVersion) {
      best = next;
      bestGid = candidate;
    }
  }
  choice.index = best;
  choice.gid = bestGid;
  const std::optional<int> version = readType(best);
  choice.why = std::string("RoCE") + (version ? " v" + std::to_string(*version) : std::string()) +
               (gidFamily(bestGid) == AF_INET ? " IPv4" : " IPv6") + " GID " + std::to_string(best);
  return choice;
}

GidTypeReader sysfsGidTypes(const std::string& root, const std::string& device, int port) {
  return [root, device, port](int index) -> std::optional<int> {
    const std::optional<std::string> type =
        readSysfsLine(underRoot(root, "/sys/class/infiniband/" + device + "/ports/" + std::to_string(port) +
                                          "/gid_attrs/types/" + std::to_string(index)));
    if (!type) return std::nullopt;
    if (type->rfind("IB/RoCE v1", 0) == 0 || type->rfind("RoCE v1", 0) == 0) return 1;
    if (type->rfind("RoCE v2", 0) == 0) return 2;
    return std::nullopt;
  };
}

}  // namespace railtune::net::ib
