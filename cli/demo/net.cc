#include "cli/demo/net.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "analysis/paths/path_check.h"
#include "analysis/paths/path_load.h"
#include "analysis/paths/path_render.h"
#include "analysis/paths/path_report.h"
#include "emulator/net_job/job_report.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/plugin_warnings.h"
#include "emulator/net_job/profile_summary.h"

namespace railtune::cli {
namespace {

namespace nj = emu::netjob;
namespace paths = analysis::paths;
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
  const formats::RailMap map = formats::parseRailMap(nj::railMapText(options.railMapPath), "default rail map");
  const nj::JobPlan plan = nj::makePlan(map, options.placement);
  for (const auto& [a, b] : nj::edgesFor(options.collectives, plan.ranks, options.mnnvl)) {
    if (nj::overNvlink(plan.ranks[static_cast<size_t>(a)], plan.ranks[static_cast<size_t>(b)], options.mnnvl)) continue;
    const nj::RankPlace& r = plan.ranks[static_cast<size_t>(a)];
    const formats::RailMapHost* host = map.findHost(plan.hosts[static_cast<size_t>(r.hostIndex)].name);
    const auto& other = host->gpus[static_cast<size_t>((r.gpu + 1) % static_cast<int>(host->gpus.size()))];
    return Fault{a, r.hca, other.nics.front().hca};
  }
  throw std::runtime_error("the demo job has no connection over the net plugin");
}

// Whether a violation is about one of the injected rank's connections (its own record or its peer's).
bool aboutRank(const paths::Finding& finding, const paths::JobPaths& job, int rank) {
  for (long index : finding.connections) {
    const paths::Connection& c = job.connections[static_cast<size_t>(index)];
    if (c.local.rank == rank || c.remote.rank == rank) return true;
  }
  return false;
}

// `railtune paths check` and `railtune paths render` on the job's path logs, as a user runs them. The
// check must fail on the injected misbinding and on nothing else: every violation is a cross-rail
// connection of the misbound rank.
int checkAndRender(const fs::path& dir, const nj::JobOptions& options, int faultRank) {
  const formats::RailMap map = formats::parseRailMap(nj::railMapText(options.railMapPath), "default rail map");
  const paths::LoadedPaths loaded = paths::loadPathLogs(options.pathLogDir, {.job = options.jobId});
  if (loaded.jobs.size() != 1) {
    std::fprintf(stderr, "railtune demo: expected the path logs of job %s in %s\n", options.jobId.c_str(),
                 options.pathLogDir.c_str());
    return 1;
  }
  const paths::JobPaths& job = loaded.jobs.front();
  const std::vector<paths::CheckedJob> checked{{&job, paths::checkPaths(job, &map)}};
  const paths::CheckReport& report = checked.front().report;
  std::printf("\n$ railtune paths check %s\n", options.pathLogDir.c_str());
  std::fputs(paths::renderDiagnostics(checked, loaded.diagnostics).c_str(), stderr);
  std::fputs(paths::renderCheckTable(checked).c_str(), stdout);
  const fs::path page = dir / "net" / "paths.html";
  std::ofstream out(page, std::ios::binary | std::ios::trunc);
  out << paths::renderPaths(paths::buildPathGraph(job, report, &map), report, {});
  out.close();
  if (!out) {
    std::fprintf(stderr, "railtune demo: cannot write %s\n", page.c_str());
    return 1;
  }
  int problems = 0;
  for (const paths::Finding& f : report.findings) {
    if (f.severity == paths::Severity::Violation &&
        (f.kind != paths::FindingKind::CrossRail || !aboutRank(f, job, faultRank)))
      ++problems;
  }
  if (report.violations() == 0 || problems > 0) {
    std::fprintf(stderr, "railtune demo: expected cross-rail violations on rank %d's connections only\n", faultRank);
    return 1;
  }
  std::printf(
      "\nExpected finding: `railtune paths check` exits 1 on this job (%d violations), as it would gate a real\n"
      "job. With NCCL_CROSS_NIC=0 every connection between racks should leave and arrive on the same rail.\n"
      "Rank %d's NIC was miswired on purpose (RAILTUNE_NET_FAULT_MISBIND), so its connections left through\n"
      "another rail's NIC: its own records say rail_match: false, and its peers' records show a remote end on\n"
      "a different rail. On a real cluster this points at a GPU bound to the wrong NIC (topology file,\n"
      "NCCL_IB_HCA, cabling); the data still arrived, but it crossed the spine.\n"
      "Picture (open in a browser; the misbound links are red and dashed): %s\n",
      report.violations(), faultRank, page.c_str());
  return 0;
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

int writeDemoNet(const fs::path& dir, const fs::path& netPlugin, size_t& pluginWarnings) {
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
  std::printf(
      "\nNet plugin paths (an emulated job): %d ranks over %d racks of the built-in cluster; rank %d's %s misbound "
      "to %s\n",
      kRanks, kRacks, fault.rank, fault.from.c_str(), fault.to.c_str());
  const nj::JobResult result = nj::runJob(options);
  std::fflush(stdout);
  std::fputs(nj::formatPluginWarnings(result.pluginWarnings).c_str(), stderr);
  pluginWarnings += result.pluginWarnings.size();
  std::fputs(nj::formatJobReport(options, result).c_str(), stdout);
  // The job's timings are the emulator's (see the report's note); the demo runs no benchmark of the
  // plugin, so it has no figure of the plugin's own speed to print.
  std::printf(
      "Net plugin speed: not measured by the demo (bench/run_net_bench.sh runs bench_net_socket; "
      "docs/performance.md)\n");
  if (!result.ok()) throw std::runtime_error("the emulated net job failed; see the errors above");
  return checkAndRender(dir, options, options.faultRank) + showProfile(options, result);
}

}  // namespace railtune::cli
