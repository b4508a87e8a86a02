// The emulated job as a whole (`railtune emu net-job`): plans the ranks on the rail map's hosts,
// prepares the job folder (the rail map, one address file per host, the handle folder), forks one
// process per rank from this single-threaded process, and collects what each reports. A rank that
// fails or dies stops the job: the others are killed and the first failure is reported; nothing
// waits past the timeout.
//
// Why fork and not re-exec: each rank must start from a clean NCCL-like process with its own
// environment, and forking a single-threaded parent gives that without needing the railtune binary
// (the tests run the job from their own executable). The plugin is loaded only in the children.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "emulator/loader.h"
#include "emulator/net_job/job_plan.h"
#include "emulator/net_job/plugin_warnings.h"
#include "emulator/net_job/result.h"
#include "emulator/net_job/schedule.h"
#include "emulator/net_job/verbs_job.h"

namespace railtune::emu::netjob {

struct JobOptions {
  PlacementOptions placement;
  std::string railMapPath;  // "": the embedded default cluster's rail map
  std::vector<Collective> collectives;
  size_t bytes = 1 << 20;  // per rank
  int iterations = 2;      // timed
  int warmup = 1;          // untimed iterations per collective first, then a barrier of all ranks
  bool mnnvl = true;
  std::string pluginPath;  // libnccl-net-railtune.so (NCCL_NET_PLUGIN for every rank)
  NcclBehaviour behaviour = NcclBehaviour::V2_30;
  std::string pathLogDir;         // "": none; else RAILTUNE_PATH_LOG_DIR for every rank
  std::string jobId = "net-job";  // RAILTUNE_JOB_ID: path log files are <job>-<host>-<pid>.<start>.jsonl
  std::string profileDir;         // "": no profiler; else RAILTUNE_PROFILE_DIR for every rank
  std::string profilerPath;       // libnccl-profiler-railtune.so (NCCL_PROFILER_PLUGIN) with profileDir
  // The net plugin's transport: socket (TCP between the ranks' loopback addresses), or ib: railtune's verbs
  // transport on the verbs simulator, whose libibverbs.so.1 is verbsLibrary (verbs_job.h).
  NetTransport transport = NetTransport::Socket;
  std::string verbsLibrary;
  // Set for every rank after the launcher's own (RAILTUNE_NET_TRANSPORT and, over ib, the simulator's among
  // them). Every other variable of the launcher's environment reaches the ranks unchanged (NCCL_IB_*,
  // RAILTUNE_NET_QPS, ...): nothing is scrubbed.
  std::vector<std::pair<std::string, std::string>> jobEnv;
  int faultRank = -1;
  std::vector<std::pair<std::string, std::string>> faultEnv;  // set for faultRank only
  // A rank stopped or killed from outside after some seconds (SIGSTOP, SIGKILL: what an operator, the OOM
  // killer or a debugger does to one process of a job), to see what the others' profilers record. The job
  // is then left to hang until the timeout, so that their hang watchdogs can write: no rank is killed
  // early because another failed.
  int signalRank = -1;
  int signal = 0;
  double signalAfterSeconds = 0;
  // A link that stops in one direction: the stallLink-th send over the net plugin of the job (counted over
  // (sender, receiver) in order, modulo their number) stops posting `stallAfterSeconds` after the ranks
  // start, as a link whose one direction went dark: its sender's steps and its receiver's receives stay
  // outstanding. The job is then left to hang until the timeout, like a signal.
  int stallLink = -1;
  double stallAfterSeconds = 0;
  // The application being late: delayRank sleeps delayUs before entering each timed collective (a straggler).
  int delayRank = -1;
  double delayUs = 0;
  double timeoutSeconds = 60;
  size_t chunkBytes = 128 * 1024;
  std::string jobDir;  // "": a temporary folder, removed when the job succeeds
};

struct JobResult {
  JobPlan plan;
  std::vector<RankResult> ranks;            // by rank; only ranks that reported
  std::vector<std::string> errors;          // empty: every byte verified
  std::string jobDir;                       // kept when the job failed
  VerbsJob verbs;                           // transport ib: the simulator's files and folder
  std::pair<int, int> stalledLink{-1, -1};  // (sender, receiver) of JobOptions::stallLink
  // Every WARN the plugins logged in every rank that wrote its result (ok or failed), in rank order. A
  // rank killed before it could write one (stuck past the timeout's grace) leaves none here.
  std::vector<PluginWarning> pluginWarnings;
  int pluginConnections() const;  // send + receive sides over the plugin, all ranks
  bool ok() const { return errors.empty(); }
};

// Throws PlanError, or std::runtime_error when the job cannot be started (a multi-threaded caller,
// an unreadable rail map, a folder that cannot be written). Failures of ranks are JobResult::errors.
JobResult runJob(const JobOptions& options);

// The rail map text the job uses: the file, or the embedded default cluster's map.
std::string railMapText(const std::string& path);

}  // namespace railtune::emu::netjob
