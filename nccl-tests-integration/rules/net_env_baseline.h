// Which network setting of a sweep's environment matrix is NCCL's own behaviour, the baseline the other settings
// are judged against (`railtune sweep rules --net-env`, net_env_winners.h): every variable it names holds NCCL's
// default for the fabric measured. NCCL's defaults, NVIDIA/nccl v2.30.7 (the same in v2.28.9):
//   NCCL_IB_QPS_PER_CONNECTION 1        src/transport/net_ib/connect.cc:60
//   NCCL_IB_SPLIT_DATA_ON_QPS  0        src/transport/net_ib/common.cc:22
//   NCCL_IB_ADAPTIVE_ROUTING   -2: on for an InfiniBand port, off for RoCE    src/transport/net_ib/init.cc:12, :440-441
//   NCCL_IB_AR_THRESHOLD       -2: 8192 bytes                                 src/transport/net_ib/p2p.cc:13-14
//   NCCL_CROSS_NIC             2        src/graph/search.cc:16
// Any other variable (NCCL_NCHANNELS_PER_NET_PEER's default is "undefined", NCCL's own choice, init.cc:1729) has
// no value that is surely NCCL's default, so a setting naming it is never the baseline.
#pragma once

#include <optional>
#include <string>

#include "nccl-tests-integration/dataset/net_env.h"

namespace railtune::sweep {

// An integer-valued variable's value as NCCL reads it (strtoll base 0: "0x4" is 4), in plain decimal; any other
// value as given.
std::string netEnvValueAsNcclReads(const std::string& name, const std::string& value);

// Whether every variable of `setting` holds NCCL's default on a fabric of this link layer ("IB", "RoCE"; anything
// else unknown, so that NCCL_IB_ADAPTIVE_ROUTING is never known to be at its default). An empty setting is.
bool isNcclDefaultSetting(const NetEnv& setting, const std::string& linkLayer);

}  // namespace railtune::sweep
