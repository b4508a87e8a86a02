// The answers of the env plugin for this host: the NCCL_* table formats::hostNcclEnv computes from the rail map
// (RAILTUNE_RAIL_MAP), the same table `railtune topo env` exports. Built once at init and never changed after, so
// that getEnv reads it from any thread without a lock and every string it hands NCCL stays valid and whole until
// the plugin is unloaded (NCCL's header asks for "until finalize or the next getEnv of the same name").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/params.h"

namespace railtune::envplugin {

class HostTable {
 public:
  explicit HostTable(std::vector<std::pair<std::string, std::string>> vars) : vars_(std::move(vars)) {}
  // The table's value of `name`, or null when the table does not set it. Allocates nothing.
  const char* find(const char* name) const noexcept;
  const std::vector<std::pair<std::string, std::string>>& vars() const { return vars_; }

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
};

// What init found: a table, or why there is none (the one WARN's text; the plugin then passes every name through).
struct TableResult {
  std::unique_ptr<const HostTable> table;
  std::string host;     // the host looked up in the map
  std::string railMap;  // RAILTUNE_RAIL_MAP's value
  std::string problem;  // "" when table is set
};

// Where the plugin's switches come from; `pluginDir` is the folder of libnccl-env-railtune.so, where the other
// railtune plugins are looked for (RAILTUNE_ENV_PLUGINS).
struct TableInputs {
  uint8_t ncclMajor = 2, ncclMinor = 30;
  std::string pluginDir;
  EnvLookup env = processEnv;
};

// Reads RAILTUNE_RAIL_MAP, the host (RAILTUNE_HOST, else NCCL_HOSTID, else the hostname), RAILTUNE_ENV_TOPO_FILE
// and RAILTUNE_ENV_PLUGINS, and computes the host's table. Never throws: every problem is in `problem`.
TableResult buildHostTable(const TableInputs& inputs) noexcept;

// NCCL 2.<minor> as the table's version switch wants it: a newer major counts as the newest minor known.
int tableMinor(uint8_t ncclMajor, uint8_t ncclMinor);

}  // namespace railtune::envplugin
