// The step-aside rule (see step_aside.h).
#include "net_plugin/devices/step_aside.h"

#include "net_plugin/devices/sysfs.h"

namespace railtune::net {

std::string findActiveRdmaPort(const std::string& root) {
  for (const RdmaDevice& device : readRdmaDevices(root)) {
    for (const RdmaPort& port : device.ports) {
      if (port.active) return device.name + ":" + std::to_string(port.number);
    }
  }
  return "";
}

StepAsideDecision decideStepAside(const std::string& root, EnvLookup env) {
  StepAsideDecision decision;
  const ParamValue<std::string> transport = readString("RAILTUNE_NET_TRANSPORT", env);
  if (!transport.ok()) {
    decision.stepAside = true;
    decision.reason = transport.error + "; railtune steps aside and NCCL uses its own transports";
    return decision;
  }
  if (transport.value == "none") {
    decision.choice = TransportChoice::None;
    decision.stepAside = true;
    decision.reason = "RAILTUNE_NET_TRANSPORT=none: railtune steps aside and NCCL uses its own transports";
    return decision;
  }
  decision.choice = transport.value == "socket" ? TransportChoice::Socket
                    : transport.value == "ib"   ? TransportChoice::Ib
                                                : TransportChoice::Auto;
  decision.activeRdmaPort = findActiveRdmaPort(root);
  if (decision.choice == TransportChoice::Ib) {
    decision.reason = "RAILTUNE_NET_TRANSPORT=ib: railtune carries the traffic over verbs";
  } else if (decision.activeRdmaPort.empty()) {
    decision.reason = "no active RDMA port: railtune carries the traffic over TCP sockets";
  } else if (decision.choice == TransportChoice::Socket) {
    decision.reason = "RDMA port " + decision.activeRdmaPort +
                      " is active, but RAILTUNE_NET_TRANSPORT=socket: railtune carries the traffic over TCP sockets";
  } else {
    decision.stepAside = true;
    decision.reason = "RDMA port " + decision.activeRdmaPort +
                      " is active: railtune steps aside so that NCCL uses its own IB transport, because railtune's "
                      "verbs transport has run on the verbs simulator only (RAILTUNE_NET_TRANSPORT=ib overrides, over "
                      "verbs; RAILTUNE_NET_TRANSPORT=socket overrides, over TCP)";
  }
  return decision;
}

}  // namespace railtune::net
