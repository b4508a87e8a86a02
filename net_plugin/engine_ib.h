// What makeEngine (engine.cc) needs to carry the traffic over verbs (RAILTUNE_NET_TRANSPORT=ib): libibverbs
// loaded, and the transport's options read from NCCL's own variables, so that a job tuned for NCCL's IB
// transport means the same here (docs/net-ib.md lists each).
#pragma once

#include <string>
#include <vector>

#include "common/log.h"
#include "formats/rail_map.h"
#include "net_plugin/devices/device_list.h"
#include "net_plugin/transports/ib/ib_engine.h"

namespace railtune::net {

// Throws StepAside naming the reason when libibverbs cannot be loaded or no address is found for connection
// setup. A device without an IPv4 address of its own sets its connections up through the interface NCCL's IB
// transport would use (outOfBandAddress, NCCL_SOCKET_IFNAME). The QP policy reads its fabric shape from `railMap`
// (RAILTUNE_RAIL_MAP; null = none) for host `railMapHost`, as `railtune topo env` reads the fabric it was written
// from (formats::fabricShapeOf, docs/qp-policy.md), else from the devices.
ib::IbTransportSetup verbsSetup(const DeviceListOptions& listOptions, std::vector<NetDevice>& devices,
                                const formats::RailMap* railMap, const std::string& railMapHost, const Log& log);

}  // namespace railtune::net
