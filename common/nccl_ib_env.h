// NCCL's IB variables, read once, by one rule, for both of their readers: the QP policy (common/qp_policy.h, also
// behind `railtune topo env`) and the net plugin's verbs transport. Each is read as NCCL's NCCL_PARAM /
// ncclLoadParam reads it (src/misc/param.cc@v2.30.7: empty means unset, strtoll base 0, so decimal, 0x hex and
// 0-prefixed octal), with NCCL's default, then checked against the range NCCL or the hardware accepts. A value
// that is malformed or out of range gives exactly one warning naming the variable, the value given and the value
// used, and is then treated as unset. docs/config.md lists every variable with its range and fallback
// (generated from the table below), docs/net-ib.md what the transport does with it.
//
// Pure: no I/O, no globals; the environment comes in through an EnvLookup.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/params.h"

namespace railtune::ncclib {

// One of NCCL's integer variables.
struct IntVariable {
  const char* name;        // "NCCL_IB_TIMEOUT"
  int64_t ncclDefault;     // NCCL_PARAM's default
  int64_t low, high;       // the values accepted besides `unsetValue`
  bool hasUnsetValue;      // NCCL spells "unset" as a value outside [low, high]: -1 (SL, TC, GID) or -2 (AR)
  const char* ncclSource;  // NCCL v2.30.7 file:line of the NCCL_PARAM, src/transport/net_ib/ unless named
  const char* range;       // why [low, high]: "the 5-bit IB local ACK timeout"
  const char* whenUnset;   // what is used when unset (and after a warning): "NCCL's default 20 (4.096 us x 2^20)"
};

// The value of one variable: what is used, and whether the user's value is (a valid value set in the
// environment). A value NCCL treats as "unset" (-1 for NCCL_IB_SL) counts as not set.
struct Setting {
  int64_t value = 0;
  bool set = false;
};

struct NcclIbEnv {
  Setting qpsPerConnection;        // NCCL_IB_QPS_PER_CONNECTION, 1..128
  Setting splitDataOnQps;          // NCCL_IB_SPLIT_DATA_ON_QPS, 0..1
  Setting adaptiveRouting;         // NCCL_IB_ADAPTIVE_ROUTING, 0..1; -2 (default): on for IB, off for RoCE
  Setting arThreshold;             // NCCL_IB_AR_THRESHOLD, bytes; -2 (default): 8192
  Setting gidIndex;                // NCCL_IB_GID_INDEX, -1 (scan) or 0..255
  Setting roceVersion;             // NCCL_IB_ROCE_VERSION_NUM, 1..2
  Setting routableFlidGidIndex;    // NCCL_IB_ROUTABLE_FLID_GID_INDEX, 0..255
  Setting trafficClass;            // NCCL_IB_TC, -1 or 0..255
  Setting fifoTrafficClass;        // NCCL_IB_FIFO_TC, -1 or 0..255
  Setting serviceLevel;            // NCCL_IB_SL, -1 or 0..15
  Setting timeout;                 // NCCL_IB_TIMEOUT, 0..31
  Setting retryCount;              // NCCL_IB_RETRY_CNT, 0..7
  Setting pkeyIndex;               // NCCL_IB_PKEY, 0..65535
  Setting useInline;               // NCCL_IB_USE_INLINE, 0..1
  Setting pciRelaxedOrdering;      // NCCL_IB_PCI_RELAXED_ORDERING, 0 off, 1 on, 2 (default) on where libibverbs can
  Setting gdrFlushDisable;         // NCCL_GDR_FLUSH_DISABLE, 0..1
  Setting resiliencyPortFailover;  // NCCL_IB_RESILIENCY_PORT_FAILOVER, 0..1 (NCCL 2.29+; no effect on railtune's)
  Setting railtuneQps;             // RAILTUNE_NET_QPS, 0 (the policy's) or 1..128, railtune's rules (common/params.h)
  bool addressFamilyIpv6 = false;  // NCCL_IB_ADDR_FAMILY: AF_INET (default) or AF_INET6
  std::string addressRange;        // NCCL_IB_ADDR_RANGE, "addr/len" as given; "" = any
  std::vector<std::string> warnings;  // one per malformed or out-of-range value, in table order
};

// NCCL's AR threshold when NCCL_IB_AR_THRESHOLD is unset or -2 (p2p.cc:14).
inline constexpr int64_t kNcclArThresholdBytes = 8192;

// Reads every variable above. A null env reads nothing (every value NCCL's default). Throws nothing.
NcclIbEnv readNcclIbEnv(EnvLookup env);

// The integer variables, in the order readNcclIbEnv reads them (and docs/config.md lists them).
std::span<const IntVariable> intVariables();

// True where relaxed ordering is used for a registration, as NCCL's ncclIbRelaxedOrderingCapable (init.cc:142-150):
// NCCL_IB_PCI_RELAXED_ORDERING 1 or 2, and libibverbs has ibv_reg_mr_iova2 (IBVERBS_1.8), the call that takes
// IBV_ACCESS_RELAXED_ORDERING.
bool relaxedOrderingEnabled(const NcclIbEnv& env, bool haveRegMrIova2);

// The docs/config.md section for NCCL's variables, generated from the table.
std::string renderNcclIbMarkdown();

}  // namespace railtune::ncclib
