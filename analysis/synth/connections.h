// The network connections of a synthetic job: on every channel each rank sends to its ring successor
// and receives from its ring predecessor (placement.h), one connection each, on its GPU's NIC (a GPU
// with a NIC per plane alternates planes by channel). `--cross-rail K` makes K of the send connections
// leave through a NIC of another rail of the same host, exactly as the net plugin's
// RAILTUNE_NET_FAULT_MISBIND=FROM:TO does: the sender's connect record keeps the device NCCL chose but
// names the NIC actually used (its HCA, netdev, rail, plane), so rail_match is false; the receiver's
// record shows that NIC as its remote end (the handshake comes from it), on a rail other than its own.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/synth/placement.h"

namespace railtune::analysis::synth {

struct CrossRailConnection {
  int rank = 0;  // the sender
  int channel = 0;
  int device = 0;  // the device NCCL chose (the GPU's NIC)
  int actual = 0;  // the device the traffic left through
};

class ConnectionPlan {
 public:
  // Throws SynthError when K exceeds the send connections or the hosts have a single rail.
  ConnectionPlan(const JobPlacement& job, int channels, int crossRail, uint64_t seed);

  int channels() const { return channels_; }
  // The device NCCL chose for the rank's connections on `channel`, and the one its send leaves through.
  int chosenDevice(int rank, int channel) const;
  int sendDevice(int rank, int channel) const;
  const std::vector<CrossRailConnection>& crossRail() const { return crossRail_; }
  // Connection ids within the rank's path log ("conn"): sends first, then receives.
  uint64_t sendConnection(int channel) const { return static_cast<uint64_t>(channel) + 1; }
  uint64_t recvConnection(int channel) const { return static_cast<uint64_t>(channels_ + channel) + 1; }

 private:
  const JobPlacement& job_;
  int channels_;
  std::vector<CrossRailConnection> crossRail_;  // sorted by rank, then channel
};

}  // namespace railtune::analysis::synth
