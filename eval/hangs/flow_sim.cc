// The links' progress (flow_sim.h): synchronous rounds, each link one step at most per round.
#include "eval/hangs/flow_sim.h"

#include <algorithm>

namespace railtune::eval::hangs {

SimPlan ringPlan(const std::vector<int>& order, const IsNetwork& network) {
  SimPlan plan;
  const int n = static_cast<int>(order.size());
  plan.nSteps = 2 * (n - 1);
  for (int i = 0; i < n; ++i) {
    SimLink link{order[static_cast<size_t>(i)], order[static_cast<size_t>((i + 1) % n)], true, {}};
    link.network = network(link.from, link.to);
    link.deps = {{(i + n - 1) % n, 1}, {(i + 1) % n, kNcclSteps}};
    plan.links.push_back(std::move(link));
  }
  return plan;
}

SimPlan treePlan(const std::vector<int>& order, const IsNetwork& network, int nSteps) {
  SimPlan plan;
  plan.nSteps = nSteps;
  const int n = static_cast<int>(order.size());
  // Links 2(i-1): up from node i to its parent; 2(i-1)+1: down from the parent to i.
  auto up = [](int i) { return 2 * (i - 1); };
  auto down = [](int i) { return 2 * (i - 1) + 1; };
  auto children = [n](int i) {
    std::vector<int> c;
    for (int k : {2 * i + 1, 2 * i + 2})
      if (k < n) c.push_back(k);
    return c;
  };
  for (int i = 1; i < n; ++i) {
    const int parent = (i - 1) / 2;
    const int me = order[static_cast<size_t>(i)], p = order[static_cast<size_t>(parent)];
    SimLink u{me, p, network(me, p), {}};
    for (int c : children(i)) u.deps.push_back({up(c), 0});
    if (parent != 0) u.deps.push_back({up(parent), kNcclSteps});
    SimLink d{p, me, network(p, me), {}};
    if (parent == 0)
      for (int c : children(0)) d.deps.push_back({up(c), 0});
    else
      d.deps.push_back({down(parent), 0});
    for (int c : children(i)) d.deps.push_back({down(c), kNcclSteps});
    plan.links.push_back(std::move(u));
    plan.links.push_back(std::move(d));
  }
  return plan;
}

SimPlan nvlsPlan(const std::vector<std::vector<int>>& groups, const std::vector<int>& leaders,
                 const IsNetwork& network) {
  SimPlan plan;
  const int g = static_cast<int>(groups.size());
  plan.nSteps = std::max(2 * (g - 1), 2);
  // The leaders' ring first (links 0..g-1, leader i -> leader i+1), then each group's members up and down.
  for (int i = 0; i < g && g > 1; ++i) {
    const int from = leaders[static_cast<size_t>(i)], to = leaders[static_cast<size_t>((i + 1) % g)];
    plan.links.push_back(SimLink{from, to, network(from, to), {{(i + g - 1) % g, 1}, {(i + 1) % g, kNcclSteps}}});
  }
  const int ring = static_cast<int>(plan.links.size());
  for (int i = 0; i < g; ++i) {
    for (const int member : groups[static_cast<size_t>(i)]) {
      const int leader = leaders[static_cast<size_t>(i)];
      if (member == leader) continue;
      const int upLink = static_cast<int>(plan.links.size());
      SimLink upward{member, leader, network(member, leader), {}};
      if (ring > 0) upward.deps.push_back({i, kNcclSteps});
      plan.links.push_back(std::move(upward));
      if (ring > 0) plan.links[static_cast<size_t>(i)].deps.push_back({upLink, 0});
      SimLink downward{leader, member, network(leader, member), {{upLink, 0}}};
      if (ring > 0) downward.deps.push_back({(i + g - 1) % g, 0});
      plan.links.push_back(std::move(downward));
    }
  }
  return plan;
}

std::vector<int> simulate(const SimPlan& plan, const std::vector<int>& freezeAt) {
  const size_t n = plan.links.size();
  std::vector<int> done(n, 0), next(n, 0);
  const int maxRounds = 4 * plan.nSteps + static_cast<int>(n) + 16;
  for (int round = 0; round < maxRounds; ++round) {
    bool moved = false;
    for (size_t l = 0; l < n; ++l) {
      next[l] = done[l];
      if (done[l] >= plan.nSteps || (freezeAt[l] >= 0 && round >= freezeAt[l])) continue;
      const int step = done[l];
      bool ready = true;
      for (const auto& [dep, lead] : plan.links[l].deps)
        if (done[static_cast<size_t>(dep)] < std::min(step + 1 - lead, plan.nSteps)) {
          ready = false;
          break;
        }
      if (ready) next[l] = step + 1, moved = true;
    }
    done.swap(next);
    if (!moved) break;  // a freeze still to come only stops links: nothing will move again
  }
  return done;
}

}  // namespace railtune::eval::hangs
