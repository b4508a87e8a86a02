#include "cli/demo_net.h"

#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "emulator/net_job/job_report.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/path_check.h"
#include "emulator/net_job/profile_summary.h"

namespace railtune::cli {
namespace {

namespace nj = emu::netjob;
namespace fs = std::filesystem;

constexpr int kRanks = 16;
constexpr int kRacks = 2;

// The first rank with a connection over the net plugin (with MNNVL only edges between racks have one),
// and the HCA of its host's next GPU: the NIC a miswired cable or a wrong binding would use instead.
struct Fault {
  int rank;
  std::string from, to;  // HCAs: the one the rank should use, the one it is misbound to
};

Fault chooseFault(const nj::JobOptions& options) {
  const fabric::RailMap map = fabric::parseRailMap(nj::railMapText(options.railMapPath), "default rail map");
  const nj::JobPlan plan = nj::makePlan(map, options.placement);
  for (const auto& [a, b] : nj::edgesFor(options.collectives, plan.ranks, options.mnnvl)) {
    if (nj::overNvlink(plan.ranks[static_cast<size_t>(a)], plan.ranks[static_cast<size_t>(b)], options.mnnvl)) continue;
    const nj::RankPlace& r = plan.ranks[static_cast<size_t>(a)];
    const fabric::RailMapHost* host = map.findHost(plan.hosts[static_cast<size_t>(r.hostIndex)].name);
    const auto& other = host->gpus[static_cast<size_t>((r.gpu + 1) % static_cast<int>(host->gpus.size()))];
    return Fault{a, r.hca, other.nics.front().hca};
  }
  throw std::runtime_error("the demo job has no connection over the net plugin");
}

int explain(const nj::PathLogs& logs, const nj::JobResult& result, int faultRank) {
  std::map<int, int> rankOfPid;
  for (const nj::RankResult& r : result.ranks) rankOfPid[r.pid] = r.rank;
  int problems = 0;
  std::set<int> offending;
  std::printf("\nCross-rail connections in the path logs (%zu connect records in %zu files):\n", logs.connects.size(),
              logs.files.size());
  for (const auto& c : logs.connects) {
    if (!nj::crossRail(c.record)) continue;
    std::printf("  %s%s\n", nj::describeConnection(c, rankOfPid).c_str(),
                nj::railMismatch(c.record) ? "  <- rail_match: false" : "");
    if (nj::railMismatch(c.record)) offending.insert(nj::writerRank(c, rankOfPid));
  }
  if (offending != std::set<int>{faultRank}) {
    std::fprintf(stderr, "railtune demo: expected rail_match: false on rank %d's connections only\n", faultRank);
    ++problems;
  }
  std::printf(
      "\nWhat this shows: with NCCL_CROSS_NIC=0 every connection between racks should leave and arrive on the\n"
      "same rail. Rank %d's NIC was miswired on purpose (RAILTUNE_NET_FAULT_MISBIND), so its connections left\n"
      "through another rail's NIC: its own records say rail_match: false, and its peers' records show a remote\n"
      "end on a different rail. On a real cluster, `rail_match: false` points at a GPU bound to the wrong NIC\n"
      "(topology file, NCCL_IB_HCA, cabling); the data still arrived, but it crossed the spine.\n",
      faultRank);
  return problems;
}

// The profiler's view of the same job: every rank's collective log holds one record per collective
// call, and the network summaries name the NICs the net plugin reported.
int showProfile(const nj::JobOptions& options, const nj::JobResult& result) {
  const nj::ProfileSummary summary = nj::readProfile(options.profileDir);
  std::fputs(nj::formatProfileSummary(summary, options.profileDir).c_str(), stdout);
  const size_t expected = options.collectives.size() * static_cast<size_t>(options.iterations) * result.ranks.size();
  size_t records = 0;
  for (const nj::CollectiveStats& c : summary.collectives) records += c.records;
  if (records == expected && !summary.nics.empty()) return 0;
  std::fprintf(stderr, "railtune demo: expected %zu collective records and NICs in the network summary, found %zu%s\n",
               expected, records, summary.nics.empty() ? " and no NIC" : "");
  return 1;
}

}  // namespace

int writeDemoNet(const fs::path& dir, const fs::path& netPlugin) {
  nj::JobOptions options;
  options.placement.ranks = kRanks;
  options.placement.racks = kRacks;
  options.collectives = {nj::Collective::AllReduce, nj::Collective::TreeAllReduce};
  options.bytes = 256 * 1024 + 3;  // odd on purpose: parts of unequal size
  options.iterations = 2;
  options.pluginPath = netPlugin.string();
  options.pathLogDir = (dir / "net" / "paths").string();
  options.jobId = "demo";
  options.profileDir = (dir / "profile").string();
  options.profilerPath = (netPlugin.parent_path() / "libnccl-profiler-railtune.so").string();  // beside the net plugin
  std::error_code ec;
  fs::remove_all(options.pathLogDir, ec);  // records of an earlier run would mix with this one's
  fs::remove_all(options.profileDir, ec);
  const Fault fault = chooseFault(options);
  options.faultRank = fault.rank;
  options.faultEnv = {{"RAILTUNE_NET_FAULT_MISBIND", fault.from + ":" + fault.to}};
  std::printf("\nNet plugin: %d ranks over %d racks of the built-in cluster; rank %d's %s misbound to %s\n", kRanks,
              kRacks, fault.rank, fault.from.c_str(), fault.to.c_str());
  const nj::JobResult result = nj::runJob(options);
  std::fputs(nj::formatJobReport(options, result).c_str(), stdout);
  if (!result.ok()) throw std::runtime_error("the emulated net job failed; see the errors above");
  const int problems = explain(nj::readPathLogs(options.pathLogDir), result, options.faultRank);
  return problems + showProfile(options, result);
}

}  // namespace railtune::cli
