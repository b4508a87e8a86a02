#include "cli/demo/verbs.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "analysis/paths/path_load.h"
#include "emulator/net_job/job_report.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/plugin_warnings.h"

namespace railtune::cli {
namespace {

namespace nj = emu::netjob;
namespace paths = analysis::paths;
namespace fs = std::filesystem;

// "rank 0 (r000-t00 mlx5_0) -> rank 2 (r000-t01 mlx5_0): InfiniBand, GID fe80:..., 2 QPs 0x10->0x12 0x11->0x13"
// The rank on `host` whose GPU the HCA serves (one rank per GPU, one HCA per GPU in the demo's map): the
// handshake carries no rank, so the record's remote end has only the host and the HCA.
int rankAt(const nj::JobPlan& plan, const std::string& host, const std::string& hca) {
  for (size_t r = 0; r < plan.ranks.size(); ++r) {
    const nj::RankPlace& place = plan.ranks[r];
    if (plan.hosts[static_cast<size_t>(place.hostIndex)].name == host && place.hca == hca) return static_cast<int>(r);
  }
  return -1;
}

std::string connectionLine(const nj::JobPlan& plan, const paths::Connection& c) {
  const formats::path_log::VerbsFacts& v = c.verbs;
  const int peerRank = c.remote.rank >= 0 ? c.remote.rank : rankAt(plan, c.remote.host, c.remote.hca);
  std::string line = "rank " + std::to_string(c.local.rank) + " (" + c.local.host + " " + c.local.hca + ") -> rank " +
                     std::to_string(peerRank) + " (" + c.remote.host + " " + c.remote.hca +
                     "): " + std::string(v.linkLayer.view()) + ", GID " + std::string(v.gid.view()) + ", " +
                     std::to_string(v.qpCount) + (v.qpCount == 1 ? " QP" : " QPs");
  for (int q = 0; q < v.qpCount && q < formats::path_log::kMaxQpsRecorded; ++q) {
    char pair[32];
    std::snprintf(pair, sizeof pair, " 0x%x->0x%x", v.localQpn[q], v.remoteQpn[q]);
    line += pair;
  }
  return line;
}

bool hasVerbsFacts(const paths::Connection& c) {
  return c.transport == "ib" && c.verbs.present && c.local.hca.starts_with("mlx5_") && !c.verbs.gid.view().empty() &&
         c.verbs.qpCount >= 1 && c.verbs.localQpn[0] != 0;
}

}  // namespace

int writeDemoVerbs(const fs::path& dir, const fs::path& netPlugin, const fs::path& verbsLibrary,
                   size_t& pluginWarnings) {
  nj::JobOptions options;
  options.placement.ranks = 8;  // two trays of 4 GPUs
  options.placement.racks = 2;  // one tray in each rack
  options.collectives = {nj::Collective::AllReduce};
  options.bytes = 64 * 1024 + 3;
  options.iterations = 1;
  options.warmup = 0;
  options.mnnvl = false;
  options.pluginPath = netPlugin.string();
  options.transport = nj::NetTransport::Ib;
  options.verbsLibrary = verbsLibrary.string();
  options.pathLogDir = (dir / "verbs" / "paths").string();
  options.jobId = "demo-verbs";
  options.timeoutSeconds = 60;
  std::error_code ec;
  fs::remove_all(options.pathLogDir, ec);  // records of an earlier run would mix with this one's
  std::printf(
      "\nThe verbs transport (an emulated job): %d ranks on 2 trays, RAILTUNE_NET_TRANSPORT=ib on the verbs simulator\n"
      "(%s), which stands in for the hosts' ConnectX HCAs\n",
      options.placement.ranks, verbsLibrary.c_str());
  const nj::JobResult result = nj::runJob(options);
  std::fflush(stdout);
  std::fputs(nj::formatPluginWarnings(result.pluginWarnings).c_str(), stderr);
  pluginWarnings += result.pluginWarnings.size();
  if (!result.ok()) {
    std::fputs(nj::formatJobReport(options, result).c_str(), stderr);
    throw std::runtime_error("the emulated verbs job failed; see the errors above");
  }
  const paths::LoadedPaths loaded = paths::loadPathLogs(options.pathLogDir, {.job = options.jobId});
  if (loaded.jobs.size() != 1) {
    std::fprintf(stderr, "railtune demo: expected the path logs of job %s in %s\n", options.jobId.c_str(),
                 options.pathLogDir.c_str());
    return 1;
  }
  int problems = 0, shown = 0;
  std::printf("Each connection as its sender's path log recorded it (%s):\n", options.pathLogDir.c_str());
  for (const paths::Connection& c : loaded.jobs.front().connections) {
    if (!hasVerbsFacts(c)) {
      std::fprintf(stderr, "railtune demo: %s has no verbs facts (HCA, GID, QPs)\n", c.source.c_str());
      ++problems;
    }
    if (c.send) {
      std::printf("  %s\n", connectionLine(result.plan, c).c_str());
      ++shown;
    }
  }
  if (shown == 0) ++problems;
  std::fputs(nj::pluginWarningSummary(result.pluginWarnings).c_str(), stdout);
  std::printf(
      "Every byte arrived (verified by the emulator). On a real cluster the same records come from the HCAs;\n"
      "`railtune paths check` holds them to the rail map. Try: railtune emu net-job --transport ib --ranks 8\n"
      "--racks 2 --path-log-dir DIR (NCCL_IB_QPS_PER_CONNECTION and the other NCCL_IB_* variables reach the ranks)\n");
  return problems;
}

}  // namespace railtune::cli
