#include "doctor/plugin_checks.h"

#include <filesystem>

#include "doctor/abi_binding.h"
#include "doctor/abi_features.h"
#include "doctor/elf_info.h"
#include "doctor/probe.h"

namespace railtune::doctor {
namespace {

namespace fs = std::filesystem;
using emu::PluginKind;

void checkOne(PluginKind kind, const fs::path& path, const DoctorOptions& options, const NcclFound& nccl,
              const Platform& platform, Report& report) {
  const std::string prefix = std::string("plugin.") + emu::kindName(kind);
  const std::string name = path.filename().string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    report.add(prefix + ".file", Status::Fail, name + " not found in " + path.parent_path().string(),
               "build or install railtune's plugins there, or pass --plugin-dir DIR");
    return;
  }
  if (!fs::is_regular_file(path, ec)) {
    report.add(prefix + ".file", Status::Fail, path.string() + " is not a regular file",
               "replace it with the plugin library");
    return;
  }
  report.add(prefix + ".file", Status::Ok, path.string());
  const ElfInfo elf = readElfFile(path.string());
  const Check fit = elfFitCheck(prefix + ".elf", name, elf, platform);
  report.add(fit.id, fit.status, fit.message, fit.fix);
  if (elf.sectionsRead) {
    const Check abi = abiCheck(kind, name, elf, nccl.present ? std::optional<int>(nccl.versionCode) : std::nullopt);
    report.add(abi.id, abi.status, abi.message, abi.fix);
    const Check newest =
        newestCheck(kind, name, elf, nccl.present ? std::optional<int>(nccl.versionCode) : std::nullopt);
    report.add(newest.id, newest.status, newest.message, newest.fix);
  } else {
    report.add(prefix + ".abi", Status::Fail, name + ": symbols unreadable (see " + prefix + ".elf)",
               "reinstall or rebuild the plugin");
  }
  const Check load = loadCheck(prefix + ".load", path.string(), options.timeoutSeconds);
  report.add(load.id, load.status, load.message, load.fix);
}

}  // namespace

Check loadCheck(const std::string& id, const std::string& path, int timeoutSeconds) {
  const ProbeResult probe = runProbe({"load", path}, timeoutSeconds);
  if (!probe.finished() || probe.exitCode != 0)
    return {id, Status::Fail,
            "dlopen of " + path + " in a child process: the child " + probe.describeEnd(timeoutSeconds),
            "the loader or the library's constructors crash or hang on it here (a truncated copy makes ld.so crash): "
            "reinstall it; if it persists, run NCCL with NCCL_DEBUG=INFO and report it"};
  if (probe.has("error"))
    return {id, Status::Fail, "dlopen(RTLD_NOW|RTLD_LOCAL) fails: " + probe.get("error"),
            "NCCL would fail the same way: fix what the loader names (a missing NEEDED library, wrong architecture, "
            "too old glibc)"};
  return {id, Status::Ok, "dlopen(RTLD_NOW|RTLD_LOCAL) loads " + probe.get("path"), ""};
}

void checkPlugins(const DoctorOptions& options, const NcclFound& nccl, const Platform& platform, Report& report) {
  const fs::path dir = fs::absolute(options.pluginDir).lexically_normal();
  const PluginKind kinds[] = {PluginKind::Net, PluginKind::Tuner, PluginKind::Profiler, PluginKind::Env};
  for (PluginKind kind : kinds)
    checkOne(kind, dir / (std::string("libnccl-") + emu::kindName(kind) + "-railtune.so"), options, nccl, platform,
             report);
}

}  // namespace railtune::doctor
