// Measured network settings for a cluster: which entry of a `railtune.net-env/1` file (formats/net_env.h) applies to
// a fabric description's host (its GPU model and rail NICs), for `railtune topo env --measured` and `railtune topo
// rail-map --measured`; and the NCCL variables outside the QP policy (NCCL_CROSS_NIC, NCCL_NCHANNELS_PER_NET_PEER
// and any other the entry names) as `topo env` exports them. docs/qp-policy.md, "Measured settings".
#pragma once

#include <string>
#include <vector>

#include "common/params.h"
#include "common/qp_policy.h"
#include "fabric/model.h"
#include "formats/net_env_pick.h"

namespace railtune::topo {

// The cluster as the net-env entries are matched against: `host`'s GPU model (and whether a Grace CPU sits beside
// it: C2C links), its rail NICs' link layer in NCCL's words ("IB", "RoCE") and slowest port in Gb/s. Throws
// std::invalid_argument for an unknown host or one without rail NICs.
formats::NetEnvCluster netEnvClusterOf(const fabric::Fabric& fabric, const std::string& host);

// Reads `path` (formats::readNetEnvFile; throws NetEnvError) and chooses its entry for `host`.
formats::NetEnvChoice measuredForHost(const fabric::Fabric& fabric, const std::string& host, const std::string& path);

// The measured variables the QP policy does not decide, each a Decision with the measurement's source and
// changed = true where `topo env` exports it; a variable the user's environment sets is kept as the user's
// (changed = false, the source says so), so that the user's variable wins over the measured one.
std::vector<qp::Decision> measuredNcclDecisions(const qp::MeasuredNet& measured, EnvLookup env);

}  // namespace railtune::topo
