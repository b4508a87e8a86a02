// Where the ranks of an emulated net job run: which host of the rail map, which GPU, which HCA, which
// NVLink domain, and the loopback address each NIC of each chosen host binds (so that every HCA is a
// distinct local endpoint and traffic really leaves through the device the plugin picked).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/rail_map.h"

namespace railtune::emu::netjob {

struct PlacementOptions {
  int ranks = 8;
  int racks = 0;                   // spread the hosts over this many NVLink domains; 0 = fill in map order
  std::vector<std::string> hosts;  // explicit host names, in rank order; empty = chosen by `racks`
};

struct RankPlace {
  int rank = 0;
  int hostIndex = 0;  // into JobPlan::hosts
  int gpu = 0;        // LOCAL_RANK
  std::string hca;    // the NIC the rail map gives this GPU (its first rail and plane)
  int rail = -1;
  std::string domain;  // the host's NVLink domain
};

struct PlannedHost {
  std::string name;
  std::string domain;
  std::map<std::string, std::string> addresses;  // netdev -> 127.a.b.c, one per NIC of the host
};

struct JobPlan {
  int gpusPerHost = 0;
  std::vector<PlannedHost> hosts;  // the chosen hosts, in rank order
  std::vector<RankPlace> ranks;
  std::vector<std::string> notes;  // what the user should know (NICs left without an address...)
};

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Rank r runs on chosen host r / gpusPerHost with GPU r % gpusPerHost. Throws PlanError naming what
// does not fit (too few hosts or racks, a host the map lacks, a rank's NIC without a netdev).
JobPlan makePlan(const formats::RailMap& map, const PlacementOptions& options);

// The address file (net_plugin/devices/addresses.h) of one planned host: "<netdev> <IPv4>" per line.
std::string addressFileText(const PlannedHost& host);

}  // namespace railtune::emu::netjob
