#include "doctor/nccl_check.h"

#include "doctor/probe.h"
#include "emulator/loader.h"

namespace railtune::doctor {
namespace {

constexpr const char* kId = "nccl.library";

void reportFound(const NcclFound& found, Report& report) {
  const std::string text =
      "NCCL " + ncclVersionText(found.versionCode) + " (" + std::to_string(found.versionCode) + ") at " + found.path;
  if (found.versionCode < 21900)
    report.add(kId, Status::Warn, text + ": older than 2.19, which railtune's plugins are not written for",
               "use NCCL 2.28 or newer (the plugins are tested against 2.28.9 and 2.30.7)");
  else if (found.versionCode < 22300)
    report.add(kId, Status::Warn, text + ": before 2.23 NCCL loads no profiler plugin",
               "use NCCL 2.28 or newer for the profiler (the plugins are tested against 2.28.9 and 2.30.7)");
  else
    report.add(kId, Status::Ok, text);
}

}  // namespace

NcclFound checkNccl(const DoctorOptions& options, Report& report) {
  if (options.noNccl) {
    report.add(kId, Status::Skip, "NCCL not looked for (--no-nccl)");
    return {};
  }
  const bool explicitPath = !options.ncclLib.empty();
  const std::string name = explicitPath ? options.ncclLib : kDefaultNcclLibrary;
  const ProbeResult probe = runProbe({"nccl", name}, options.timeoutSeconds);
  NcclFound found;
  if (!probe.finished() || probe.exitCode != 0) {
    report.add(kId, Status::Fail,
               "loading " + name + " in a child process: the child " + probe.describeEnd(options.timeoutSeconds),
               "this NCCL library crashes or hangs when loaded (constructors): check it with `ldd " + name +
                   "` and NCCL_DEBUG=INFO, or point --nccl-lib at another copy");
    return found;
  }
  if (probe.has("error") && !probe.has("path")) {
    if (explicitPath)
      report.add(
          kId, Status::Fail, "cannot load " + name + ": " + probe.get("error"),
          "point --nccl-lib at libnccl.so.2 (e.g. .../site-packages/nvidia/nccl/lib/libnccl.so.2 in a PyTorch image)");
    else
      report.add(
          kId, Status::Skip, "NCCL not present: the loader finds no " + name + " (" + probe.get("error") + ")",
          "on a GPU node, put NCCL's lib folder on LD_LIBRARY_PATH or pass --nccl-lib PATH (PyTorch wheels keep it in "
          "site-packages/nvidia/nccl/lib)");
    return found;
  }
  if (probe.has("error")) {
    report.add(kId, Status::Fail, probe.get("path") + ": " + probe.get("error"),
               "point --nccl-lib at NCCL's libnccl.so.2");
    return found;
  }
  found.present = true;
  found.path = probe.get("path");
  try {
    found.versionCode = std::stoi(probe.get("version"));
  } catch (const std::exception&) {
    found.present = false;
    report.add(kId, Status::Fail, found.path + ": unreadable version '" + probe.get("version") + "'", "");
    return found;
  }
  reportFound(found, report);
  return found;
}

}  // namespace railtune::doctor
