// Shared by the collectives' files (collectives_ring.cc, collectives.cc); not a public interface.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "emulator/net_job/collectives.h"

namespace railtune::emu::netjob {

Link* linkTo(const std::map<int, Link*>& links, int peer, const char* what);

// A rank's place on the ring for one iteration of one collective.
struct RingStep {
  RingStep(const CollectiveContext& context, int iter, uint32_t saltValue);
  int rankAt(int offset) const;  // the rank `offset` positions after this one (negative: before)
  const CollectiveContext& ctx;
  int iteration;
  uint32_t salt;
  int n;
  int pos = 0;
  Link* next = nullptr;
  Link* prev = nullptr;
};

std::string stepName(const RingStep& s, Collective c, int step, int peer);
std::vector<uint8_t> totalSum(const CollectiveContext& ctx, uint32_t salt, size_t offset, size_t size);
size_t ringAllReduce(const RingStep& s, size_t bytes);
size_t ringReduceScatterOnly(const RingStep& s, size_t bytes);
size_t ringAllGather(const RingStep& s, size_t bytes);

}  // namespace railtune::emu::netjob
