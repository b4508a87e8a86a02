// `railtune emu net-job`: an emulated NCCL job of P ranks, one process each, over the real net plugin
// (emulator/net_job/launcher.h; docs/net-job.md), over TCP or, with --transport ib, over the verbs transport on
// the verbs simulator (emulator/net_job/verbs_job.h). The `emu` group is registered here; it holds the
// emulator's job commands.
#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/plugin_files.h"
#include "emulator/net_job/job_report.h"
#include "emulator/net_job/launcher.h"
#include "emulator/net_job/plugin_warnings.h"
#include "emulator/net_job/profile_summary.h"

namespace railtune::cli {
namespace {

namespace nj = emu::netjob;

struct NetJobArgs {
  int ranks = 8;
  int racks = 0;
  std::vector<std::string> hosts;
  std::string railMap;
  size_t bytes = 1 << 20;
  int iterations = 2;
  int warmup = 1;
  std::string collectives = "all";
  bool noMnnvl = false;
  std::string pathLogDir;
  std::string profileDir;
  std::string pluginDir;
  std::string nccl = "2.30";
  int faultRank = -1;
  std::vector<std::string> faults;
  int stallLink = -1;
  double stallAfter = 0;
  int signalRank = -1;
  std::string signal;
  double signalAfter = 0;
  int delayRank = -1;
  double delayUs = 0;
  double timeout = 60;
  size_t chunkBytes = 128 * 1024;
  std::string jobDir;
  std::string transport = "socket";
  std::string verbsLib;
};

std::pair<std::string, std::string> splitFault(const std::string& fault) {
  const size_t eq = fault.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--fault '" + fault +
                                "': expected VAR=VALUE (e.g. RAILTUNE_NET_FAULT_MISBIND=mlx5_0:mlx5_1)");
  return {fault.substr(0, eq), fault.substr(eq + 1)};
}

nj::JobOptions jobOptions(const NetJobArgs& a) {
  nj::JobOptions o;
  o.placement = nj::PlacementOptions{a.ranks, a.racks, a.hosts};
  o.railMapPath = a.railMap;
  o.collectives = nj::parseCollectiveList(a.collectives);
  o.bytes = a.bytes;
  o.iterations = a.iterations;
  o.warmup = a.warmup;
  o.mnnvl = !a.noMnnvl;
  o.pathLogDir = a.pathLogDir;
  const auto behaviour = emu::parseBehaviour(a.nccl);
  if (!behaviour) throw std::invalid_argument("--nccl " + a.nccl + ": expected 2.28, 2.30 or 2.31");
  o.behaviour = *behaviour;
  const PluginFiles plugins =
      findPluginFiles(a.pluginDir.empty() ? defaultPluginDir() : std::filesystem::path(a.pluginDir));
  o.pluginPath = plugins.net.string();
  o.transport = nj::parseNetTransport(a.transport);
  if (o.transport == nj::NetTransport::Ib)
    o.verbsLibrary = a.verbsLib.empty() ? findVerbsSimulator(plugins.net.parent_path()).string() : a.verbsLib;
  o.profileDir = a.profileDir;
  if (!a.profileDir.empty()) o.profilerPath = plugins.profiler.string();
  if (!a.faults.empty() && a.faultRank < 0) throw std::invalid_argument("--fault needs --fault-rank");
  if (a.faultRank >= a.ranks)
    throw std::invalid_argument("--fault-rank " + std::to_string(a.faultRank) + " is not a rank");
  o.faultRank = a.faultRank;
  for (const std::string& f : a.faults) o.faultEnv.push_back(splitFault(f));
  if (!a.signal.empty() || a.signalRank >= 0) {
    if (a.signal != "STOP" && a.signal != "KILL")
      throw std::invalid_argument("--signal '" + a.signal + "': expected STOP or KILL (with --signal-rank)");
    if (a.signalRank < 0 || a.signalRank >= a.ranks)
      throw std::invalid_argument("--signal needs --signal-rank R < --ranks");
    o.signalRank = a.signalRank;
    o.signal = a.signal == "STOP" ? SIGSTOP : SIGKILL;
    o.signalAfterSeconds = a.signalAfter;
  }
  o.stallLink = a.stallLink;
  o.stallAfterSeconds = a.stallAfter;
  if (a.delayUs > 0 && a.delayRank < 0) throw std::invalid_argument("--delay-us needs --delay-rank");
  o.delayRank = a.delayRank;
  o.delayUs = a.delayUs;
  o.timeoutSeconds = a.timeout;
  o.chunkBytes = a.chunkBytes;
  o.jobDir = a.jobDir;
  return o;
}

// The profile's records on disk and counted lost: what the profiler could not write is said at exit.
void printProfileCount(const std::string& dir) {
  try {
    std::fputs(nj::formatProfileCount(nj::readProfile(dir), dir).c_str(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "railtune emu net-job: profile: %s\n", e.what());
  }
}

int runNetJob(const NetJobArgs& args) {
  const nj::JobOptions options = jobOptions(args);
  const nj::JobResult result = nj::runJob(options);
  // The plugins' WARNs first, on stderr whatever the outcome; they do not change the exit status
  // (docs/net-job.md): the report's summary line counts them.
  std::fputs(nj::formatPluginWarnings(result.pluginWarnings).c_str(), stderr);
  std::fflush(stderr);
  std::fputs(nj::formatJobReport(options, result).c_str(), result.ok() ? stdout : stderr);
  if (!options.profileDir.empty()) printProfileCount(options.profileDir);
  return result.ok() ? 0 : 1;
}

Command addNetJobCommand(CLI::App& emu) {
  auto a = std::make_shared<NetJobArgs>();
  CLI::App* sub = emu.add_subcommand(
      "net-job", "Run an emulated NCCL job, one process per rank, over the railtune net plugin; verify every byte");
  sub->add_option("--ranks", a->ranks, "Number of ranks (processes)")
      ->capture_default_str()
      ->check(CLI::Range(2, 4096));
  sub->add_option("--racks", a->racks, "Spread the hosts over this many NVLink domains (0: fill hosts in map order)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--hosts", a->hosts, "Host names of the rail map to use, in rank order")->delimiter(',');
  sub->add_option("--rail-map", a->railMap, "Rail map JSON (default: the built-in cluster's)")
      ->check(CLI::ExistingFile);
  sub->add_option("--bytes", a->bytes, "Bytes per rank")->capture_default_str();
  sub->add_option("--iterations", a->iterations, "Timed iterations per collective")->capture_default_str();
  sub->add_option("--warmup", a->warmup, "Untimed iterations per collective before a barrier and the timed ones")
      ->capture_default_str();
  sub->add_option("--collectives", a->collectives,
                  "all, or a comma list of all-reduce, all-gather, reduce-scatter, all-to-all, tree")
      ->capture_default_str();
  sub->add_flag("--no-mnnvl", a->noMnnvl, "Ranks of one NVLink domain but different trays use the net plugin too");
  sub->add_option("--path-log-dir", a->pathLogDir, "RAILTUNE_PATH_LOG_DIR for every rank");
  sub->add_option("--profile-dir", a->profileDir,
                  "Load the profiler plugin too (RAILTUNE_PROFILE_DIR for every rank): collective log, network "
                  "summary and trace per rank");
  sub->add_option("--plugin-dir", a->pluginDir, "Folder holding the plugin .so files (default: <bin>/../lib)");
  sub->add_option("--transport", a->transport,
                  "The net plugin's transport: socket (TCP), or ib: railtune's verbs transport on the verbs "
                  "simulator, one simulated host per rail-map host with the map's HCAs")
      ->check(CLI::IsMember({"socket", "ib"}))
      ->capture_default_str();
  sub->add_option("--verbs-lib", a->verbsLib,
                  "The verbs simulator's libibverbs.so.1 for --transport ib (default: <plugin dir>/railtune/"
                  "verbs_sim/, or verbs_sim/ of the build tree)")
      ->check(CLI::ExistingFile);
  sub->add_option("--nccl", a->nccl, "NCCL behaviour to emulate: 2.28, 2.30 or 2.31")->capture_default_str();
  sub->add_option("--fault-rank", a->faultRank, "The rank --fault applies to");
  sub->add_option("--fault", a->faults, "VAR=VALUE set in --fault-rank's environment only (repeatable)");
  sub->add_option("--signal-rank", a->signalRank, "The rank --signal is sent to");
  sub->add_option("--signal", a->signal,
                  "STOP or KILL: sent to --signal-rank's process after --signal-after seconds; the job is then left "
                  "to hang until --timeout (no early kill), so the others' hang watchdogs can write");
  sub->add_option("--signal-after", a->signalAfter, "Seconds after the ranks start before --signal is sent")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--stall-link", a->stallLink,
                  "K: the K-th send over the net plugin of the job (modulo their number) stops posting after "
                  "--stall-after seconds (a link dark in one direction); the job is left to hang until --timeout")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--stall-after", a->stallAfter, "Seconds after the ranks start before --stall-link stops")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--delay-rank", a->delayRank, "The rank --delay-us makes late (a straggler)");
  sub->add_option("--delay-us", a->delayUs, "Microseconds --delay-rank sleeps before entering each timed collective")
      ->check(CLI::Range(0.0, 10e6));
  sub->add_option("--timeout", a->timeout, "Seconds before the job is stopped")->capture_default_str();
  sub->add_option("--chunk-bytes", a->chunkBytes, "Bytes per isend/irecv (NCCL's step size)")->capture_default_str();
  sub->add_option("--job-dir", a->jobDir, "Keep the job folder (rail map, address files, handles) here");
  return {sub, [a] { return runNetJob(*a); }};
}

}  // namespace

Command addEmuCommand(CLI::App& parent) {
  return addCommandGroup(parent, "emu", "emulated NCCL jobs over the real railtune plugins", {addNetJobCommand});
}

}  // namespace railtune::cli
