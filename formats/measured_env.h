// The NCCL variables a measured network setting may name, the values each may take, and the QP policy's
// view of them (qp::MeasuredNet). One definition for both files that carry measured settings: the
// `railtune.net-env/1` file `railtune topo env --measured` reads (formats/net_env.h) and the rail map's
// `network.measured` object the net plugin reads (formats/rail_map.h). Header and code are plugin-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/qp_policy.h"

namespace railtune::formats {

// NAME=VALUE pairs in file order; names are unique.
using MeasuredEnv = std::vector<std::pair<std::string, std::string>>;

// Why `name` may not be a measured setting, or "" when it may: an NCCL_[A-Z0-9_]+ name, not a choice the sweep
// forces (NCCL_ALGO, NCCL_PROTO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS) and not a fact of the fabric description
// the QP policy takes from it (NCCL_IB_GID_INDEX, NCCL_IB_TC, NCCL_IB_SL).
std::string measuredNameProblem(const std::string& name);

// Why `value` is not a value of `name`, or "": the variables the QP policy and `topo env` read take NCCL's
// ranges in plain decimal (NCCL_IB_QPS_PER_CONNECTION 1..128, NCCL_IB_SPLIT_DATA_ON_QPS and
// NCCL_IB_ADAPTIVE_ROUTING 0 or 1, NCCL_IB_AR_THRESHOLD 0 or more, NCCL_NCHANNELS_PER_NET_PEER 1..64,
// NCCL_CROSS_NIC 0..2); any other NCCL_* value is kept verbatim and needs only to be 1..256 printable characters.
std::string measuredValueProblem(const std::string& name, const std::string& value);

// The settings as the QP policy takes them, `source` their one-sentence source. Names and values must have
// passed the checks above (others are ignored).
qp::MeasuredNet measuredNetOf(const MeasuredEnv& env, const std::string& source);

}  // namespace railtune::formats
