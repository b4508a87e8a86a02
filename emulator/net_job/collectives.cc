// All-to-all, the tree all-reduce, and the dispatcher (collectives.h); the ring ones are in
// collectives_ring.cc.
#include "emulator/net_job/collectives.h"

#include <string>

#include "emulator/net_job/collectives_internal.h"
#include "emulator/net_job/pattern.h"

namespace railtune::emu::netjob {
namespace {

std::string where(const CollectiveContext& ctx, Collective c, int iteration, const std::string& what) {
  return "rank " + std::to_string(ctx.rank) + ", " + collectiveName(c) + " iteration " + std::to_string(iteration) +
         ", " + what;
}

// Every rank sends part d of its input to rank d and receives its own part of every other rank's.
size_t allToAll(const CollectiveContext& ctx, size_t bytes, int iteration, uint32_t salt) {
  std::vector<uint8_t> in(bytes);
  fillPattern(in, ctx.rank, salt, 0);
  const Segment mine = segment(bytes, ctx.nRanks, ctx.rank);
  std::vector<std::vector<uint8_t>> out(static_cast<size_t>(ctx.nRanks), std::vector<uint8_t>(mine.size));
  std::vector<Transfer> transfers;
  for (int peer = 0; peer < ctx.nRanks; ++peer) {
    if (peer == ctx.rank) continue;
    const Segment part = segment(bytes, ctx.nRanks, peer);
    transfers.push_back({linkTo(ctx.sendTo, peer, "to"), in.data() + part.offset, part.size});
    transfers.push_back({linkTo(ctx.recvFrom, peer, "from"), out[static_cast<size_t>(peer)].data(), mine.size});
  }
  runTransfers(transfers, ctx.transfer, where(ctx, Collective::AllToAll, iteration, "exchange"));
  std::vector<uint8_t> expected(mine.size);
  for (int peer = 0; peer < ctx.nRanks; ++peer) {
    if (peer == ctx.rank) continue;
    fillPattern(expected, peer, salt, mine.offset);
    verifyBytes(out[static_cast<size_t>(peer)], expected,
                where(ctx, Collective::AllToAll, iteration, "from rank " + std::to_string(peer)), 0);
  }
  return mine.size * static_cast<size_t>(ctx.nRanks - 1);
}

void subtree(const std::vector<TreeLinks>& tree, int root, std::vector<int>& out) {
  out.push_back(root);
  for (int child : tree[static_cast<size_t>(root)].children) subtree(tree, child, out);
}

// Reduce up: receive each child's subtree sum, check it, add it; send to the parent. Broadcast down:
// receive the total from the parent, check it, pass it to the children.
size_t treeAllReduce(const CollectiveContext& ctx, size_t bytes, int iteration, uint32_t salt) {
  const TreeLinks& me = ctx.tree[static_cast<size_t>(ctx.rank)];
  std::vector<uint8_t> acc(bytes), expected(bytes);
  fillPattern(acc, ctx.rank, salt, 0);
  std::vector<std::vector<uint8_t>> fromChildren(me.children.size(), std::vector<uint8_t>(bytes));
  std::vector<Transfer> up;
  for (size_t i = 0; i < me.children.size(); ++i)
    up.push_back({linkTo(ctx.recvFrom, me.children[i], "from"), fromChildren[i].data(), bytes});
  runTransfers(up, ctx.transfer, where(ctx, Collective::TreeAllReduce, iteration, "reduce from children"));
  size_t verified = 0;
  for (size_t i = 0; i < me.children.size(); ++i) {
    std::vector<int> below;
    subtree(ctx.tree, me.children[i], below);
    fillSum(expected, below, salt, 0);
    verifyBytes(fromChildren[i], expected,
                where(ctx, Collective::TreeAllReduce, iteration, "reduce from rank " + std::to_string(me.children[i])),
                0);
    for (size_t b = 0; b < bytes; ++b) acc[b] = static_cast<uint8_t>(acc[b] + fromChildren[i][b]);
    verified += bytes;
  }
  if (me.parent >= 0) {
    const Transfer toParent[] = {{linkTo(ctx.sendTo, me.parent, "to"), acc.data(), bytes}};
    runTransfers(toParent, ctx.transfer, where(ctx, Collective::TreeAllReduce, iteration, "reduce to parent"));
    const Transfer fromParent[] = {{linkTo(ctx.recvFrom, me.parent, "from"), acc.data(), bytes}};
    runTransfers(fromParent, ctx.transfer, where(ctx, Collective::TreeAllReduce, iteration, "broadcast from parent"));
    verified += bytes;
  }
  verifyBytes(acc, totalSum(ctx, salt, 0, bytes),
              where(ctx, Collective::TreeAllReduce, iteration,
                    me.parent >= 0 ? "broadcast from rank " + std::to_string(me.parent) : "result at the root"),
              0);
  std::vector<Transfer> down;
  for (int child : me.children) down.push_back({linkTo(ctx.sendTo, child, "to"), acc.data(), bytes});
  runTransfers(down, ctx.transfer, where(ctx, Collective::TreeAllReduce, iteration, "broadcast to children"));
  return verified;
}

}  // namespace

size_t runCollective(Collective c, const CollectiveContext& ctx, size_t bytes, int iteration) {
  const uint32_t salt = static_cast<uint32_t>(iteration) * 8u + static_cast<uint32_t>(c) + 1u;
  switch (c) {
    case Collective::AllReduce:
      return ringAllReduce(RingStep(ctx, iteration, salt), bytes);
    case Collective::ReduceScatter:
      return ringReduceScatterOnly(RingStep(ctx, iteration, salt), bytes);
    case Collective::AllGather:
      return ringAllGather(RingStep(ctx, iteration, salt), bytes);
    case Collective::AllToAll:
      return allToAll(ctx, bytes, iteration, salt);
    case Collective::TreeAllReduce:
      return treeAllReduce(ctx, bytes, iteration, salt);
  }
  throw std::logic_error("unknown collective");
}

}  // namespace railtune::emu::netjob
