// The emulated job over railtune's verbs transport (`railtune emu net-job --transport ib`): the verbs simulator
// (emulator/verbs_sim) stands in for the RDMA fabric. One builder for the CLI, the demo and the tests: a fabric
// description whose hosts are the job's hosts and whose HCAs are the rail map's, each host's fake sysfs tree,
// the rendezvous folder of the simulator's agents, and the variables every rank gets.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "emulator/net_job/job_plan.h"
#include "formats/rail_map.h"

namespace railtune::emu::netjob {

enum class NetTransport { Socket, Ib };

// "socket" or "ib"; throws std::invalid_argument naming the word otherwise.
NetTransport parseNetTransport(const std::string& word);
const char* netTransportName(NetTransport transport);

// The protocol time scale the ranks get unless RAILTUNE_VERBS_SIM_TIME_SCALE is set already: NCCL's ACK
// timeout 20 and 7 retries take 8 x 4.3 s x 0.05 = 1.7 s, so a dead peer fails the job in seconds.
constexpr const char* kVerbsJobTimeScale = "0.05";

struct VerbsJob {
  std::string preset;                 // the simulator's preset the rail map's NICs are taken from
  std::string fabricPath;             // <job>/verbs-fabric.json: RAILTUNE_VERBS_SIM_FABRIC
  std::string sysfsRoot;              // <job>/verbs-sysfs/<host>/sys/...: RAILTUNE_NET_SYSFS_ROOT of each host
  std::string rendezvousDir;          // RAILTUNE_VERBS_SIM_DIR: <job>/verbs-sim, or a short folder under /tmp
  bool rendezvousOutsideJob = false;  // then removed by the launcher after the job
  std::string library;                // the simulator's libibverbs.so.1: NCCL_IBVERBS_LIB
};

// Writes the description and the sysfs trees into jobDir and makes the rendezvous folder. The preset follows
// the rail map (RoCE: dgx-h100-roce; two planes: gb300-2plane; else gb300); every HCA the map names on a
// planned host must be one of that preset's devices, or std::runtime_error names the host and the HCA.
// `library` must be a regular file (std::runtime_error otherwise).
VerbsJob prepareVerbsJob(const std::string& jobDir, const formats::RailMap& map, const JobPlan& plan,
                         const std::string& library);

// What a rank on `host` gets: RAILTUNE_NET_TRANSPORT=ib, NCCL_IBVERBS_LIB, RAILTUNE_VERBS_SIM_DIR, _FABRIC,
// _HOST and RAILTUNE_NET_SYSFS_ROOT; RAILTUNE_VERBS_SIM_TIME_SCALE only when `timeScaleSet` is false (a
// user's own value passes through, as every other variable of the launcher's environment does).
std::vector<std::pair<std::string, std::string>> verbsRankEnvironment(const VerbsJob& job, const std::string& host,
                                                                      bool timeScaleSet);

}  // namespace railtune::emu::netjob
