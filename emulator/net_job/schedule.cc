#include "emulator/net_job/schedule.h"

#include <algorithm>
#include <stdexcept>

namespace railtune::emu::netjob {
namespace {

struct CollectiveName {
  Collective collective;
  const char* name;
};
constexpr CollectiveName kNames[] = {{Collective::AllReduce, "all-reduce"},
                                     {Collective::AllGather, "all-gather"},
                                     {Collective::ReduceScatter, "reduce-scatter"},
                                     {Collective::AllToAll, "all-to-all"},
                                     {Collective::TreeAllReduce, "tree"}};

// The ranks of each host, in host order, each host's ranks in GPU order.
std::vector<std::vector<int>> ranksByHost(const std::vector<RankPlace>& ranks) {
  std::vector<std::vector<int>> hosts;
  for (const RankPlace& r : ranks) {
    if (static_cast<size_t>(r.hostIndex) >= hosts.size()) hosts.resize(static_cast<size_t>(r.hostIndex) + 1);
    hosts[static_cast<size_t>(r.hostIndex)].push_back(r.rank);
  }
  return hosts;
}

// The local position (GPU) at which the ring enters each host: neighbours differ, so that each host
// can leave from the position at which the next host is entered.
std::vector<size_t> entryPositions(const std::vector<std::vector<int>>& hosts) {
  const size_t n = hosts.size();
  size_t smallest = hosts.front().size();
  for (const auto& h : hosts) smallest = std::min(smallest, h.size());
  std::vector<size_t> entry(n, 0);
  if (n == 1 || smallest < 2) return entry;
  for (size_t i = 0; i < n; ++i) entry[i] = i % 2;
  if (n % 2 == 1 && smallest >= 3) entry[n - 1] = 2;
  return entry;
}

}  // namespace

const char* collectiveName(Collective c) {
  for (const auto& n : kNames)
    if (n.collective == c) return n.name;
  return "?";
}

std::optional<Collective> parseCollective(std::string_view name) {
  for (const auto& n : kNames)
    if (name == n.name) return n.collective;
  return std::nullopt;
}

std::vector<Collective> parseCollectiveList(const std::string& list) {
  std::vector<Collective> out;
  if (list == "all") {
    for (const auto& n : kNames) out.push_back(n.collective);
    return out;
  }
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    const auto c = parseCollective(item);
    if (!c)
      throw std::invalid_argument("unknown collective '" + item +
                                  "' (all-reduce, all-gather, reduce-scatter, all-to-all, tree, or all)");
    out.push_back(*c);
    start = comma + 1;
  }
  return out;
}

std::vector<int> ringOrder(const std::vector<RankPlace>& ranks) {
  const auto hosts = ranksByHost(ranks);
  const auto entry = entryPositions(hosts);
  std::vector<int> ring;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const auto& local = hosts[h];
    const size_t in = entry[h];
    size_t out = entry[(h + 1) % hosts.size()];
    if (out >= local.size() || out == in) out = local.size();  // no distinct exit: any order
    ring.push_back(local[in]);
    for (size_t i = 0; i < local.size(); ++i)
      if (i != in && i != out) ring.push_back(local[i]);
    if (out < local.size()) ring.push_back(local[out]);
  }
  return ring;
}

std::vector<TreeLinks> treeLinks(const std::vector<RankPlace>& ranks, bool mnnvl) {
  std::vector<std::vector<int>> nodes;  // ranks of each node, in rank order
  std::vector<std::string> keys;
  for (const RankPlace& r : ranks) {
    const std::string key = mnnvl ? "d:" + r.domain : "h:" + std::to_string(r.hostIndex);
    size_t n = 0;
    while (n < keys.size() && keys[n] != key) ++n;
    if (n == keys.size()) keys.push_back(key), nodes.emplace_back();
    nodes[n].push_back(r.rank);
  }
  std::vector<TreeLinks> links(ranks.size());
  auto join = [&](int parent, int child) {
    links[static_cast<size_t>(child)].parent = parent;
    links[static_cast<size_t>(parent)].children.push_back(child);
  };
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (n > 0) join(nodes[(n - 1) / 2].front(), nodes[n].front());
    for (size_t i = 1; i < nodes[n].size(); ++i) join(nodes[n][i - 1], nodes[n][i]);
  }
  return links;
}

Segment segment(size_t bytes, int parts, int index) {
  const auto edge = [&](int i) {
    return static_cast<size_t>(static_cast<unsigned __int128>(bytes) * static_cast<unsigned>(i) /
                               static_cast<unsigned>(parts));
  };
  return Segment{edge(index), edge(index + 1) - edge(index)};
}

bool overNvlink(const RankPlace& a, const RankPlace& b, bool mnnvl) {
  return a.hostIndex == b.hostIndex || (mnnvl && a.domain == b.domain);
}

std::set<Edge> edgesFor(const std::vector<Collective>& collectives, const std::vector<RankPlace>& ranks, bool mnnvl) {
  std::set<Edge> edges;
  const int p = static_cast<int>(ranks.size());
  for (Collective c : collectives) {
    if (c == Collective::AllToAll) {
      for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
          if (s != d) edges.insert({s, d});
    } else if (c == Collective::TreeAllReduce) {
      const auto links = treeLinks(ranks, mnnvl);
      for (int r = 0; r < p; ++r)
        if (links[static_cast<size_t>(r)].parent >= 0) {
          edges.insert({r, links[static_cast<size_t>(r)].parent});
          edges.insert({links[static_cast<size_t>(r)].parent, r});
        }
    } else {
      const auto ring = ringOrder(ranks);
      for (int i = 0; i < p; ++i) edges.insert({ring[static_cast<size_t>(i)], ring[static_cast<size_t>((i + 1) % p)]});
    }
  }
  return edges;
}

}  // namespace railtune::emu::netjob
