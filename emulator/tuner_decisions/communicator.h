// The communicator `railtune tuner decisions` describes, as NCCL would see it: nNodes is NCCL's value
// (with MNNVL a whole NVLink domain, an NVL72 rack, is one node; without it each host is one), and the
// NVLink-domain info NCCL passes a v5+ tuner is what its initNvlDomainInfo fills in: one domain per node,
// nRanks/nNodes ranks in each.
#pragma once

#include <string>

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::emu {

struct CommunicatorRequest {
  std::string profile = "gb300-nvl72";  // a built-in hardware profile (fabric/profiles/)
  int nodes = 1;
  int ranks = 1;
  std::string mnnvl;  // "on", "off", or "" for the profile's default (on where a domain holds several hosts)
};

struct Communicator {
  std::string profile;
  bool mnnvl = false;
  int gpusPerHost = 0;
  int gpusPerDomain = 0;
  int nicsPerHost = 0;         // the profile's compute NICs per host
  int nicSpeedMbps = 0;        // per NIC, all planes together (the profile's nicSpeedMbps)
  ncclmodel::CommShape shape;  // nRanks, nNodes as NCCL counts them
  int ranksPerNode = 0;        // = min and max ranks per NVLink domain
};

// Checks the request against the profile and returns the communicator. Throws std::invalid_argument
// naming the option at fault: an unknown profile, ranks not divisible by nodes, more ranks per node
// than a node of the profile holds (its GPUs per NVLink domain with MNNVL, per host without).
Communicator resolveCommunicator(const CommunicatorRequest& request);

// "72 ranks on 1 node (MNNVL on: 1 NVLink domain of 72 ranks)"
std::string describeCommunicator(const Communicator& comm);

}  // namespace railtune::emu
