// The compact cluster description most users write (a profile, how many racks, how many rails) and
// its expansion into the full model: hosts, GPUs, NICs with rails and planes, leaves per rail group,
// spines. The YAML reader fills ClusterSpec; tests and benchmarks may build one directly.
#pragma once

#include <string>
#include <vector>

#include "fabric/model.h"

namespace railtune::fabric {

struct RailGroupSpec {
  std::string name;                  // "rg0"
  std::vector<std::string> domains;  // NvlDomain names in this group
  std::string spine;                 // "" = the cluster's one spine
};

struct ClusterSpec {
  std::string name = "cluster";
  std::string profile = "gb300-nvl72";              // hardware profile name (fabric/profiles/)
  int domains = 1;                                  // NVLink domains (racks) of that profile
  std::string domainPattern = "rack{d:02}";         // domain names; {d} = domain index
  std::string hostPattern = "{domain}-tray{t:02}";  // host names; {domain}, {d}, {t} = tray index
  int trays = -1;                                   // hosts per domain; -1 = the profile's
  int rails = -1;                                   // -1 = the profile's NICs per host
  int planes = -1;                                  // -1 = the profile's default planes per NIC
  std::string linkLayer;                            // "" = the profile's
  int racksPerRailGroup = -1;                       // -1 = all domains in one rail group
  std::vector<RailGroupSpec> railGroups;            // explicit groups override racksPerRailGroup
  int leafSpeedGbps = -1;                           // -1 = NIC speed
  // Each NIC's GUID (the ASIC's system image GUID, shared by its planes): a pattern with {d}, {t}, {domain},
  // {h} (host index d x trays + t) and {r} (rail), hex widths as {h:04x}; it must give "0x" and 1 to 16 hex
  // digits, distinct per (host, rail). "" = unknown (0), for discovery or an override to fill in.
  std::string nicGuids;
  SourceLoc loc;
  // Where the expanded NICs are said to be declared: the line of the user's file that made them (the reader
  // sets the `planes`, `rails` or `profile` key's); empty = the profile's own lines.
  SourceLoc nicLoc;
};

// Throws std::invalid_argument naming the field (and spec.loc) on an impossible spec
// (unknown profile, more rails than NICs, a domain in two rail groups...).
Fabric expand(const ClusterSpec& spec);

// A profile's network device name for the fabric's link layer, by systemd's predictable naming: an IPoIB
// "ibp3s0" is "enp3s0np0" on Ethernet (RoCE), "ibp3s0f1" is "enp3s0f1np1", and back. Other names are kept.
std::string netdevForLinkLayer(const std::string& netdev, const std::string& linkLayer);

}  // namespace railtune::fabric
