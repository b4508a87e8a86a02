// The samples of one job grouped by collective (communicator, op, seq: NCCL numbers seq per
// collective type), and the small statistics the analyses share. Internal to cli/profile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/profile/logs.h"
#include "common/work_pool.h"

namespace railtune::analysis::profile {

struct CommKey {
  bool hasComm = false;
  uint64_t comm = 0;
};

struct Collective {
  uint32_t commKey = 0;
  uint64_t seq = 0;
  uint32_t op = 0;              // index into ProfileLogs::ops
  uint32_t begin = 0, end = 0;  // its samples: order[begin, end)
};

struct CollectiveIndex {
  std::vector<CommKey> comms;
  std::vector<uint32_t> streamComm;     // per stream of the logs: its comm key; kNone when not in the job
  std::vector<Collective> collectives;  // by comm key, then seq, then op name
  std::vector<uint32_t> order;          // sample indices grouped by collective
};

inline constexpr uint32_t kNone = 0xffffffffu;

// The job's collectives; `job` indexes ProfileLogs::jobs.
CollectiveIndex indexCollectives(const ProfileLogs& logs, uint32_t job);

// Median (the mean of the two middle values for an even count) and the p-th percentile by nearest
// rank; both reorder `values`, which must not be empty.
int64_t medianOf(std::vector<int64_t>& values);
int64_t percentileOf(std::vector<int64_t>& values, double p);

using railtune::parallelFor;  // common/work_pool.h

}  // namespace railtune::analysis::profile
