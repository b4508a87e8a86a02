// The QP policy (qp_policy.h). Every value names its source in `why`; docs/qp-policy.md is the
// long form. NCCL file:line references are to NVIDIA/nccl v2.30.7, src/transport/net_ib/.
#include "common/qp_policy.h"

#include <algorithm>
#include <cstdint>

namespace railtune::qp {
namespace {

constexpr int kRoceQpsPerConnection = 4;

struct Choice {
  int64_t value = 0;
  std::string source;
};

// The user's NCCL variable, if set (and valid: nccl_ib_env.h), replaces the policy's choice.
void applyNcclOverride(const ncclib::Setting& setting, const char* name, Choice& choice) {
  if (!setting.set) return;
  choice.value = setting.value;
  choice.source = std::string("set in the environment (") + name + "), which NCCL reads itself";
}

// A value measured on this fabric (FabricShape::measured) replaces the policy's own; the user's variables are
// applied after it, so that they win.
template <typename T>
void applyMeasured(const std::optional<T>& value, const std::string& source, Choice& choice) {
  if (!value) return;
  choice.value = static_cast<int64_t>(*value);
  choice.source = source.empty() ? std::string("measured") : source;
}

// The measurements each value stands on; docs/qp-policy.md quotes them.
constexpr const char* kOciGb300 =
    "NVIDIA/cluster-readiness-engine PR #287 measured OCI GB300 (4 x 800 Gb/s RoCE rails, switches routing "
    "adaptively): 4 QPs with NCCL_IB_ADAPTIVE_ROUTING=1 and NCCL_IB_SPLIT_DATA_ON_QPS=1 raised peak all-reduce bus "
    "bandwidth about 70% on a multi-rack run, and 8 QPs did no better than 4";

// RoCE whose description says its switches route adaptively (Spectrum-X): the settings of the one measurement on
// such a fabric.
bool roceWithAdaptiveRouting(const FabricShape& shape) {
  return shape.linkLayer == LinkLayer::Ethernet && shape.adaptiveRouting.value_or(false);
}

Choice chooseQps(const FabricShape& shape) {
  if (shape.linkLayer == LinkLayer::InfiniBand)
    return {kNcclQpsPerConnection,
            "NCCL's default (connect.cc:60); no measurement: no source found measures more QPs per connection on "
            "InfiniBand"};
  if (roceWithAdaptiveRouting(shape)) return {kRoceQpsPerConnection, kOciGb300};
  return {kRoceQpsPerConnection,
          "RoCE with ECMP: Meta measured on its 400G RoCE training fabric (SIGCOMM 2024), hashing on the destination "
          "QP and raising QPs per connection, each message whole on one QP in turn: up to 40% more AllReduce "
          "bandwidth than ECMP without QP scaling; 4 is OCI's RoCE setting, kept by NVIDIA/cluster-readiness-engine PR "
          "#287 after 8 did "
          "no better"};
}

Choice chooseSplit(const FabricShape& shape) {
  if (roceWithAdaptiveRouting(shape)) return {1, kOciGb300};
  if (shape.linkLayer == LinkLayer::Ethernet)
    return {0,
            "NCCL's default (common.cc:22): each message whole on one QP, successive messages rotating over the QPs "
            "(common.h:393-397), which Meta measured against splitting on its ECMP RoCE fabric and kept for NCCL's "
            "message sizes; NVIDIA/nccl issue #1401 reports split needed for near wire rate on 4 x 400G ConnectX-7 "
            "(fabric and numbers not given): the sources disagree and the default is kept"};
  return {0,
          "NCCL's default (common.cc:22); no measurement on InfiniBand (NVIDIA/nccl issue #1401 reports split needed "
          "for near wire rate on 4 x 400G ConnectX-7, fabric and numbers not given)"};
}

Choice chooseAdaptiveRouting(const FabricShape& shape) {
  if (roceWithAdaptiveRouting(shape)) return {1, kOciGb300};
  const bool ib = shape.linkLayer == LinkLayer::InfiniBand;
  if (ib && shape.adaptiveRouting == false)
    return {1,
            "NCCL's default (init.cc:441): on for InfiniBand; no measurement: the fabric description says the "
            "switches do not route adaptively, but no source measured turning NCCL's AR sequence off"};
  return {ib ? 1 : 0, std::string("NCCL's default (init.cc:441): ") + (ib ? "on for InfiniBand" : "off for RoCE") +
                          "; no measurement"};
}

Choice chooseGidIndex(const FabricShape& shape) {
  if (shape.linkLayer == LinkLayer::Ethernet && shape.gidIndex >= 0)
    return {shape.gidIndex,
            "the fabric model's RoCE v2 IPv4 GID of the rail NICs, the one NCCL's scan picks (connect.cc:317-334), "
            "pinned so that a container that hides GID types cannot change it"};
  return {-1, shape.linkLayer == LinkLayer::InfiniBand
                  ? "NCCL's default (connect.cc:12): InfiniBand does not read it (connect.cc:302-314)"
                  : "NCCL's default (connect.cc:12): NCCL scans for the RoCE v2 IPv4 GID; the fabric gives no one "
                    "index for all rail NICs"};
}

Choice chooseTrafficClass(const FabricShape& shape) {
  if (shape.trafficClass < 0)
    return {-1, "NCCL's default (connect.cc:20): traffic class 0; the fabric description gives none"};
  if (shape.linkLayer == LinkLayer::InfiniBand)
    return {-1, "NCCL's default: NCCL applies the traffic class to RoCE only (connect.cc:761)"};
  return {shape.trafficClass,
          "the fabric description's traffic class (DSCP x 4 + ECN bits), which must match the switches' "
          "lossless class"};
}

Choice chooseServiceLevel(const FabricShape& shape) {
  if (shape.serviceLevel < 0)
    return {-1, "NCCL's default (connect.cc:19): service level 0; the fabric description gives none"};
  return {shape.serviceLevel,
          "the fabric description's service level (on InfiniBand the SL adaptive routing "
          "is enabled on; NVIDIA/nccl issue #1687)"};
}

Decision decision(const char* variable, const Choice& choice, int64_t ncclDefault) {
  return {variable, std::to_string(choice.value), choice.source, choice.value != ncclDefault};
}

// RAILTUNE_NET_QPS, then NCCL_IB_QPS_PER_CONNECTION over it (NCCL's transport reads only the latter).
void applyQpsOverrides(const ncclib::NcclIbEnv& env, Choice& qps, std::vector<std::string>& warnings) {
  const ncclib::Setting& ours = env.railtuneQps;
  if (ours.set) qps = {ours.value, "RAILTUNE_NET_QPS"};
  const ncclib::Setting& nccl = env.qpsPerConnection;
  if (!nccl.set) return;
  if (ours.set && ours.value != nccl.value)
    warnings.push_back("RAILTUNE_NET_QPS=" + std::to_string(ours.value) + " and NCCL_IB_QPS_PER_CONNECTION=" +
                       std::to_string(nccl.value) + " disagree; NCCL_IB_QPS_PER_CONNECTION wins");
  applyNcclOverride(nccl, "NCCL_IB_QPS_PER_CONNECTION", qps);
}

}  // namespace

QpPolicy chooseQpPolicy(const FabricShape& shape, EnvLookup env) {
  const ncclib::NcclIbEnv read = ncclib::readNcclIbEnv(env);
  QpPolicy policy = chooseQpPolicy(shape, read);
  policy.warnings.insert(policy.warnings.begin(), read.warnings.begin(), read.warnings.end());
  return policy;
}

QpPolicy chooseQpPolicy(const FabricShape& shape, const ncclib::NcclIbEnv& env) {
  QpPolicy policy;
  const bool ib = shape.linkLayer == LinkLayer::InfiniBand;

  const MeasuredNet& measured = shape.measured;

  Choice qps = chooseQps(shape);
  applyMeasured(measured.qps, measured.source, qps);
  applyQpsOverrides(env, qps, policy.warnings);
  Choice split = chooseSplit(shape);
  applyMeasured(measured.split, measured.source, split);
  applyNcclOverride(env.splitDataOnQps, "NCCL_IB_SPLIT_DATA_ON_QPS", split);
  Choice ar = chooseAdaptiveRouting(shape);
  applyMeasured(measured.ar, measured.source, ar);
  applyNcclOverride(env.adaptiveRouting, "NCCL_IB_ADAPTIVE_ROUTING", ar);
  Choice arThreshold{static_cast<int64_t>(kNcclArThresholdBytes),
                     "NCCL's default (p2p.cc:14): 8192 bytes; no measurement"};
  applyMeasured(measured.arThreshold, measured.source, arThreshold);
  applyNcclOverride(env.arThreshold, "NCCL_IB_AR_THRESHOLD", arThreshold);
  Choice gid = chooseGidIndex(shape);
  applyNcclOverride(env.gidIndex, "NCCL_IB_GID_INDEX", gid);
  Choice tc = chooseTrafficClass(shape);
  applyNcclOverride(env.trafficClass, "NCCL_IB_TC", tc);
  Choice sl = chooseServiceLevel(shape);
  applyNcclOverride(env.serviceLevel, "NCCL_IB_SL", sl);

  policy.qpsPerConnection = static_cast<int>(qps.value);
  policy.splitDataOnQps = split.value != 0;
  policy.adaptiveRouting = ar.value != 0;
  policy.arThresholdBytes = static_cast<size_t>(arThreshold.value);
  policy.gidIndex = static_cast<int>(gid.value);
  policy.trafficClass = static_cast<int>(tc.value);
  policy.serviceLevel = static_cast<int>(sl.value);
  policy.why = {
      decision("NCCL_IB_QPS_PER_CONNECTION", qps, kNcclQpsPerConnection),
      decision("NCCL_IB_SPLIT_DATA_ON_QPS", split, 0),
      decision("NCCL_IB_ADAPTIVE_ROUTING", ar, ib ? 1 : 0),
      decision("NCCL_IB_AR_THRESHOLD", arThreshold, static_cast<int64_t>(kNcclArThresholdBytes)),
      decision("NCCL_IB_GID_INDEX", gid, -1),
      decision("NCCL_IB_TC", tc, -1),
      decision("NCCL_IB_SL", sl, -1),
  };
  return policy;
}

int qpsPerMessage(const QpPolicy& policy) {
  return policy.splitDataOnQps ? std::clamp(policy.qpsPerConnection, 1, kMaxQpsPerConnection) : 1;
}

int dataQpsFor(const QpPolicy& policy, size_t bytes) {
  const int qps = qpsPerMessage(policy);
  if (qps == 1 || bytes == 0 || bytes < policy.splitMinBytes) return 1;
  const size_t chunk = chunkBytesFor(bytes, qps);
  return static_cast<int>(bytes / chunk + (bytes % chunk != 0 ? 1 : 0));
}

size_t chunkBytesFor(size_t bytes, int dataQps) {
  if (bytes == 0) return 0;
  const size_t qps = static_cast<size_t>(std::max(dataQps, 1));
  const size_t perQp = bytes / qps + (bytes % qps != 0 ? 1 : 0);
  const size_t rest = perQp % kChunkAlignment;
  return rest == 0 ? perQp : perQp + (kChunkAlignment - rest);
}

std::string describe(const QpPolicy& policy, bool changedOnly) {
  std::string text;
  for (const Decision& d : policy.why) {
    if (changedOnly && !d.changed) continue;
    const bool saysDefault = d.source.rfind("NCCL's default", 0) == 0;
    text +=
        d.variable + "=" + d.value + (d.changed || saysDefault ? "" : " (as NCCL's default)") + ": " + d.source + "\n";
  }
  for (const std::string& warning : policy.warnings) text += "warning: " + warning + "\n";
  return text;
}

}  // namespace railtune::qp
