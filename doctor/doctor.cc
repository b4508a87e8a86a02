#include "doctor/doctor.h"

#include "common/identity.h"
#include "doctor/elf_fit.h"
#include "doctor/env_checks.h"
#include "doctor/env_plugin_check.h"
#include "doctor/fabric_checks.h"
#include "doctor/gpu_checks.h"
#include "doctor/nccl_check.h"
#include "doctor/plugin_checks.h"
#include "doctor/plugin_env.h"

namespace railtune::doctor {

DoctorRun runChecks(const DoctorOptions& options) {
  DoctorRun run;
  run.host = options.host.empty() ? resolveIdentity().host : options.host;
  Report& report = run.report;
  const Platform platform = thisPlatform();
  const Check platformLine = platformCheck(platform);
  report.add(platformLine.id, platformLine.status, platformLine.message, platformLine.fix);
  const NcclFound nccl = checkNccl(options, report);
  checkPlugins(options, nccl, platform, report);
  checkPluginVariables(options, report);
  checkEnvPlugin(options, nccl, run.host, report);
  checkRailtuneVariables(report);
  const RailMapState railMap = checkRailMap(options, run.host, report);
  checkNics(options, railMap, report);
  checkTopoFile(railMap, report);
  checkNcclVariables(options, railMap.map ? &*railMap.map : nullptr, railMap.host(), report);
  checkGpus(options, platform, report);
  return run;
}

}  // namespace railtune::doctor
