#include "doctor/abi_features.h"

#include "doctor/abi_binding.h"
#include "doctor/context.h"

namespace railtune::doctor {
namespace {

struct VersionStep {
  emu::PluginKind kind;
  int version;
  const char* adds;
};

// One line per step, from the header that declares the version (cited as file@release).
constexpr VersionStep kSteps[] = {
    // tuner_v5.h@v2.28.9: init(ctx, commId, ..., nvlDomainInfo, constants).
    {emu::PluginKind::Tuner, 5,
     "tuner v5: the communicator id, NVLink-domain info and NCCL's cost-model constants at init"},
    // tuner_v6.h@v2.30.7: getChunkSize, last in the table.
    {emu::PluginKind::Tuner, 6, "tuner v6: getChunkSize (the tuner's chunk sizes)"},
    // tuner_v7.h, nccl_tuner.h (NCCL_RUBIN_COMPCAP_IDX 4) at the commit that adds v7 (2.32.6).
    {emu::PluginKind::Tuner, 7,
     "tuner v7: the fifth compute-capability row of the constants (NCCL_RUBIN_COMPCAP_IDX): on Rubin GPUs an "
     "older tuner cannot set the constants NCCL uses"},
    // profiler_v5.h@v2.28.9 .. profiler_v7.h@v2.31.2.
    {emu::PluginKind::Profiler, 5, "profiler v5: API and kernel-launch events, 64-bit event types"},
    {emu::PluginKind::Profiler, 6, "profiler v6: copy-engine collective events (CeColl, CeSync, CeBatch)"},
    {emu::PluginKind::Profiler, 7,
     "profiler v7: userTag on CollApi, P2pApi, Coll, P2p and CeColl events (which phase of the step), the "
     "KernelPhase sub-event (initial sync, compute, final sync per channel), kernelVariant and isSymColl on Coll "
     "events (which collectives ran a symmetric kernel)"},
    // net_v11.h@v2.28.9, net_v12.h@v2.30.7.
    {emu::PluginKind::Net, 11, "net v11: per-communicator init with context and config, finalize, setNetAttr"},
    {emu::PluginKind::Net, 12, "net v12: rail and plane ids in the properties, up to 8 devices per virtual device"},
    // env_v2.h@v2.30.7.
    {emu::PluginKind::Env, 2, "env v2: NCCL's logger at init"},
};

int newestTried(int code, emu::PluginKind kind) {
  const std::vector<int> tried = emu::symbolVersionsForNccl(code, kind);
  return tried.empty() ? 0 : tried.front();
}

}  // namespace

const char* versionAdds(emu::PluginKind kind, int version) {
  for (const VersionStep& s : kSteps)
    if (s.kind == kind && s.version == version) return s.adds;
  return nullptr;
}

std::string missedText(emu::PluginKind kind, int bound, int newest) {
  std::string out;
  for (int v = bound + 1; v <= newest; ++v)
    if (const char* adds = versionAdds(kind, v)) out += (out.empty() ? "" : "; ") + std::string(adds);
  return out;
}

Check newestCheck(emu::PluginKind kind, const std::string& fileName, const ElfInfo& lib, std::optional<int> code) {
  const std::string id = std::string("plugin.") + emu::kindName(kind) + ".newest";
  const int release = code.value_or(kNewestReferenceRelease);
  const std::string job = "a job on NCCL " + ncclVersionText(release) + (code ? "" : " (no NCCL here)");
  const int newest = newestTried(release, kind);
  const int bound = boundVersion(release, kind, lib);
  if (newest == 0)
    return {id, Status::Skip, "NCCL " + ncclVersionText(release) + " loads no " + emu::kindName(kind) + " plugin", ""};
  if (bound >= newest)
    return {id, Status::Ok, job + " binds " + emu::symbolName(kind, bound) + ", the newest version it tries", ""};
  const std::string missed = missedText(kind, bound, newest);
  return {id, Status::Warn,
          job + " tries " + emu::symbolName(kind, newest) + " first, which " + fileName + " does not define; " +
              (bound > 0 ? "it binds " + emu::symbolName(kind, bound) : std::string("it binds nothing")) +
              " and misses " + (missed.empty() ? "what the newer versions add" : missed),
          "install a railtune build that exports " + emu::symbolName(kind, newest)};
}

}  // namespace railtune::doctor
