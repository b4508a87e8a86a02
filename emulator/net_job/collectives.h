// The collectives an emulated rank runs over its links, on host buffers, each received byte checked
// against what its sender must have sent (pattern.h):
//   all-reduce      ring: reduce-scatter then all-gather (NCCL's ring algorithm), B bytes per rank
//   reduce-scatter  ring, B bytes in; rank r ends with part r of the sum
//   all-gather      ring, B bytes in, P x B out
//   all-to-all      part d of the B input bytes to rank d, from every rank to every other
//   tree            all-reduce over treeLinks(): reduce up to the root, broadcast down
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "emulator/net_job/links.h"
#include "emulator/net_job/schedule.h"
#include "emulator/net_job/transfer.h"

namespace railtune::emu::netjob {

struct CollectiveContext {
  int rank = 0;
  int nRanks = 0;
  std::vector<int> ring;          // ringOrder()
  std::vector<TreeLinks> tree;    // treeLinks()
  std::map<int, Link*> sendTo;    // peer -> link, for every edge this rank sends on
  std::map<int, Link*> recvFrom;  // peer -> link, for every edge this rank receives on
  TransferOptions transfer;
};

// Runs one iteration; returns the bytes received and verified. Throws VerifyError, LinkError,
// TimeoutError, std::logic_error when the context lacks a link the schedule needs.
size_t runCollective(Collective c, const CollectiveContext& ctx, size_t bytes, int iteration);

}  // namespace railtune::emu::netjob
