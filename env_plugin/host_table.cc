// The env plugin's table for this host (host_table.h).
#include "env_plugin/host_table.h"

#include <cstring>
#include <exception>
#include <stdexcept>

#include "common/identity.h"
#include "formats/host_nccl_env.h"
#include "formats/rail_map.h"

namespace railtune::envplugin {
namespace {

// RAILTUNE_ENV_PLUGINS: which of railtune's plugins the table names, from the folder of the env plugin's .so.
formats::PluginChoice pluginChoice(const TableInputs& inputs) {
  const ParamValue<std::vector<std::string>> list = readList("RAILTUNE_ENV_PLUGINS", inputs.env);
  if (!list.ok()) throw std::invalid_argument(list.error);
  formats::PluginChoice choice;
  for (const std::string& kind : list.value) {
    choice.net |= kind == "net";
    choice.tuner |= kind == "tuner";
    choice.profiler |= kind == "profiler";
  }
  if (!list.value.empty()) {
    if (inputs.pluginDir.empty())
      throw std::invalid_argument("RAILTUNE_ENV_PLUGINS is set, but the env plugin's own folder is unknown");
    choice.dir = inputs.pluginDir;
  }
  return choice;
}

std::string stringParam(const char* name, EnvLookup env) {
  const ParamValue<std::string> value = readString(name, env);
  if (!value.ok()) throw std::invalid_argument(value.error);
  return value.value;
}

TableResult build(const TableInputs& inputs) {
  TableResult result;
  result.railMap = stringParam("RAILTUNE_RAIL_MAP", inputs.env);
  result.host = resolveIdentity(inputs.env).host;
  if (result.railMap.empty()) {
    result.problem = "RAILTUNE_RAIL_MAP is not set, so there is no rail map to answer from";
    return result;
  }
  const formats::RailMap map = formats::readRailMapFile(result.railMap);
  const formats::RailMapHost* host = map.findHost(result.host);
  if (host == nullptr) {
    result.problem = "host '" + result.host + "' (RAILTUNE_HOST, else NCCL_HOSTID, else the hostname) is not in " +
                     result.railMap + " (" + std::to_string(map.hosts.size()) + " hosts)";
    return result;
  }
  formats::HostNcclEnvOptions options;
  options.ncclMinor = tableMinor(inputs.ncclMajor, inputs.ncclMinor);
  options.topoFile = stringParam("RAILTUNE_ENV_TOPO_FILE", inputs.env);
  options.plugins = pluginChoice(inputs);
  options.env = inputs.env;
  result.table = std::make_unique<const HostTable>(formats::hostNcclEnv(map, *host, options));
  return result;
}

}  // namespace

const char* HostTable::find(const char* name) const noexcept {
  if (std::strncmp(name, "NCCL_", 5) != 0) return nullptr;  // every name the table sets is one of NCCL's
  for (const auto& [var, value] : vars_)
    if (std::strcmp(var.c_str(), name) == 0) return value.c_str();
  return nullptr;
}

int tableMinor(uint8_t ncclMajor, uint8_t ncclMinor) {
  return ncclMajor > 2 ? 99 : ncclMinor;
}

TableResult buildHostTable(const TableInputs& inputs) noexcept {
  try {
    return build(inputs);
  } catch (const std::exception& e) {
    TableResult failed;
    failed.problem = e.what();
    return failed;
  } catch (...) {
    TableResult failed;
    failed.problem = "unknown internal error";
    return failed;
  }
}

}  // namespace railtune::envplugin
