// "Never a slower job": whether the net plugin offers NCCL any device at all, and over which transport. On a
// host with an ACTIVE RDMA port the plugin carries the traffic over verbs only when RAILTUNE_NET_TRANSPORT=ib
// asks for it (its verbs transport has run on the strict simulator, not yet on real HCAs: `auto` will choose
// it once a hardware run has proven it), over TCP when RAILTUNE_NET_TRANSPORT=socket asks; otherwise it steps
// aside (its init fails with one WARN and NCCL moves on to its own IB transport). RAILTUNE_NET_TRANSPORT=none
// always steps aside.
#pragma once

#include <string>

#include "common/params.h"

namespace railtune::net {

enum class TransportChoice { Auto, Socket, Ib, None };

struct StepAsideDecision {
  bool stepAside = false;
  TransportChoice choice = TransportChoice::Auto;
  std::string activeRdmaPort;  // "mlx5_0:1" when one was found, else ""
  std::string reason;          // one sentence for the one WARN (or the INFO when carrying)
};

// `root`: "/" on a live host, a fake sysfs tree in tests. A RAILTUNE_NET_TRANSPORT value that is not
// auto|socket|ib|none steps aside too (the reason names the variable and the value): guessing could slow
// the job.
StepAsideDecision decideStepAside(const std::string& root, EnvLookup env = processEnv);

// The first ACTIVE RDMA port under `root` as "hca:port", or "" when there is none.
std::string findActiveRdmaPort(const std::string& root);

}  // namespace railtune::net
