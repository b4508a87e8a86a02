// Where the ranks of a synthetic job sit and whom they talk to over the network. Ranks fill the rail
// map's hosts in map order, one rank per GPU in GPU order (4 per GB300 tray). NCCL's ring is modelled as
// it runs on NVL72: with MNNVL a whole NVLink domain (a rack) is one NCCL node, so the ring leaves a node
// only between racks, and the rank with local index L in one rack talks to the rank with local index L in
// the next rack (the same GPU of the same tray position, hence the same rail). Without MNNVL each tray is
// a node and the ring goes from tray to tray. A ring of local index L visits only the nodes that have a
// rank L (a job's last rack may be partial) and wraps from the last such node to the first.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "formats/rail_map.h"

namespace railtune::analysis::synth {

class SynthError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One NIC of a host, at its device index: the position the net plugin gives it (the rail map's NICs in
// GPU order, then rail/plane order, each HCA once).
struct HostNic {
  std::string hca, netdev;
  int rail = -1, plane = -1;
};

struct PlacedHost {
  const formats::RailMapHost* entry = nullptr;
  int domain = 0;                            // index into JobPlacement::domains
  std::vector<HostNic> nics;                 // by device index
  std::vector<std::vector<int>> gpuDevices;  // per GPU (rail map order): its NICs' device indices
};

struct RankPlace {
  int host = 0;        // index into JobPlacement::hosts
  int gpu = 0;         // index into the host's GPUs (rail map order)
  int gpuIndex = 0;    // the rail map's GPU index (what the path log's local.gpu says)
  int localIndex = 0;  // position among the ranks of its NCCL node
};

struct JobPlacement {
  bool mnnvl = true;
  int rails = 0;
  std::vector<PlacedHost> hosts;     // hosts the job uses, in map order
  std::vector<std::string> domains;  // NVLink domains the job uses, in order of first use
  std::vector<RankPlace> ranks;
  std::vector<int> ringNext, ringPrev;  // per rank; -1 when its ring never leaves its NCCL node

  const formats::RailMapHost& hostOf(int rank) const {
    return *hosts[static_cast<size_t>(ranks[static_cast<size_t>(rank)].host)].entry;
  }
  // Device indices of the rank's GPU's NICs (at least one).
  const std::vector<int>& devicesOf(int rank) const;
  // The rail the rail map gives the rank's GPU: its first NIC's rail.
  int expectedRailOf(int rank) const;
  bool hasNetPeers(int rank) const { return ringNext[static_cast<size_t>(rank)] >= 0; }
};

// Throws SynthError when the map has fewer GPUs than `ranks`, or a GPU the job needs has no NIC.
JobPlacement placeJob(const formats::RailMap& map, int ranks, bool mnnvl);

}  // namespace railtune::analysis::synth
