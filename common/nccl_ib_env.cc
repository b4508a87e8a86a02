// NCCL's IB variables read by one rule (nccl_ib_env.h). NCCL file:line references are to NVIDIA/nccl v2.30.7,
// src/transport/net_ib/ unless another file is named.
#include "common/nccl_ib_env.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>

namespace railtune::ncclib {
namespace {

constexpr const char* kPolicyChoice = "the QP policy's choice";

struct Row {
  IntVariable variable;
  Setting NcclIbEnv::*field;
};

// What NCCL accepts, and where the number comes from. NCCL itself range-checks none of these: a value outside
// these ranges makes ibv_modify_qp fail on every connection (SL, TC, timeout, retry count, P_Key index), overruns
// NCCL's QP arrays (more than NCCL_IB_MAX_QPS = 128, common.h:172), or is a boolean NCCL tests for one value only.
constexpr Row kRows[] = {
    {{"NCCL_IB_QPS_PER_CONNECTION", 1, 1, 128, false, "connect.cc:60",
      "QPs per port of a connection; NCCL's arrays hold 128 (NCCL_IB_MAX_QPS, common.h:172)",
      "the QP policy's choice (NCCL's default: 1)"},
     &NcclIbEnv::qpsPerConnection},
    {{"NCCL_IB_SPLIT_DATA_ON_QPS", 0, 0, 1, false, "common.cc:22", "NCCL 2.30 splits for 1 only (common.h:382)",
      "the QP policy's choice (NCCL's default: 0)"},
     &NcclIbEnv::splitDataOnQps},
    {{"NCCL_IB_ADAPTIVE_ROUTING", -2, 0, 1, true, "init.cc:12",
      "off or on; -2 is NCCL's default, on for InfiniBand and off for RoCE (init.cc:441-442)",
      "the QP policy's choice (NCCL's default: on for InfiniBand, off for RoCE)"},
     &NcclIbEnv::adaptiveRouting},
    {{"NCCL_IB_AR_THRESHOLD", -2, 0, INT64_MAX, true, "p2p.cc:13",
      "a message size in bytes; -2 is NCCL's default, 8192 (p2p.cc:14, init.cc:476-481)", "NCCL's default 8192 bytes"},
     &NcclIbEnv::arThreshold},
    {{"NCCL_IB_GID_INDEX", -1, 0, 255, true, "connect.cc:12",
      "an index of the port's GID table (ibv_ah_attr's sgid_index is 8 bits); -1 is NCCL's default, its scan",
      "the QP policy's choice (NCCL's default: -1, NCCL's scan for the RoCE v2 GID)"},
     &NcclIbEnv::gidIndex},
    {{"NCCL_IB_ROCE_VERSION_NUM", 2, 1, 2, false, "connect.cc:14", "RoCE v1 or v2, what the GID scan looks for",
      "NCCL's default 2"},
     &NcclIbEnv::roceVersion},
    {{"NCCL_IB_ROUTABLE_FLID_GID_INDEX", 1, 0, 255, false, "connect.cc:13", "an index of the port's GID table (8 bits)",
      "NCCL's default 1"},
     &NcclIbEnv::routableFlidGidIndex},
    {{"NCCL_IB_TC", -1, 0, 255, true, "connect.cc:20",
      "the 8-bit GRH traffic class; -1 is NCCL's default, the communicator's traffic class, else 0",
      "the QP policy's choice (NCCL's default: -1, the communicator's traffic class, else 0)"},
     &NcclIbEnv::trafficClass},
    {{"NCCL_IB_FIFO_TC", -1, 0, 255, true, "connect.cc:21",
      "the 8-bit GRH traffic class of the receiver's clear-to-send writes; -1 is NCCL's default, the sender's class",
      "NCCL's default -1 (the sender's traffic class)"},
     &NcclIbEnv::fifoTrafficClass},
    {{"NCCL_IB_SL", -1, 0, 15, true, "connect.cc:19",
      "the 4-bit IB service level; -1 is NCCL's default, the communicator's traffic class, else 0",
      "the QP policy's choice (NCCL's default: -1, the communicator's traffic class, else 0)"},
     &NcclIbEnv::serviceLevel},
    {{"NCCL_IB_TIMEOUT", 20, 0, 31, false, "connect.cc:15",
      "the 5-bit IB local ACK timeout, 4.096 us x 2^value per try (0: wait forever)",
      "NCCL's default 20 (4.096 us x 2^20, about 4.3 s per try)"},
     &NcclIbEnv::timeout},
    {{"NCCL_IB_RETRY_CNT", 7, 0, 7, false, "connect.cc:16", "the 3-bit IB retry count", "NCCL's default 7"},
     &NcclIbEnv::retryCount},
    {{"NCCL_IB_PKEY", 0, 0, 65535, false, "connect.cc:17", "an index of the port's P_Key table (16 bits)",
      "NCCL's default 0"},
     &NcclIbEnv::pkeyIndex},
    {{"NCCL_IB_USE_INLINE", 0, 0, 1, false, "connect.cc:18", "off or on", "NCCL's default 0 (off)"},
     &NcclIbEnv::useInline},
    {{"NCCL_IB_PCI_RELAXED_ORDERING", 2, 0, 2, false, "init.cc:11",
      "0 off; 1 and 2 on where libibverbs has ibv_reg_mr_iova2, which NCCL 2.30 treats alike (init.cc:142-150)",
      "NCCL's default 2 (on where libibverbs can)"},
     &NcclIbEnv::pciRelaxedOrdering},
    {{"NCCL_GDR_FLUSH_DISABLE", 0, 0, 1, false, "connect.cc:1354", "off or on",
      "NCCL's default 0 (GPU memory flushed after a receive)"},
     &NcclIbEnv::gdrFlushDisable},
    {{"NCCL_IB_RESILIENCY_PORT_FAILOVER", 0, 0, 1, false, "p2p_resiliency.cc:13",
      "off or on (NCCL 2.29+): on, NCCL replays a failed device's requests on the other devices of a merged NIC",
      "NCCL's default 0. railtune's verbs connections have one port each, so on has no effect there: a WARN at init "
      "says so (docs/net-ib.md)"},
     &NcclIbEnv::resiliencyPortFailover},
};

std::string rangeText(const IntVariable& v) {
  std::string text =
      v.high == INT64_MAX ? std::to_string(v.low) + " or more" : std::to_string(v.low) + ".." + std::to_string(v.high);
  if (v.hasUnsetValue) text = std::to_string(v.ncclDefault) + " or " + text;
  return text;
}

bool accepted(const IntVariable& v, int64_t value) {
  return (value >= v.low && value <= v.high) || (v.hasUnsetValue && value == v.ncclDefault);
}

// What NCCL's ncclLoadParam makes of a non-empty value that is not a whole integer (param.cc:90-101): strtoll
// without an end check, so "4x" is 4 and "abc" is 0; an overflow (ERANGE) is NCCL's default.
std::string ncclReading(const IntVariable& v, const std::string& raw) {
  errno = 0;
  const long long prefix = std::strtoll(raw.c_str(), nullptr, 0);
  if (errno != 0) return "NCCL would fall back to its default " + std::to_string(v.ncclDefault);
  return "NCCL would read " + std::to_string(prefix);
}

Setting readOne(const IntVariable& v, EnvLookup env, std::vector<std::string>& warnings) {
  Setting unset{v.ncclDefault, false};
  if (env == nullptr) return unset;
  const std::optional<std::string> raw = env(v.name);
  if (!raw || raw->empty()) return unset;  // NCCL: an empty value is unset (param.cc:93)
  int64_t parsed = 0;
  if (!parseIntText(*raw, &parsed)) {
    warnings.push_back(std::string(v.name) + "='" + *raw + "' is not an integer (" + ncclReading(v, *raw) +
                       "); railtune uses " + v.whenUnset + ", as if unset");
    return unset;
  }
  if (!accepted(v, parsed)) {
    warnings.push_back(std::string(v.name) + "='" + *raw + "' is outside " + rangeText(v) + " (" + v.range +
                       "); railtune uses " + v.whenUnset + ", as if unset");
    return unset;
  }
  return Setting{parsed, parsed != v.ncclDefault || !v.hasUnsetValue};
}

// RAILTUNE_NET_QPS is railtune's own, read by the parameter table's rules like every RAILTUNE_ variable.
Setting readRailtuneQps(EnvLookup env, std::vector<std::string>& warnings) {
  if (env == nullptr) return {};
  const ParamValue<int64_t> qps = readInt("RAILTUNE_NET_QPS", env);
  if (!qps.ok()) {
    warnings.push_back(qps.error + "; railtune uses " + kPolicyChoice + ", as if unset");
    return {};
  }
  return Setting{qps.value, qps.value > 0};
}

// NCCL's envIbAddrFamily (connect.cc:101-117): AF_INET6 or AF_INET, anything else AF_INET.
bool readAddressFamily(EnvLookup env, std::vector<std::string>& warnings) {
  if (env == nullptr) return false;
  const std::optional<std::string> raw = env("NCCL_IB_ADDR_FAMILY");
  if (!raw || raw->empty() || *raw == "AF_INET") return false;
  if (*raw == "AF_INET6") return true;
  warnings.push_back("NCCL_IB_ADDR_FAMILY='" + *raw +
                     "' is neither AF_INET nor AF_INET6; railtune uses AF_INET, as NCCL does (connect.cc:110-114)");
  return false;
}

}  // namespace

std::span<const IntVariable> intVariables() {
  static const std::vector<IntVariable> variables = [] {
    std::vector<IntVariable> out;
    for (const Row& row : kRows) out.push_back(row.variable);
    return out;
  }();
  return variables;
}

NcclIbEnv readNcclIbEnv(EnvLookup env) {
  NcclIbEnv out;
  for (const Row& row : kRows) out.*row.field = readOne(row.variable, env, out.warnings);
  if (!out.arThreshold.set) out.arThreshold.value = kNcclArThresholdBytes;
  out.railtuneQps = readRailtuneQps(env, out.warnings);
  out.addressFamilyIpv6 = readAddressFamily(env, out.warnings);
  if (env != nullptr) out.addressRange = env("NCCL_IB_ADDR_RANGE").value_or("");
  return out;
}

bool relaxedOrderingEnabled(const NcclIbEnv& env, bool haveRegMrIova2) {
  const int64_t mode = env.pciRelaxedOrdering.value;
  return (mode == 1 || mode == 2) && haveRegMrIova2;
}

std::string renderNcclIbMarkdown() {
  std::string out =
      "## NCCL's IB variables\n\n"
      "The QP policy (`railtune topo env`) and the net plugin's verbs transport read these NCCL variables once, "
      "by one rule (`common/nccl_ib_env.h`), as NCCL's `ncclLoadParam` reads them (`src/misc/param.cc`): an empty "
      "value is unset, a number is decimal, `0x` hex or `0`-prefixed octal. A value that is not a whole integer, "
      "or is outside the range below, is one WARN naming the variable, the value and the value used, and is then "
      "treated as unset. NCCL itself checks none of these ranges: outside them `ibv_modify_qp` fails on every "
      "connection, NCCL's QP arrays overflow, or a flag NCCL tests for one value means something else. Lines are "
      "NCCL v2.30.7's, `src/transport/net_ib/`.\n\n"
      "| variable | NCCL's default (line) | accepted | unset, malformed or out of range: railtune uses |\n"
      "|---|---|---|---|\n";
  for (const IntVariable& v : intVariables()) {
    out.append("| `").append(v.name).append("` | `").append(std::to_string(v.ncclDefault)).append("` (`");
    out.append(v.ncclSource).append("`) | ").append(rangeText(v)).append(": ").append(v.range).append(" | ");
    out.append(v.whenUnset).append(" |\n");
  }
  out.append(
      "| `NCCL_IB_ADDR_FAMILY` | `AF_INET` (`connect.cc:101-117`) | `AF_INET`, `AF_INET6` | `AF_INET`, as NCCL |\n"
      "| `NCCL_IB_ADDR_RANGE` | unset (`connect.cc:119`) | `address/prefix` | any address |\n");
  out.append(
      "\nFor example `NCCL_IB_SL=16` gives `NCCL_IB_SL='16' is outside -1 or 0..15 (the 4-bit IB service level; -1 "
      "is NCCL's default, the communicator's traffic class, else 0); railtune uses the QP policy's choice (NCCL's "
      "default: -1, the communicator's traffic class, else 0), as if unset`. `RAILTUNE_NET_QPS` follows railtune's "
      "own rules (above); a rejected value is treated as unset.\n");
  return out;
}

}  // namespace railtune::ncclib
