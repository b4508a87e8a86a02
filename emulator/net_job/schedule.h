// The communication schedule of an emulated job, as NCCL builds it: a ring whose hops between hosts
// stay on one rail (NCCL_CROSS_NIC=0), a tree (a chain inside each node, a binary tree over nodes,
// joined at the nodes' first ranks), the segments a buffer is cut into, and which directed edges
// (sender -> receiver) a set of collectives needs. Pure functions, so the unit tests pin them.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emulator/net_job/job_plan.h"

namespace railtune::emu::netjob {

enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, TreeAllReduce };

const char* collectiveName(Collective c);  // "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "tree"
std::optional<Collective> parseCollective(std::string_view name);
// "all" or a comma list; throws std::invalid_argument naming an unknown entry.
std::vector<Collective> parseCollectiveList(const std::string& list);

// Ring positions -> rank. Hosts in order; inside each host the ring enters at one GPU and leaves at
// another, chosen so that the GPU it leaves from has the index of the GPU it enters on the next host:
// every hop between hosts joins GPUs of the same index, hence the same rail. (Impossible only for an
// odd number of hosts with two GPUs each: then the hop that closes the ring crosses.)
std::vector<int> ringOrder(const std::vector<RankPlace>& ranks);

struct TreeLinks {
  int parent = -1;  // -1: the root
  std::vector<int> children;
};
// A node is a host, or a whole NVLink domain when `mnnvl` (NCCL counts a domain as one node then).
std::vector<TreeLinks> treeLinks(const std::vector<RankPlace>& ranks, bool mnnvl);

// Part `index` of `parts` of a buffer of `bytes` (parts differ by at most one byte).
struct Segment {
  size_t offset = 0;
  size_t size = 0;
};
Segment segment(size_t bytes, int parts, int index);

// Edges between ranks of one host always stand for NVLink; between hosts of one NVLink domain too
// when `mnnvl`. Everything else goes over the net plugin.
bool overNvlink(const RankPlace& a, const RankPlace& b, bool mnnvl);

using Edge = std::pair<int, int>;  // sender rank, receiver rank
std::set<Edge> edgesFor(const std::vector<Collective>& collectives, const std::vector<RankPlace>& ranks, bool mnnvl);

}  // namespace railtune::emu::netjob
