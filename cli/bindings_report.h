// What NCCL would bind from the railtune plugins, as the emulator's loader finds it, and the
// bindings.jsonl record for each binding (docs/formats/bindings.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/plugin_files.h"
#include "common/identity.h"
#include "emulator/loader.h"
#include "formats/schemas.h"

namespace railtune::cli {

struct NcclBindings {
  emu::NcclBehaviour nccl = emu::NcclBehaviour::V2_30;
  std::vector<emu::Binding> bindings;  // net, tuner, profiler, in the order NCCL loads them
  std::string netAssigned;             // the transport NCCL assigns to a communicator ("Socket", ...)
};

// Each plugin selected by its NCCL_*_PLUGIN variable set to the railtune library's absolute path,
// loaded as NCCL of the given behaviour does, including one communicator's net selection.
NcclBindings bindRailtunePlugins(emu::NcclBehaviour nccl, const PluginFiles& files);

// One bindings.jsonl record; identity fields (job, host, pid) per the architecture's rule 6.
nlohmann::json bindingRecord(const NcclBindings& all, const emu::Binding& binding, const Identity& id);

}  // namespace railtune::cli
