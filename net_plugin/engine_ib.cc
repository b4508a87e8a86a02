// The verbs transport's set-up from the environment. See engine_ib.h.
#include "net_plugin/engine_ib.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "common/nccl_ib_env.h"
#include "common/qp_policy.h"
#include "formats/rail_map.h"
#include "net_plugin/engine.h"

namespace railtune::net {
namespace {

// The fabric as this host's devices show it: the link layer of its HCAs, how many rails and planes they sit on.
qp::FabricShape deviceShape(const std::vector<NetDevice>& devices) {
  qp::FabricShape shape;
  std::set<int> rails, planes;
  for (const NetDevice& d : devices) {
    if (d.linkLayer == "Ethernet") shape.linkLayer = qp::LinkLayer::Ethernet;
    if (d.rail >= 0) rails.insert(d.rail);
    if (d.plane >= 0) planes.insert(d.plane);
    shape.speedMbps = std::max(shape.speedMbps, d.speedMbps);
  }
  shape.rails = std::max<int>(1, static_cast<int>(rails.size()));
  shape.planes = std::max<int>(1, static_cast<int>(planes.size()));
  return shape;
}

// The QP policy's input. With a rail map, the one function `railtune topo env`'s shape is tested against
// (formats::fabricShapeOf: the map's `network` facts and this host's NICs in it), the devices filling in
// what the map does not state (a map written before `network` existed); without one, the devices alone.
qp::FabricShape fabricShape(const std::vector<NetDevice>& devices, const formats::RailMap* railMap,
                            const std::string& host, const Log& log) {
  const qp::FabricShape seen = deviceShape(devices);
  if (railMap == nullptr) return seen;
  const formats::RailMapHost* mapped = railMap->findHost(host);
  const std::string which = mapped ? "host " + host : "host " + host + " is not in it: the map's rails and planes";
  RT_INFO(log, NCCL_INIT | NCCL_NET, "QP policy: fabric shape from the rail map (%s)", which.c_str());
  // Settings measured on this fabric (`railtune topo rail-map --measured`) win over the policy's own defaults, and
  // the user's NCCL_IB_* over them; every rank reads the same map (its bytes are in the configuration digest).
  if (!railMap->network.measured.empty())
    RT_INFO(log, NCCL_INIT | NCCL_NET, "QP policy: the rail map's measured settings (%s)",
            railMap->network.measuredSource.c_str());
  return formats::fabricShapeOf(*railMap, mapped, seen);
}

// NCCL's order: NCCL_IBVERBS_LIB, then libibverbs.so, then libibverbs.so.1 (src/misc/ibvsymbols.cc:79-87@v2.30.7).
// Throws StepAside when none loads.
ib::LoadedVerbs loadVerbsAsNccl() {
  std::vector<std::string> candidates;
  if (const char* lib = std::getenv("NCCL_IBVERBS_LIB"); lib != nullptr && *lib != '\0') candidates.emplace_back(lib);
  for (const std::string& name : ib::defaultVerbsLibraries()) candidates.push_back(name);
  ib::LoadedVerbs verbs = ib::loadVerbs(candidates);
  if (!verbs.ok()) throw StepAside("RAILTUNE_NET_TRANSPORT=ib, but " + verbs.reason);
  return verbs;
}

// A device without an IPv4 address of its own sets its connections up through the interface NCCL's IB transport
// would use (outOfBandAddress, NCCL_SOCKET_IFNAME). Throws StepAside when there is none.
void giveSetupAddresses(const DeviceListOptions& listOptions, std::vector<NetDevice>& devices, const Log& log) {
  std::string oob;
  try {
    for (const NetDevice& d : devices)
      if (d.ipv4.empty() && oob.empty()) oob = outOfBandAddress(listOptions);
  } catch (const std::exception& e) {
    throw StepAside(std::string("cannot find an address for connection setup: ") + e.what());
  }
  if (std::any_of(devices.begin(), devices.end(), [](const NetDevice& d) { return d.ipv4.empty(); }) && oob.empty())
    throw StepAside("no IPv4 address for the verbs transport's connection setup (NCCL_SOCKET_IFNAME names none)");
  for (NetDevice& d : devices) {
    if (d.ipv4.empty()) {
      RT_INFO(log, NCCL_INIT | NCCL_NET, "device %s: no IPv4 address of its own; connection setup goes through %s",
              d.name.c_str(), oob.c_str());
      d.ipv4 = oob;
    }
  }
}

// The QP policy from the fabric shape and NCCL's variables, its warnings and reasons logged once.
qp::QpPolicy loggedQpPolicy(const qp::FabricShape& shape, const ncclib::NcclIbEnv& nccl, const Log& log) {
  const qp::QpPolicy policy = qp::chooseQpPolicy(shape, nccl);
  for (const std::string& warning : policy.warnings) RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s", warning.c_str());
  for (const qp::Decision& d : policy.why) {
    RT_INFO(log, NCCL_INIT | NCCL_NET, "QP policy: %s=%s (%s)", d.variable.c_str(), d.value.c_str(), d.source.c_str());
  }
  return policy;
}

}  // namespace

ib::IbTransportSetup verbsSetup(const DeviceListOptions& listOptions, std::vector<NetDevice>& devices,
                                const formats::RailMap* railMap, const std::string& railMapHost, const Log& log) {
  const std::string& sysfsRoot = listOptions.root;
  ib::IbTransportSetup setup;
  setup.verbs = loadVerbsAsNccl();
  try {
    giveSetupAddresses(listOptions, devices, log);
  } catch (const StepAside&) {
    ib::unloadVerbs(setup.verbs);
    throw;
  }

  // NCCL's IB variables, read here once for the engine (one per process), by the rule `railtune topo env` uses too;
  // the policy and the transport's options both come from this one reading.
  const ncclib::NcclIbEnv nccl = ncclib::readNcclIbEnv(processEnv);
  for (const std::string& warning : nccl.warnings) RT_WARN(log, NCCL_INIT | NCCL_ENV, "%s", warning.c_str());
  if (nccl.resiliencyPortFailover.set && nccl.resiliencyPortFailover.value == 1) {
    // NCCL's failover (p2p_resiliency.cc, 2.29+) moves a failed device's requests to the other devices of a
    // merged NIC; a railtune verbs connection has one port, so there is nothing to fail over to.
    RT_WARN(log, NCCL_INIT | NCCL_ENV,
            "NCCL_IB_RESILIENCY_PORT_FAILOVER=1 has no effect on railtune's verbs transport: each connection uses "
            "one port, and a connection whose port fails fails (docs/net-ib.md, Failures)");
  }
  const qp::QpPolicy policy = loggedQpPolicy(fabricShape(devices, railMap, railMapHost, log), nccl, log);
  ib::IbEngineOptions& o = setup.options;
  o.connection.layout = ib::qpLayoutOf(policy);
  o.connection.qp = ib::qpOptionsFrom(nccl, policy);
  o.open.sysfsRoot = sysfsRoot;
  o.open.gid = ib::gidOptionsFrom(nccl, policy.gidIndex);
  o.open.relaxedOrdering = ncclib::relaxedOrderingEnabled(nccl, setup.verbs.table.regMrIova2 != nullptr);
  o.peerMemory = ib::peerMemoryPresent(sysfsRoot);
  o.gdrFlush = nccl.gdrFlushDisable.value == 0;
  o.note = [log](bool warn, const std::string& line) {
    if (warn) {
      RT_WARN(log, NCCL_NET, "verbs: %s", line.c_str());
    } else {
      RT_INFO(log, NCCL_NET, "verbs: %s", line.c_str());
    }
  };
  RT_INFO(log, NCCL_INIT | NCCL_NET, "verbs transport: %s loaded, %d QPs per connection%s%s",
          setup.verbs.library.c_str(), policy.qpsPerConnection, o.open.relaxedOrdering ? ", relaxed ordering" : "",
          o.peerMemory ? ", GPU memory through peer memory" : "");
  return setup;
}

}  // namespace railtune::net
