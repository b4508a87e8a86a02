// Ring collectives (collectives.h): reduce-scatter, all-gather and their composition, all-reduce.
#include <stdexcept>
#include <string>

#include "emulator/net_job/collectives.h"
#include "emulator/net_job/collectives_internal.h"
#include "emulator/net_job/pattern.h"

namespace railtune::emu::netjob {

Link* linkTo(const std::map<int, Link*>& links, int peer, const char* what) {
  const auto it = links.find(peer);
  if (it == links.end()) throw std::logic_error(std::string("no link ") + what + " rank " + std::to_string(peer));
  return it->second;
}

std::string stepName(const RingStep& s, Collective c, int step, int peer) {
  return "rank " + std::to_string(s.ctx.rank) + ", " + collectiveName(c) + " iteration " + std::to_string(s.iteration) +
         ", step " + std::to_string(step) + ", from rank " + std::to_string(peer);
}

RingStep::RingStep(const CollectiveContext& context, int iter, uint32_t saltValue)
    : ctx(context), iteration(iter), salt(saltValue), n(context.nRanks) {
  while (pos < n && ctx.ring[static_cast<size_t>(pos)] != ctx.rank) ++pos;
  if (pos == n) throw std::logic_error("rank " + std::to_string(ctx.rank) + " is not on the ring");
  next = linkTo(ctx.sendTo, rankAt(1), "to");
  prev = linkTo(ctx.recvFrom, rankAt(-1), "from");
}

int RingStep::rankAt(int offset) const {
  return ctx.ring[static_cast<size_t>(((pos + offset) % n + n) % n)];
}

// Reduce-scatter over the ring, shifted so that the rank at each position ends with that position's
// rank's part: at step k it sends part (pos-k-1) and receives part (pos-k-2), which holds the sum of
// the k+1 ranks before it, checks it, and adds its own.
size_t ringReduceScatter(const RingStep& s, Collective c, std::vector<uint8_t>& buffer, size_t bytes) {
  std::vector<uint8_t> scratch, expected;
  size_t verified = 0;
  for (int k = 0; k + 1 < s.n; ++k) {
    const Segment out = segment(bytes, s.n, s.rankAt(-k - 1));
    const Segment in = segment(bytes, s.n, s.rankAt(-k - 2));
    scratch.assign(in.size, 0);
    const Transfer step[] = {{s.next, buffer.data() + out.offset, out.size}, {s.prev, scratch.data(), in.size}};
    runTransfers(step, s.ctx.transfer, stepName(s, c, k, s.rankAt(-1)));
    std::vector<int> contributors;
    for (int j = 1; j <= k + 1; ++j) contributors.push_back(s.rankAt(-j));
    expected.assign(in.size, 0);
    fillSum(expected, contributors, s.salt, in.offset);
    verifyBytes(scratch, expected, stepName(s, c, k, s.rankAt(-1)), in.offset);
    for (size_t i = 0; i < in.size; ++i)
      buffer[in.offset + i] = static_cast<uint8_t>(buffer[in.offset + i] + scratch[i]);
    verified += in.size;
  }
  return verified;
}

// All-gather of the reduced parts: at step k send part (pos-k), receive part (pos-k-1) in place.
size_t ringGatherParts(const RingStep& s, Collective c, std::vector<uint8_t>& buffer, size_t bytes,
                       const std::vector<uint8_t>& sum) {
  size_t verified = 0;
  for (int k = 0; k + 1 < s.n; ++k) {
    const Segment out = segment(bytes, s.n, s.rankAt(-k));
    const Segment in = segment(bytes, s.n, s.rankAt(-k - 1));
    const Transfer step[] = {{s.next, buffer.data() + out.offset, out.size},
                             {s.prev, buffer.data() + in.offset, in.size}};
    runTransfers(step, s.ctx.transfer, stepName(s, c, s.n - 1 + k, s.rankAt(-1)));
    verifyBytes(std::span<const uint8_t>(buffer).subspan(in.offset, in.size),
                std::span<const uint8_t>(sum).subspan(in.offset, in.size), stepName(s, c, s.n - 1 + k, s.rankAt(-1)),
                in.offset);
    verified += in.size;
  }
  return verified;
}

std::vector<uint8_t> totalSum(const CollectiveContext& ctx, uint32_t salt, size_t offset, size_t size) {
  std::vector<int> all;
  for (int r = 0; r < ctx.nRanks; ++r) all.push_back(r);
  std::vector<uint8_t> sum(size);
  fillSum(sum, all, salt, offset);
  return sum;
}

size_t ringAllReduce(const RingStep& s, size_t bytes) {
  std::vector<uint8_t> buffer(bytes);
  fillPattern(buffer, s.ctx.rank, s.salt, 0);
  size_t verified = ringReduceScatter(s, Collective::AllReduce, buffer, bytes);
  const std::vector<uint8_t> sum = totalSum(s.ctx, s.salt, 0, bytes);
  verified += ringGatherParts(s, Collective::AllReduce, buffer, bytes, sum);
  verifyBytes(buffer, sum, "rank " + std::to_string(s.ctx.rank) + ", all-reduce result", 0);
  return verified;
}

size_t ringReduceScatterOnly(const RingStep& s, size_t bytes) {
  std::vector<uint8_t> buffer(bytes);
  fillPattern(buffer, s.ctx.rank, s.salt, 0);
  const size_t verified = ringReduceScatter(s, Collective::ReduceScatter, buffer, bytes);
  const Segment mine = segment(bytes, s.n, s.ctx.rank);
  verifyBytes(std::span<const uint8_t>(buffer).subspan(mine.offset, mine.size),
              totalSum(s.ctx, s.salt, mine.offset, mine.size),
              "rank " + std::to_string(s.ctx.rank) + ", reduce-scatter result", mine.offset);
  return verified;
}

// All-gather: rank j's B bytes land at j x B in everyone's output.
size_t ringAllGather(const RingStep& s, size_t bytes) {
  std::vector<uint8_t> out(bytes * static_cast<size_t>(s.n)), expected(bytes);
  fillPattern(std::span<uint8_t>(out).subspan(static_cast<size_t>(s.ctx.rank) * bytes, bytes), s.ctx.rank, s.salt, 0);
  size_t verified = 0;
  for (int k = 0; k + 1 < s.n; ++k) {
    const size_t sendAt = static_cast<size_t>(s.rankAt(-k)) * bytes;
    const int owner = s.rankAt(-k - 1);
    const size_t recvAt = static_cast<size_t>(owner) * bytes;
    const Transfer step[] = {{s.next, out.data() + sendAt, bytes}, {s.prev, out.data() + recvAt, bytes}};
    runTransfers(step, s.ctx.transfer, stepName(s, Collective::AllGather, k, s.rankAt(-1)));
    fillPattern(expected, owner, s.salt, 0);
    verifyBytes(std::span<const uint8_t>(out).subspan(recvAt, bytes), expected,
                stepName(s, Collective::AllGather, k, s.rankAt(-1)) + " (rank " + std::to_string(owner) + "'s block)",
                recvAt);
    verified += bytes;
  }
  return verified;
}

}  // namespace railtune::emu::netjob
