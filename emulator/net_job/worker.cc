#include "emulator/net_job/worker.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>

#include "common/record_files.h"
#include "emulator/logger.h"
#include "emulator/net_driver.h"
#include "emulator/net_job/collectives.h"
#include "emulator/net_job/connect.h"
#include "emulator/net_job/profile_collective.h"

namespace railtune::emu::netjob {
namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += "\n    " + line;
  return out;
}

// NCCL's net selection over NCCL_NET_PLUGIN; the job needs railtune to take the communicator.
std::shared_ptr<NetDriver> selectPlugin(const WorkerSpec& spec) {
  Loader loader(spec.behaviour, EnvSource::process());
  std::vector<NetCandidate> candidates = loader.openNetList();
  NetSelection selection = selectNet(loader, candidates, spec.commId);
  if (selection.driver == nullptr)
    throw std::runtime_error("the net plugin did not take the communicator (NCCL chose " +
                             (selection.chosenName.empty() ? std::string("nothing") : selection.chosenName) +
                             "):" + joined(selection.log));
  return selection.driver;
}

// The device whose name is the HCA the rail map gives this rank's GPU, as NCCL's topology would pick.
int findDevice(NetDriver& driver, const std::string& hca) {
  int n = 0;
  if (driver.devices(&n) != ncclSuccess) throw std::runtime_error("devices() failed");
  std::string names;
  for (int d = 0; d < n; ++d) {
    ncclNetProperties_v12_t props{};
    if (driver.getProperties(d, &props) != ncclSuccess)
      throw std::runtime_error("getProperties(" + std::to_string(d) + ") failed");
    const std::string name = props.name != nullptr ? props.name : "";
    if (name == hca) return d;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw std::runtime_error("the plugin offers no device named " + hca + " (it offers: " + names + ")");
}

std::vector<Edge> edgesOf(const WorkerSpec& spec) {
  std::vector<Edge> mine;
  for (const Edge& e : edgesFor(spec.collectives, spec.plan->ranks, spec.mnnvl))
    if (e.first == spec.rank || e.second == spec.rank) mine.push_back(e);
  return mine;
}

bool needsPlugin(const WorkerSpec& spec, const std::vector<Edge>& edges) {
  for (const auto& [from, to] : edges)
    if (!overNvlink(spec.plan->ranks[static_cast<size_t>(from)], spec.plan->ranks[static_cast<size_t>(to)], spec.mnnvl))
      return true;
  return false;
}

void countLinks(const RankLinks& links, RankResult& result) {
  for (const auto& [peer, link] : links.sendTo) ++(link->overPlugin() ? result.pluginSends : result.nvlinkSends);
  for (const auto& [peer, link] : links.recvFrom) ++(link->overPlugin() ? result.pluginRecvs : result.nvlinkRecvs);
}

// NCCL's nNodes: NVLink domains with MNNVL (a domain is one node), else hosts.
int nodeCount(const WorkerSpec& spec) {
  std::set<std::string> nodes;
  for (const RankPlace& r : spec.plan->ranks) nodes.insert(spec.mnnvl ? r.domain : std::to_string(r.hostIndex));
  return static_cast<int>(nodes.size());
}

std::unique_ptr<RankProfiler> startProfiler(const WorkerSpec& spec, const RankResult& result) {
  if (!spec.profile) return nullptr;
  const RankIdentity identity{spec.commId, nodeCount(spec), static_cast<int>(spec.plan->ranks.size()), spec.rank,
                              result.hca};
  return std::make_unique<RankProfiler>(spec.behaviour, identity);
}

// Every rank of the job reaches this point before any goes on: a file per rank in the handle folder,
// polled until all are there or the deadline passes. Timing starts after it, so that a rank's clock
// does not count the others' start-up (process start, plugin load, connection set-up).
void rankBarrier(const WorkerSpec& spec, const std::string& name) {
  const std::string prefix = spec.handleDir + "/barrier-" + name + "-";
  {
    std::ofstream mark(prefix + std::to_string(spec.rank));
    if (!mark) throw std::runtime_error("cannot write " + prefix + std::to_string(spec.rank));
  }
  const int nRanks = static_cast<int>(spec.plan->ranks.size());
  int next = 0;  // ranks below it have arrived
  while (next < nRanks) {
    if (std::filesystem::exists(prefix + std::to_string(next))) {
      ++next;
      continue;
    }
    if (Clock::now() > spec.transfer.deadline)
      throw TimeoutError("rank " + std::to_string(spec.rank) + ", barrier before timing " + name + ": rank " +
                         std::to_string(next) + " did not arrive before the job's timeout");
    const timespec pause{0, 500'000};
    nanosleep(&pause, nullptr);
  }
}

// --delay-us: the application's own work before the call (a slow data loader, a late rank), which is what a
// straggler is; the others wait for this rank inside the collective.
void lateEntry(double delayUs) {
  if (delayUs <= 0) return;
  const auto ns = static_cast<long long>(delayUs * 1000);
  timespec pause{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

void runAll(const WorkerSpec& spec, const RankLinks& links, RankProfiler* profiler, RankResult& result) {
  CollectiveContext ctx;
  ctx.rank = spec.rank;
  ctx.nRanks = static_cast<int>(spec.plan->ranks.size());
  ctx.ring = ringOrder(spec.plan->ranks);
  ctx.tree = treeLinks(spec.plan->ranks, spec.mnnvl);
  for (const auto& [peer, link] : links.sendTo) ctx.sendTo[peer] = link.get();
  for (const auto& [peer, link] : links.recvFrom) ctx.recvFrom[peer] = link.get();
  ctx.transfer = spec.transfer;
  for (Collective c : spec.collectives) {
    CollectiveResult out{collectiveName(c), spec.bytes, spec.iterations, 0, 0, spec.warmup};
    // Warm-up iterations: untimed, not profiled, numbered after the timed ones (their own data pattern).
    for (int i = 0; i < spec.warmup; ++i) runCollective(c, ctx, spec.bytes, spec.iterations + i);
    rankBarrier(spec, collectiveName(c));
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < spec.iterations; ++i) {
      lateEntry(spec.delayUs);  // before the call, hence before its profiler events: the rank enters late
      out.verifiedBytes +=
          profiler != nullptr ? profiler->run(c, ctx, spec.bytes, i) : runCollective(c, ctx, spec.bytes, i);
    }
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.collectives.push_back(out);
  }
}

void runConnected(const WorkerSpec& spec, RankResult& result) {
  const std::vector<Edge> edges = edgesOf(spec);
  // NCCL loads the profiler at communicator init, before the net plugin gets its callback.
  const std::unique_ptr<RankProfiler> profiler = startProfiler(spec, result);
  std::shared_ptr<NetDriver> driver;
  if (needsPlugin(spec, edges)) {
    driver = selectPlugin(spec);
    result.device = findDevice(*driver, result.hca);
  }
  {
    ConnectSpec cs{spec.rank,       &spec.plan->ranks,   edges,        spec.mnnvl,    spec.handleDir,
                   spec.nvlinkName, spec.nvlinkListenFd, driver.get(), result.device, spec.transfer.deadline};
    RankLinks links = connectRank(cs);
    if (spec.stallSendTo >= 0 && links.sendTo.contains(spec.stallSendTo))
      links.sendTo[spec.stallSendTo] = makeStalledLink(std::move(links.sendTo[spec.stallSendTo]), spec.stallAt);
    countLinks(links, result);
    runAll(spec, links, profiler.get(), result);
  }  // the links close their comms here, before finalize
  if (driver && driver->finalize() != ncclSuccess) throw std::runtime_error("finalize failed");
  if (profiler) profiler->finalize();  // the communicator's end: the profiler's files are complete
}

}  // namespace

RankResult runRank(const WorkerSpec& spec) {
  RankResult result;
  result.rank = spec.rank;
  result.pid = static_cast<int>(::getpid());
  result.startTag = processStartTag();
  const RankPlace& place = spec.plan->ranks[static_cast<size_t>(spec.rank)];
  result.host = spec.plan->hosts[static_cast<size_t>(place.hostIndex)].name;
  result.gpu = place.gpu;
  result.hca = place.hca;
  try {
    runConnected(spec, result);
  } catch (const std::exception& e) {
    result.error = e.what();
    result.failedAtUs = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count();
  }
  for (const std::string& line : takePluginLog())
    if (line.rfind("WARN ", 0) == 0) result.pluginWarnings.push_back(line);
  return result;
}

}  // namespace railtune::emu::netjob
