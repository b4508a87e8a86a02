// The text of the watchdog's WARN for one hang: which communicator, operation and sequence number,
// for how long, and where the network is stuck (channel, peer, direction, NIC), so that an operator
// can go from the log line to the cable.
#pragma once

#include <string>

#include "profiler_plugin/profile_format.h"

namespace railtune::profiler {

// "comm 0x1a2b rank 3/16 seq 42 AllReduce (RING/SIMPLE, 1048576 bytes, 2 channels) incomplete for
//  301.0 s; outstanding: ch 0 peer 4 send 2 steps via mlx5_3 (dev 3 rail 3 plane 0); ch 1 ..."
// or "...; no network step outstanding". At most kMaxFlowsNamed flows are named, fewer when their
// text would not fit in one log line; the rest are counted.
std::string describeHang(const OperationRecord& hang);

inline constexpr unsigned kMaxFlowsNamed = 8;  // keeps the line within NCCL's log buffer

}  // namespace railtune::profiler
