#include "emulator/net_job/job_report.h"

#include <algorithm>

#include "common/printed.h"

namespace railtune::emu::netjob {
namespace {

std::string collectiveRows(const JobOptions& options, const JobResult& result) {
  std::string out = printed("%-15s %12s %6s %14s %12s  %s\n", "collective", "bytes/rank", "iters", "time/iter (us)",
                            "emu GB/s", "verified");
  for (Collective c : options.collectives) {
    double slowest = 0;
    size_t verified = 0;
    int reported = 0;
    for (const RankResult& r : result.ranks)
      for (const CollectiveResult& cr : r.collectives)
        if (cr.collective == collectiveName(c)) {
          slowest = std::max(slowest, cr.seconds);
          verified += cr.verifiedBytes;
          ++reported;
        }
    const bool complete = reported == static_cast<int>(result.plan.ranks.size());
    const double perIter = slowest / options.iterations;
    const double gbps = perIter > 0 ? static_cast<double>(options.bytes) / perIter / 1e9 : 0;
    out += printed("%-15s %12zu %6d %14.1f %12.3f  %s\n", collectiveName(c), options.bytes, options.iterations,
                   perIter * 1e6, gbps, complete ? ("yes, " + std::to_string(verified) + " bytes").c_str() : "NO");
  }
  return out;
}

std::string rankRows(const JobResult& result) {
  std::string out = printed("%-5s %-16s %-4s %-8s %-7s %-15s %s\n", "rank", "host", "gpu", "hca", "device",
                            "plugin send/recv", "nvlink send/recv");
  for (const RankResult& r : result.ranks)
    out += printed("%-5d %-16s %-4d %-8s %-7s %7d/%-7d %7d/%d\n", r.rank, r.host.c_str(), r.gpu, r.hca.c_str(),
                   r.device >= 0 ? std::to_string(r.device).c_str() : "-", r.pluginSends, r.pluginRecvs, r.nvlinkSends,
                   r.nvlinkRecvs);
  return out;
}

}  // namespace

std::string formatJobReport(const JobOptions& options, const JobResult& result) {
  std::string out = printed("railtune emu net-job: %zu ranks on %zu hosts, %s, NCCL %s behaviour\n",
                            result.plan.ranks.size(), result.plan.hosts.size(),
                            options.mnnvl ? "MNNVL (one NVLink domain = one node)" : "no MNNVL (one tray = one node)",
                            behaviourName(options.behaviour));
  for (const std::string& note : result.plan.notes) out += "note: " + note + "\n";
  if (result.ok()) {  // a failed job's tables would be partial: its errors say what happened
    out += "\n" + collectiveRows(options, result);
    out += printed(
        "time/iter and emu GB/s: the emulator's speed, not the plugin's: the slowest rank's wall time per timed\n"
        "iteration, after %d warm-up iteration(s) and a barrier of all ranks, with every byte generated, hashed and\n"
        "checked by the emulator on this machine's CPUs (%d ranks here). The plugin's own speed: bench_net_socket.\n",
        options.warmup, static_cast<int>(result.plan.ranks.size()));
    out += "\n" + rankRows(result);
    out += printed("\n%d connection(s) over the net plugin", result.pluginConnections());
    int nvlink = 0;
    for (const RankResult& r : result.ranks) nvlink += r.nvlinkSends;
    out += printed(", %d over NVLink (stand-in)\n", nvlink);
  }
  if (options.transport == NetTransport::Ib)
    out += "net transport: ib (railtune's verbs transport on the verbs simulator, preset " + result.verbs.preset +
           ", " + result.verbs.library + ")\n";
  if (!options.pathLogDir.empty()) out += "path logs: " + options.pathLogDir + "\n";
  if (result.stalledLink.first >= 0)
    out += printed("stalled link: rank %d -> rank %d over the net plugin, no send posted after %g s\n",
                   result.stalledLink.first, result.stalledLink.second, options.stallAfterSeconds);
  out += pluginWarningSummary(result.pluginWarnings);
  for (const std::string& e : result.errors) out += "error: " + e + "\n";
  if (!result.ok() && !result.jobDir.empty()) out += "job folder kept for inspection: " + result.jobDir + "\n";
  return out;
}

}  // namespace railtune::emu::netjob
