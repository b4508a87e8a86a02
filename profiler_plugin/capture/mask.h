// RAILTUNE_PROFILE_MASK: which NCCL profiler events the capture asks for, by name. The mask goes to
// NCCL at init (*eActivationMask); NCCL then also generates each requested event's ancestors.
#pragma once

#include <string>
#include <vector>

#include "profiler_plugin/engine.h"

namespace railtune::profiler {

// Coll, P2p, ProxyOp, KernelCh: what completion (last ProxyOp or KernelCh stop) and the hang watchdog
// need, without the per-step events (ProxyStep, NetPlugin) whose cost grows with message size; plus
// KernelPhase (v7: three events per channel, like KernelCh not growing with size), which says whether a
// rank waited to start or computed slowly (dropped from the mask under profiler v1..v6); and CeColl (v6+:
// one event per copy-engine collective, recorded with path "copy_engine"; dropped under v1..v5).
inline constexpr EventMask kDefaultProfileMask =
    static_cast<EventMask>(EventType::Coll) | static_cast<EventMask>(EventType::P2p) |
    static_cast<EventMask>(EventType::ProxyOp) | static_cast<EventMask>(EventType::KernelCh) |
    static_cast<EventMask>(EventType::KernelPhase) | static_cast<EventMask>(EventType::CeColl);

// Every event the capture uses: the default plus ProxyStep (bytes, steps, waits per flow) and NetPlugin
// (the NIC of each flow).
inline constexpr EventMask kAllProfileMask =
    kDefaultProfileMask | static_cast<EventMask>(EventType::ProxyStep) | static_cast<EventMask>(EventType::NetPlugin);

struct ParsedMask {
  EventMask mask = kDefaultProfileMask;
  std::string error;  // non-empty: a name was not recognised and `mask` is the default
};

// Names, case-insensitive: coll, p2p, proxyop, proxystep, kernelch, kernelphase, cecoll, netplugin, all,
// default, none.
// The result is the OR of the names; an empty list is the default.
ParsedMask parseProfileMask(const std::vector<std::string>& names);

// "coll,p2p,proxyop,kernelch" for a mask (the capture's event types only), for log lines.
std::string profileMaskNames(EventMask mask);

}  // namespace railtune::profiler
