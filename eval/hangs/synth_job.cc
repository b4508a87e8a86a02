// The synthetic hang scenarios (synth_job.h): the job's layout and communicators, what the fault stops,
// which operations each rank completed, and where each rank is stuck. synth_render.cc writes the logs.
#include "eval/hangs/synth_job.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>

#include "eval/hangs/synth_internal.h"

namespace railtune::eval::hangs {

const char* patternName(Pattern pattern) {
  return pattern == Pattern::Ring ? "ring" : pattern == Pattern::Tree ? "tree" : "NVLS-like";
}

namespace {

uint64_t mix(uint64_t x) {  // splitmix64: comm ids and per-kind streams from the seed
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t hashText(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

void buildLayout(SynthModel& m) {
  m.hosts = (m.ranks + kGpusPerHost - 1) / kGpusPerHost;
  for (int h = 0; h < m.hosts; ++h) {
    char name[32];
    std::snprintf(name, sizeof name, "r%02d-t%02d", h / 18, h % 18);
    m.hostNames.push_back(name);
  }
  std::set<std::pair<int, int>> used;  // pids are unique per host only, as on real machines
  for (int r = 0; r < m.ranks; ++r) {
    int pid = 0;
    do {
      pid = 1000 + static_cast<int>(m.rng() % 60000);
    } while (!used.insert({hostOf(r), pid}).second);
    m.pids.push_back(pid);
  }
}

void addComm(SynthModel& m, const std::string& name, int order, std::vector<int> members, Pattern pattern,
             int channels) {
  SynthComm c;
  c.id = mix(m.seed ^ hashText(name));
  c.name = name, c.order = order, c.members = std::move(members), c.pattern = pattern;
  c.channels = std::min(channels, static_cast<int>(c.members.size()));
  m.comms.push_back(std::move(c));
}

void buildComms(SynthModel& m) {
  if (m.ranks >= 16) {
    for (int h = 0; h < m.hosts; ++h) {
      std::vector<int> members;
      for (int g = 0; g < kGpusPerHost && h * kGpusPerHost + g < m.ranks; ++g) members.push_back(h * kGpusPerHost + g);
      addComm(m, "tp" + std::to_string(h), 0, members, Pattern::Ring, 1);
    }
    for (int g = 0; g < kGpusPerHost; ++g) {
      std::vector<int> members;
      for (int r = g; r < m.ranks; r += kGpusPerHost) members.push_back(r);
      addComm(m, "dp" + std::to_string(g), 1, members, Pattern::Ring, 2);
    }
  }
  std::vector<int> all(static_cast<size_t>(m.ranks));
  for (int r = 0; r < m.ranks; ++r) all[static_cast<size_t>(r)] = r;
  addComm(m, "world", 2, all, m.pattern, m.pattern == Pattern::Tree ? 2 : kGpusPerHost);
}

std::vector<int> commsOf(const SynthModel& m, int rank) {
  std::vector<int> out;
  for (size_t c = 0; c < m.comms.size(); ++c)
    if (std::find(m.comms[c].members.begin(), m.comms[c].members.end(), rank) != m.comms[c].members.end())
      out.push_back(static_cast<int>(c));
  return out;
}

// Network links of the faulty communicator's plans, as (from, to) world ranks, with each one's count.
std::vector<std::pair<int, int>> networkLinks(const SynthModel& m, int comm) {
  std::vector<std::pair<int, int>> out;
  const SynthComm& c = m.comms[static_cast<size_t>(comm)];
  for (int ch = 0; ch < c.channels; ++ch)
    for (const SimLink& l : channelPlan(m, c, ch).links)
      if (l.network) out.push_back({c.members[static_cast<size_t>(l.from)], c.members[static_cast<size_t>(l.to)]});
  return out;
}

// Ranks whose NIC carries links of the communicator to two peers or more: such a NIC shows as down when
// its links stop. (Two hosts joined only by each other's links: nothing tells which end went down.)
std::vector<int> nicsOfTwoPeers(const SynthModel& m, int comm) {
  std::map<int, std::set<int>> peers;  // a NIC is its rank's: one GPU, one NIC
  for (const auto& [from, to] : networkLinks(m, comm)) peers[from].insert(to), peers[to].insert(from);
  std::vector<int> out;
  for (const auto& [rank, others] : peers)
    if (others.size() >= 2) out.push_back(rank);
  return out;
}

int pickNetworkComm(SynthModel& m) {
  std::vector<int> candidates;
  for (size_t c = 0; c < m.comms.size(); ++c)
    if (!networkLinks(m, static_cast<int>(c)).empty()) candidates.push_back(static_cast<int>(c));
  if (candidates.empty()) throw std::logic_error("no communicator with network links");
  return candidates[m.rng() % candidates.size()];
}

void chooseFault(SynthModel& m) {
  SynthFault& f = m.fault;
  f.iteration = 1 + static_cast<int>(m.rng() % 3);
  if (m.kind == "healthy") return;
  if (m.kind == "link-one-direction") {
    f.comm = pickNetworkComm(m);
    const std::vector<std::pair<int, int>> links = networkLinks(m, f.comm);
    std::tie(f.linkFrom, f.linkTo) = links[m.rng() % links.size()];
  } else if (m.kind == "nic-down") {
    std::vector<std::pair<int, int>> choices;  // (comm, rank)
    for (size_t c = 0; c < m.comms.size(); ++c)
      for (const int rank : nicsOfTwoPeers(m, static_cast<int>(c))) choices.push_back({static_cast<int>(c), rank});
    if (choices.empty()) throw std::logic_error("no NIC carries links to two peers");
    std::tie(f.comm, f.nicRank) = choices[m.rng() % choices.size()];
  } else {
    f.target = static_cast<int>(m.rng() % static_cast<uint64_t>(m.ranks));
    const std::vector<int> comms = commsOf(m, f.target);
    f.comm = comms[m.rng() % comms.size()];
  }
  const SynthComm& c = m.comms[static_cast<size_t>(f.comm)];
  f.round = static_cast<int>(m.rng() % static_cast<uint64_t>(std::max(1, channelPlan(m, c, 0).nSteps / 2)));
}

bool stopsTarget(const std::string& kind) {
  return kind == "sigstop" || kind == "sigkill";
}

// Iteration `fault.iteration`, in the order every rank runs it: which operations complete, and where each
// rank that cannot go on is stuck.
void playFaultyIteration(SynthModel& m) {
  const SynthFault& f = m.fault;
  m.stuckIn.assign(static_cast<size_t>(m.ranks), -1);
  m.completes.assign(m.comms.size(), true);
  if (m.kind == "healthy") return;
  bool targetGone = false;
  for (int order = 0; order <= 2; ++order)
    for (size_t ci = 0; ci < m.comms.size(); ++ci) {
      const SynthComm& c = m.comms[ci];
      if (c.order != order) continue;
      const bool faulty = static_cast<int>(ci) == f.comm;
      bool anyAbsent = false;
      for (const int r : c.members) anyAbsent |= absentFrom(m, static_cast<int>(ci), r, targetGone);
      const bool completes =
          m.kind == "slow-rank" || (!anyAbsent && !(faulty && (stopsTarget(m.kind) || f.target < 0)));
      m.completes[ci] = completes;
      if (!completes)
        for (const int r : c.members)
          if (!absentFrom(m, static_cast<int>(ci), r, targetGone) && r != (faulty ? f.target : -1))
            m.stuckIn[static_cast<size_t>(r)] = static_cast<int>(ci);
      if (faulty && f.target >= 0 && m.kind != "slow-rank") targetGone = true;
    }
}

void fillTruth(SynthModel& m, SynthJob& job) {
  const SynthFault& f = m.fault;
  Truth& t = job.truth;
  if (m.kind == "healthy" || m.kind == "slow-rank") return;
  if (f.target >= 0) {
    t.kind = "rank", t.rank = f.target, t.host = hostNameOf(m, f.target), t.pid = m.pids[static_cast<size_t>(f.target)];
  } else if (f.nicRank >= 0) {
    t.kind = "nic", t.rank = f.nicRank, t.host = hostNameOf(m, f.nicRank),
    t.pid = m.pids[static_cast<size_t>(f.nicRank)];
    t.hca = "mlx5_" + std::to_string(f.nicRank % kGpusPerHost);
  } else {
    t.kind = "link", t.rank = f.linkFrom, t.toRank = f.linkTo;
    t.host = hostNameOf(m, f.linkFrom), t.pid = m.pids[static_cast<size_t>(f.linkFrom)];
    t.toHost = hostNameOf(m, f.linkTo), t.toPid = m.pids[static_cast<size_t>(f.linkTo)];
  }
}

}  // namespace

int hostOf(int rank) {
  return rank / kGpusPerHost;
}

const std::string& hostNameOf(const SynthModel& m, int rank) {
  return m.hostNames[static_cast<size_t>(hostOf(rank))];
}

// A rank that never reaches operation `comm` of the faulty iteration: stuck in an earlier one, or the
// target from the fault on (a stopped or killed target is present in the faulty operation itself, frozen).
bool absentFrom(const SynthModel& m, int comm, int rank, bool targetGone) {
  if (m.stuckIn.size() > static_cast<size_t>(rank) && m.stuckIn[static_cast<size_t>(rank)] >= 0 &&
      m.stuckIn[static_cast<size_t>(rank)] != comm)
    return true;
  if (rank != m.fault.target) return false;
  if (targetGone) return true;
  return comm == m.fault.comm && !stopsTarget(m.kind);
}

SynthJob writeSynthJob(const std::string& kind, uint64_t seed, int ranks, const std::string& dir) {
  static const std::set<std::string> kKinds{"sigstop",  "sigkill",   "never-enters", "link-one-direction",
                                            "nic-down", "slow-rank", "healthy"};
  // "link-one-direction-tree", "nic-down-tree": the same with a tree world (reduce and broadcast halves on
  // different links).
  const bool tree = kind.ends_with("-tree");
  const std::string base = tree ? kind.substr(0, kind.size() - 5) : kind;
  if (!kKinds.contains(base) || (tree && base != "link-one-direction" && base != "nic-down"))
    throw std::invalid_argument("unknown synthetic hang kind " + kind);
  SynthModel m;
  m.kind = base, m.seed = seed, m.ranks = ranks, m.v7 = seed % 2 == 1;
  m.rng.seed(mix(seed ^ hashText(kind)));
  const bool linkKind = base == "link-one-direction" || base == "nic-down";
  const Pattern patterns[] = {Pattern::Ring, Pattern::Tree, Pattern::Nvls};
  m.pattern = linkKind ? (m.rng() % 2 == 0 ? Pattern::Ring : Pattern::Nvls) : patterns[m.rng() % 3];
  // Two hosts of NVLS-like leaders are joined by each other's links only: a NIC there cannot be told
  // from the one at the other end (synth_job.cc, nicsOfTwoPeers).
  if (base == "nic-down" && ranks <= 2 * kGpusPerHost) m.pattern = Pattern::Ring;
  if (tree) m.pattern = Pattern::Tree;
  buildLayout(m);
  buildComms(m);
  chooseFault(m);
  playFaultyIteration(m);
  SynthJob job;
  fillTruth(m, job);
  if (m.v7)
    for (const SynthComm& c : m.comms) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(c.id));
      job.truth.commTags[hex] = static_cast<uint64_t>(c.order + 1);
    }
  renderSynthJob(m, dir, job);
  job.shape = std::to_string(ranks) + " ranks, " + patternName(m.pattern) + " world, " +
              std::to_string(m.comms.size()) + " comms" +
              (m.fault.comm >= 0 ? ", fault in " + m.comms[static_cast<size_t>(m.fault.comm)].name + " iteration " +
                                       std::to_string(m.fault.iteration)
                                 : "");
  return job;
}

}  // namespace railtune::eval::hangs
