// The network setting a run was measured under: the combination of `railtune sweep run --env NAME=V1,V2,...`
// that the run had (docs/sweep.md, "Environment matrices"), carried on every dataset row as `net_env`. Rows of
// different settings are different measurements: the rules never pool them, and algorithm rules use only the rows
// of one setting (none, unless `sweep rules --net-env-rows` names another).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace railtune::sweep {

// Variable -> value, as set (NCCL_IB_ADAPTIVE_ROUTING -> "1"); empty: no setting of the matrix.
using NetEnv = std::map<std::string, std::string>;

// Whether a name is an NCCL variable's: NCCL_ then capitals, digits and underscores.
bool isNcclVariableName(std::string_view name);

// Why a variable cannot be a setting measured (a matrix variable, a net_env key): the sweep forces it per run
// (NCCL_ALGO, NCCL_PROTO, the channel counts, NCCL_TUNER_PLUGIN), or NCCL's debug output, which the sweep reads,
// depends on it; or it is no NCCL variable. "" when it can be.
std::string whyNotANetSetting(std::string_view name);

// The short name of a variable in run ids: NCCL_IB_QPS_PER_CONNECTION -> "qps", NCCL_IB_SPLIT_DATA_ON_QPS ->
// "split", NCCL_IB_ADAPTIVE_ROUTING -> "ar", NCCL_IB_AR_THRESHOLD -> "arthr", NCCL_NCHANNELS_PER_NET_PEER ->
// "chpeer", NCCL_CROSS_NIC -> "xnic"; any other lowercased without NCCL_ (NCCL_SOCKET_NTHREADS ->
// "socket_nthreads").
std::string netEnvTagName(std::string_view name);
// Whether the variable is one of the network settings with a short name above: the ones `sweep parse` also takes
// from NCCL's own "NAME set by environment to V." lines (others there are the cluster's configuration).
bool isKnownNetSetting(std::string_view name);
// A value as it appears in a run id: ASCII letters lowered, digits kept, anything else '_' ("-2" -> "_2").
std::string netEnvTagValue(std::string_view value);
// The combination's part of a run id: "ar1-split1" (names in order); "" for none.
std::string netEnvTag(const NetEnv& env);
// "NCCL_IB_ADAPTIVE_ROUTING=1 NCCL_IB_SPLIT_DATA_ON_QPS=1"; "" for none.
std::string netEnvLabel(const NetEnv& env);

// A known setting's value as NCCL reads it (strtoll, base 0): "0x4" and "04" are "4", as NCCL's own "set by
// environment to 4." line says, so one setting spelled two ways is one measurement. Other names, and values NCCL
// would reject, stay as given.
std::string netEnvValue(std::string_view name, const std::string& value);
NetEnv netEnvAsNcclReadsIt(const NetEnv& env);
// The settings among variables that forced a run (`sweep parse --env`): every name whyNotANetSetting accepts,
// values as NCCL reads them.
NetEnv netEnvOfOption(const std::map<std::string, std::string>& env);
// The settings among NCCL's "NAME set by environment to V." lines (src/misc/param.cc:100@v2.30.7,
// :89@v2.28.9): the known ones only (isKnownNetSetting).
NetEnv netEnvOfNcclLog(const std::map<std::string, std::string>& setByEnvironment);

}  // namespace railtune::sweep
