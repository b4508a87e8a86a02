// The QP policy: how many RDMA queue pairs a connection uses, how a message is spread over them, and
// the adaptive-routing, GID and traffic-class settings, chosen once from the shape of the fabric.
// Two consumers share it: the net plugin's verbs transport (its own QPs) and `railtune topo env`
// (the NCCL_IB_* variables for NCCL's own IB transport), so that a job gets the same choices with
// either transport. docs/qp-policy.md has the table and the source of every value.
//
// Pure: no I/O, no globals; the environment comes in through an EnvLookup.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/nccl_ib_env.h"
#include "common/params.h"

namespace railtune::qp {

enum class LinkLayer { InfiniBand, Ethernet };  // Ethernet = RoCE

// Network settings measured on this fabric (a `railtune.net-env/1` entry, docs/formats.md): each one set wins
// over the policy's own choice, and the user's variable wins over it. qps, split, ar and arThreshold feed the
// policy; channelsPerNetPeer and crossNic are NCCL's alone (`railtune topo env` exports them), and `others` holds
// the entry's other NCCL_* variables verbatim. source: one sentence naming the file and the evidence, "measured:
// net-env.json, 144 ranks on 2 nodes, +68% median at 1 MiB-16 GiB, 3 runs"; empty when nothing was measured.
struct MeasuredNet {
  std::optional<int> qps;
  std::optional<bool> split, ar;
  std::optional<size_t> arThreshold;
  std::optional<int> channelsPerNetPeer;
  std::optional<int> crossNic;  // 0, 1 or 2, as NCCL_CROSS_NIC
  std::vector<std::pair<std::string, std::string>> others;
  std::string source;
  bool any() const { return qps || split || ar || arThreshold || channelsPerNetPeer || crossNic || !others.empty(); }
};

struct FabricShape {
  LinkLayer linkLayer = LinkLayer::InfiniBand;
  int rails = 1;                             // rails of the fabric (distinct rail ids the host's NICs sit on)
  int planes = 1;                            // planes per rail (1, or 2 on multi-plane CX8/XDR fabrics)
  int speedMbps = 0;                         // per port; 0 unknown (recorded; no value depends on it yet)
  std::optional<bool> adaptiveRouting;       // what the fabric description says its switches do; nullopt = unknown
  int gidIndex = -1;                         // the RoCE GID index the fabric model knows; -1 unknown
  int trafficClass = -1, serviceLevel = -1;  // from the fabric description if it has them; -1 unknown
  MeasuredNet measured;                      // what a sweep measured on this fabric; nothing by default
};

// One line of "why": the NCCL variable a choice corresponds to, its value, where the value comes
// from, and whether it differs from what NCCL's IB transport would do with the variable unset.
struct Decision {
  std::string variable;  // "NCCL_IB_QPS_PER_CONNECTION"
  std::string value;     // as NCCL reads it: "4", "0", "-1"
  std::string source;    // one sentence naming the source (NCCL file:line, vendor, paper, environment)
  bool changed = false;  // true: differs from NCCL's own default, so `topo env` exports it
};

// NCCL's defaults (2.28.9 and 2.30.7 alike; docs/qp-policy.md cites the lines).
inline constexpr int kNcclQpsPerConnection = 1;
inline constexpr size_t kNcclArThresholdBytes = static_cast<size_t>(ncclib::kNcclArThresholdBytes);
inline constexpr size_t kChunkAlignment = 128;    // IB_WRITE_CHUNK_ALIGNMENT: LL and LL128 need it
inline constexpr int kMaxQpsPerConnection = 128;  // NCCL_IB_MAX_QPS

struct QpPolicy {
  int qpsPerConnection = 1;                         // as NCCL_IB_QPS_PER_CONNECTION (1..128), per port of a connection
  bool splitDataOnQps = false;                      // as NCCL_IB_SPLIT_DATA_ON_QPS
  size_t splitMinBytes = 0;                         // railtune's transport, split on: messages below travel on one QP
  bool adaptiveRouting = true;                      // as NCCL_IB_ADAPTIVE_ROUTING (NCCL: on for IB, off for RoCE)
  size_t arThresholdBytes = kNcclArThresholdBytes;  // as NCCL_IB_AR_THRESHOLD
  int gidIndex = -1, trafficClass = -1, serviceLevel = -1;  // -1: leave NCCL's own choice
  std::vector<Decision> why;                                // one per NCCL variable above, in a fixed order
  std::vector<std::string> warnings;  // the reader's (EnvLookup overload only), then the policy's own
};

// The policy for a fabric shape and NCCL's variables as read once (common/nccl_ib_env.h): a value in
// shape.measured replaces the policy's own; RAILTUNE_NET_QPS (1..128; 0 or unset = the policy's value) sets
// qpsPerConnection; an NCCL_IB_* variable the user set wins over both for its field. A malformed or out-of-range value
// was the reader's warning and counts as unset; the policy's own warnings (RAILTUNE_NET_QPS and
// NCCL_IB_QPS_PER_CONNECTION disagreeing) are in `warnings`.
QpPolicy chooseQpPolicy(const FabricShape& shape, const ncclib::NcclIbEnv& env);
// The same, reading `env` first; `warnings` then holds the reader's warnings too. A null env reads no
// environment (the fabric alone decides). Throws nothing.
QpPolicy chooseQpPolicy(const FabricShape& shape, EnvLookup env);

// The QPs that get a WRITE_WITH_IMM for every message, so that the receiver counts one completion
// per QP: all of the connection's QPs when data is split, else one (successive messages rotate over
// the QPs, as NCCL does).
int qpsPerMessage(const QpPolicy& policy);

// Of those, the QPs that carry bytes for a message of `bytes` (1..qpsPerMessage): one below
// splitMinBytes or when not splitting, else as many as 128-byte-aligned chunks fill. The others get
// a zero-length WRITE_WITH_IMM. A message of 0 bytes is one zero-length WRITE_WITH_IMM.
int dataQpsFor(const QpPolicy& policy, size_t bytes);

// The bytes per data QP: ceil(bytes / dataQps) rounded up to 128 (the last QP takes what is left).
// 0 for 0 bytes; dataQps below 1 counts as 1.
size_t chunkBytesFor(size_t bytes, int dataQps);

// The lines of `why` as "NAME=VALUE  # source" text, changed ones only or all.
std::string describe(const QpPolicy& policy, bool changedOnly);

}  // namespace railtune::qp
