// The synthetic job's collective logs (synth_internal.h), rendered through formats/ exactly as the
// profiler plugin writes them: a header line, completed operations in order, and the watchdog's hang
// records, each with its flows' outstanding steps.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "eval/hangs/synth_internal.h"
#include "formats/profile_logs.h"

namespace railtune::eval::hangs {

namespace fp = formats::profile;

SimPlan channelPlan(const SynthModel& m, const SynthComm& comm, int channel) {
  const std::vector<int>& members = comm.members;
  const IsNetwork network = [&members](int a, int b) {
    return hostOf(members[static_cast<size_t>(a)]) != hostOf(members[static_cast<size_t>(b)]);
  };
  std::map<int, std::vector<int>> byHost;  // comm ranks by host, in member order
  for (size_t i = 0; i < members.size(); ++i) byHost[hostOf(members[i])].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> groups;
  for (auto& [host, ranks] : byHost) groups.push_back(ranks);
  if (channel % 2 == 1) std::reverse(groups.begin(), groups.end());
  if (comm.pattern == Pattern::Nvls) {
    std::vector<int> leaders;
    for (const auto& g : groups) leaders.push_back(g[static_cast<size_t>(channel) % g.size()]);
    return nvlsPlan(groups, leaders, network);
  }
  std::vector<int> order;
  for (auto& g : groups) {
    std::rotate(g.begin(), g.begin() + static_cast<long>(static_cast<size_t>(channel) % g.size()), g.end());
    order.insert(order.end(), g.begin(), g.end());
  }
  if (comm.pattern == Pattern::Tree) return treePlan(order, network, 8 + static_cast<int>(m.seed % 9));
  return ringPlan(order, network);
}

namespace {

constexpr int64_t kOpGapNs = 40'000'000;  // between operations of one rank

struct Writer {
  const SynthModel& m;
  std::mt19937_64 rng;
  int64_t t0 = 0, timeoutNs = 0, slowDelayNs = 0;
  std::vector<int64_t> bootNs;                                      // per host: realtime - monotonic
  std::vector<std::vector<std::pair<int64_t, std::string>>> lines;  // per world rank
  std::map<int, std::vector<std::vector<int>>> done;                // per stuck comm: per channel, per link

  explicit Writer(const SynthModel& model) : m(model), rng(model.seed * 7919 + 17) {
    t0 = 1'764'000'000'000'000'000 + static_cast<int64_t>(rng() % 1'000'000'000'000ull);
    timeoutNs = (10 + static_cast<int64_t>(rng() % 290)) * 1'000'000'000;
    slowDelayNs = timeoutNs + (5 + static_cast<int64_t>(rng() % 60)) * 1'000'000'000;
    for (int h = 0; h < m.hosts; ++h) bootNs.push_back(t0 - static_cast<int64_t>(rng() % 3'000'000'000'000'000ull));
    lines.resize(static_cast<size_t>(m.ranks));
  }

  bool targetGoneBefore(int comm) const {
    const SynthFault& f = m.fault;
    if (f.target < 0 || f.comm < 0 || m.kind == "slow-rank") return false;
    const SynthComm &a = m.comms[static_cast<size_t>(f.comm)], &b = m.comms[static_cast<size_t>(comm)];
    return a.order < b.order || (a.order == b.order && f.comm < comm);
  }

  int freezeAt(int comm, int from, int to, bool network) const {
    const SynthFault& f = m.fault;
    const bool gone = targetGoneBefore(comm);
    if (absentFrom(m, comm, from, gone) || absentFrom(m, comm, to, gone)) return 0;
    if (comm != f.comm) return -1;
    const bool stop = m.kind == "sigstop" || m.kind == "sigkill";
    if ((stop && (from == f.target || to == f.target)) || (network && from == f.linkFrom && to == f.linkTo) ||
        (network && f.nicRank >= 0 && (from == f.nicRank || to == f.nicRank)))
      return f.round;
    return -1;
  }

  const std::vector<std::vector<int>>& progress(int comm) {
    auto [it, added] = done.try_emplace(comm);
    if (!added) return it->second;
    const SynthComm& c = m.comms[static_cast<size_t>(comm)];
    for (int ch = 0; ch < c.channels; ++ch) {
      const SimPlan plan = channelPlan(m, c, ch);
      std::vector<int> freeze;
      for (const SimLink& l : plan.links)
        freeze.push_back(
            freezeAt(comm, c.members[static_cast<size_t>(l.from)], c.members[static_cast<size_t>(l.to)], l.network));
      it->second.push_back(simulate(plan, freeze));
    }
    return it->second;
  }

  Identity identityOf(int rank) const {
    return Identity{hostNameOf(m, rank), "synth-hangs-" + std::to_string(m.seed), m.pids[static_cast<size_t>(rank)]};
  }

  fp::OperationRecord baseRecord(int comm, int rank, int iteration) const {
    const SynthComm& c = m.comms[static_cast<size_t>(comm)];
    fp::OperationRecord r;
    r.comm = c.id;
    r.rank = static_cast<int>(std::find(c.members.begin(), c.members.end(), rank) - c.members.begin());
    r.nRanks = static_cast<int>(c.members.size());
    r.seq = static_cast<uint64_t>(iteration);
    r.operation.assign("AllReduce");
    r.bytes = 64ull << 20;
    r.datatype.assign("ncclBfloat16");
    r.algorithm.assign(c.pattern == Pattern::Tree ? "TREE" : c.pattern == Pattern::Nvls ? "NVLS" : "RING");
    r.protocol.assign("SIMPLE");
    r.channels = c.channels;
    r.timing = fp::TimingSource::Kernel;
    if (m.v7) r.userTag = static_cast<uint64_t>(c.order + 1), r.symColl = false;  // a profiler v7 binding
    return r;
  }

  fp::Timestamp at(int rank, int64_t realtimeNs) const {
    return fp::Timestamp{realtimeNs, realtimeNs - bootNs[static_cast<size_t>(hostOf(rank))]};
  }

  int64_t opStart(int comm, int iteration) const {
    const int perIteration = 3;
    int64_t t = t0 + (iteration * perIteration + m.comms[static_cast<size_t>(comm)].order) * kOpGapNs;
    if (m.kind == "slow-rank" &&
        (iteration > m.fault.iteration ||
         (iteration == m.fault.iteration &&
          m.comms[static_cast<size_t>(comm)].order > m.comms[static_cast<size_t>(m.fault.comm)].order)))
      t += slowDelayNs;
    return t;
  }

  void completion(int comm, int rank, int iteration, int64_t endNs, fp::CloseReason closedBy) {
    fp::OperationRecord r = baseRecord(comm, rank, iteration);
    const int64_t start = endNs - 2'000'000 - static_cast<int64_t>(rng() % 4'000'000);
    r.start = at(rank, start), r.end = at(rank, endNs), r.closedBy = closedBy;
    lines[static_cast<size_t>(rank)].push_back({endNs, fp::renderCollectiveLine(identityOf(rank), r)});
  }

  void addFlows(int comm, int rank, fp::OperationRecord& r) {
    const SynthComm& c = m.comms[static_cast<size_t>(comm)];
    const auto& channels = progress(comm);
    const int gpu = rank % kGpusPerHost;
    for (int ch = 0; ch < c.channels; ++ch) {
      const SimPlan plan = channelPlan(m, c, ch);
      for (size_t l = 0; l < plan.links.size(); ++l) {
        const SimLink& link = plan.links[l];
        const int from = c.members[static_cast<size_t>(link.from)], to = c.members[static_cast<size_t>(link.to)];
        if (!link.network || (from != rank && to != rank) || r.nFlows == fp::kMaxFlowsPerRecord) continue;
        fp::NetFlow& f = r.flows[r.nFlows++];
        const int doneSteps = channels[static_cast<size_t>(ch)][l];
        f.channel = ch, f.send = from == rank, f.peer = f.send ? link.to : link.from;
        f.steps = static_cast<uint32_t>(doneSteps);
        f.bytes = static_cast<uint64_t>(doneSteps) * (512ull << 10);
        f.outstanding = static_cast<uint32_t>(plan.nSteps - doneSteps);
        f.device = gpu, f.rail = gpu, f.plane = -1;
        f.hca.assign("mlx5_" + std::to_string(gpu));
      }
    }
    std::sort(r.flows.begin(), r.flows.begin() + r.nFlows, [](const fp::NetFlow& a, const fp::NetFlow& b) {
      return std::tie(a.channel, b.send, a.peer) < std::tie(b.channel, a.send, b.peer);
    });
  }

  // The watchdog's record: the operation started, and `timeout` later (at its next scan) still incomplete.
  int64_t hangRecord(int comm, int rank, int iteration) {
    fp::OperationRecord r = baseRecord(comm, rank, iteration);
    r.kind = fp::RecordKind::Hang;
    const int64_t start = opStart(comm, iteration) + static_cast<int64_t>(rng() % 1'000'000);
    r.stuckForNs = static_cast<uint64_t>(timeoutNs + static_cast<int64_t>(rng() % 1'000'000'000));
    r.start = at(rank, start), r.end = at(rank, start + static_cast<int64_t>(r.stuckForNs));
    addFlows(comm, rank, r);
    lines[static_cast<size_t>(rank)].push_back({r.end.realtimeNs, fp::renderCollectiveLine(identityOf(rank), r)});
    return r.end.realtimeNs;
  }

  void rankRecords(int rank, const std::vector<int>& comms, bool finalizeAfterHang) {
    const SynthFault& f = m.fault;
    const bool going = m.kind == "healthy" || m.kind == "slow-rank";
    const int iterations = going ? f.iteration + 3 : f.iteration + 1;
    for (int it = 0; it < iterations; ++it)
      for (const int comm : comms) {
        const int64_t end = opStart(comm, it) + 3'000'000 + static_cast<int64_t>(rng() % 2'000'000);
        if (it != f.iteration || m.kind == "healthy") {
          completion(comm, rank, it, end, fp::CloseReason::Events);
          continue;
        }
        if (m.kind == "slow-rank" && comm == f.comm) {
          if (rank != f.target) hangRecord(comm, rank, it);
          completion(comm, rank, it, end + slowDelayNs, fp::CloseReason::Events);
          continue;
        }
        if (m.stuckIn[static_cast<size_t>(rank)] == comm) {
          const int64_t written = hangRecord(comm, rank, it);
          if (finalizeAfterHang) completion(comm, rank, it, written + 30'000'000'000, fp::CloseReason::Finalize);
          return;
        }
        // The target from the fault on writes nothing more; a rank stuck earlier has returned already.
        if (rank == f.target && (comm == f.comm || targetGoneBefore(comm))) return;
        if (m.completes[static_cast<size_t>(comm)]) completion(comm, rank, it, end, fp::CloseReason::Events);
      }
  }

  // A stopped or killed process loses what its writer still held; a killed one may leave half a line.
  void loseTail(int rank) {
    auto& mine = lines[static_cast<size_t>(rank)];
    const size_t lost = std::min<size_t>(rng() % 4, mine.size() > 1 ? mine.size() - 1 : 0);
    mine.resize(mine.size() - lost);
    if (m.kind != "sigkill" || rng() % 2 == 0 || mine.empty()) return;
    std::string& last = mine.back().second;
    last.resize(1 + rng() % (last.size() - 1));
  }
};

}  // namespace

void renderSynthJob(const SynthModel& m, const std::string& dir, SynthJob& job) {
  Writer w(m);
  const bool finalize = m.kind == "sigkill" && w.rng() % 2 == 0;
  std::vector<std::vector<int>> commsOfRank(static_cast<size_t>(m.ranks));
  for (int order = 0; order <= 2; ++order)
    for (size_t c = 0; c < m.comms.size(); ++c)
      if (m.comms[c].order == order)
        for (const int r : m.comms[c].members) commsOfRank[static_cast<size_t>(r)].push_back(static_cast<int>(c));
  std::filesystem::create_directories(dir);
  for (int rank = 0; rank < m.ranks; ++rank) {
    w.rankRecords(rank, commsOfRank[static_cast<size_t>(rank)], finalize);
    auto& mine = w.lines[static_cast<size_t>(rank)];
    std::stable_sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    if (rank == m.fault.target && (m.kind == "sigstop" || m.kind == "sigkill")) w.loseTail(rank);
    const Identity identity = w.identityOf(rank);
    fp::appendHeaderLine(&text, identity, w.t0 - 1'000'000'000);
    text += '\n';
    for (const auto& [time, line] : mine) text += line + '\n';
    if (!mine.empty() && text.back() == '\n' && mine.back().second.back() != '}') text.pop_back();  // cut mid-write
    char tag[16];
    std::snprintf(tag, sizeof tag, "%04x", static_cast<unsigned>((m.seed + static_cast<uint64_t>(rank)) & 0xffff));
    const std::string path =
        (std::filesystem::path(dir) / fp::profileFileName(identity, fp::ProfileFile::Collectives, tag)).string();
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
    ++job.files;
    job.lines += mine.size() + 1;
  }
}

}  // namespace railtune::eval::hangs
