// `emu net-job --profile-dir`: each rank loads the profiler plugin NCCL_PROFILER_PLUGIN names (the
// launcher points it at railtune's), initialises it for the job's communicator, and plays NCCL's
// profiler event order for every collective it runs (emulator/profiler_sequence.h). The network steps
// under the collective are the job's own transfers over the net plugin, each chunk posted with the
// phandle of its ProxyStep, so the NetPlugin events come from the net plugin itself (railtune's event
// naming HCA and rail). Links over NVLink have no ProxyOp and no NetPlugin events, as in NCCL.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "emulator/net_job/collectives.h"
#include "emulator/profiler_driver.h"
#include "emulator/profiler_sequence.h"

namespace railtune::emu::netjob {

struct RankIdentity {
  uint64_t commId = 0;
  int nNodes = 1;  // NCCL's: NVLink domains with MNNVL, else hosts
  int nRanks = 0;
  int rank = 0;
  std::string hca;  // the rank's NIC, for the flows' description
};

class RankProfiler {
 public:
  // Throws std::runtime_error when the profiler cannot be loaded or its init fails.
  RankProfiler(NcclBehaviour behaviour, const RankIdentity& identity);
  ~RankProfiler();  // detaches the net plugin's callback; finalize() first for a clean end
  RankProfiler(const RankProfiler&) = delete;
  RankProfiler& operator=(const RankProfiler&) = delete;

  // One iteration of `c` through the job's collective, its events through the profiler; returns the
  // bytes received and verified. Throws what runCollective throws.
  size_t run(Collective c, const CollectiveContext& ctx, size_t bytes, int iteration);
  // The communicator's end: the profiler flushes its files. Throws when finalize fails.
  void finalize();

 private:
  RankIdentity identity_;
  std::unique_ptr<ProfilerDriver> driver_;
  std::unique_ptr<ProfilerSequence> sequence_;
  bool finalized_ = false;
};

// NCCL's view of one iteration of `c` on this rank: the call (function, count, datatype, algorithm),
// one channel, and a flow per net plugin link the collective uses, with as many steps as the
// collective has transfers on it. Exposed for tests.
EmulatedOperation profiledOperation(Collective c, const CollectiveContext& ctx, size_t bytes, const std::string& hca);

}  // namespace railtune::emu::netjob
