// One rank of an emulated net job, in its own process: loads the net plugin NCCL_NET_PLUGIN names as
// NCCL does (the emulator's loader and net selection), picks the device named after its GPU's HCA,
// connects its edges (connect.h), runs the collectives and reports (result.h). The launcher sets the
// rank's environment (RAILTUNE_HOST, LOCAL_RANK, RAILTUNE_RAIL_MAP, ...) before calling it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "emulator/net_job/job_plan.h"
#include "emulator/net_job/result.h"
#include "emulator/net_job/schedule.h"
#include "emulator/net_job/transfer.h"

namespace railtune::emu::netjob {

struct WorkerSpec {
  int rank = 0;
  const JobPlan* plan = nullptr;
  std::vector<Collective> collectives;
  size_t bytes = 0;
  int iterations = 1;
  int warmup = 1;  // untimed iterations per collective before the barrier and the timed ones
  bool mnnvl = true;
  std::string handleDir;
  std::string nvlinkName;
  int nvlinkListenFd = -1;
  NcclBehaviour behaviour = NcclBehaviour::V2_30;
  uint64_t commId = 0;
  TransferOptions transfer;  // its deadline bounds everything the rank does
  bool profile = false;      // load the profiler (NCCL_PROFILER_PLUGIN) and play each collective's events
  int stallSendTo = -1;      // this rank's send to that peer stops posting at stallAt (JobOptions::stallLink)
  Clock::time_point stallAt{};
  double delayUs = 0;  // sleep before entering each timed collective: the application is late (a straggler)
};

// Never throws: a failure is the result's `error`, with the plugin's WARN lines beside it.
RankResult runRank(const WorkerSpec& spec);

}  // namespace railtune::emu::netjob
