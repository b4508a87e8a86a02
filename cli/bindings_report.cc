#include "cli/bindings_report.h"

#include <map>

#include "emulator/net_driver.h"

namespace railtune::cli {
namespace {

constexpr uint64_t kDemoCommId = 0xde70;

// NCCL's net step for one communicator: load each entry of the list, init it, keep the first that
// works. The railtune net plugin binds and then steps aside, so the assigned transport is NCCL's own.
emu::Binding bindNet(emu::Loader& loader, std::string* assigned) {
  std::vector<emu::NetCandidate> candidates = loader.openNetList();
  emu::NetSelection selection = emu::selectNet(loader, candidates, kDemoCommId);
  *assigned = selection.chosenName;
  if (selection.driver) selection.driver->finalize();
  for (emu::NetCandidate& candidate : candidates)
    if (!candidate.internal) return std::move(candidate.binding);
  emu::Binding none;
  none.kind = emu::PluginKind::Net;
  return none;
}

}  // namespace

NcclBindings bindRailtunePlugins(emu::NcclBehaviour nccl, const PluginFiles& files) {
  emu::Loader loader(nccl, emu::EnvSource::fromMap({
                               {"NCCL_NET_PLUGIN", files.net.string()},
                               {"NCCL_TUNER_PLUGIN", files.tuner.string()},
                               {"NCCL_PROFILER_PLUGIN", files.profiler.string()},
                           }));
  NcclBindings all;
  all.nccl = nccl;
  all.bindings.push_back(bindNet(loader, &all.netAssigned));
  all.bindings.push_back(loader.openTuner());
  all.bindings.push_back(loader.openProfiler());
  return all;
}

nlohmann::json bindingRecord(const NcclBindings& all, const emu::Binding& binding, const Identity& id) {
  nlohmann::json record{
      {"schema", formats::kBindingsSchema},
      {"job", id.job},
      {"host", id.host},
      {"pid", id.pid},
      {"nccl", emu::behaviourName(all.nccl)},
      {"kind", emu::kindName(binding.kind)},
      {"requested", binding.requested},
      {"library", binding.library ? binding.library->path() : std::string()},
      {"symbol", binding.symbol},
      {"version", binding.version},
      {"bound", static_cast<bool>(binding)},
  };
  if (binding.kind == emu::PluginKind::Net) record["assigned"] = all.netAssigned;
  return record;
}

}  // namespace railtune::cli
