// See env.h. The plugin reads this process's environment (RAILTUNE_RAIL_MAP, RAILTUNE_HOST, its two switches), as it
// reads a training process's: the step sets those variables for its run and puts back what was there.
#include "cli/demo/env.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "cli/topo/topo.h"
#include "emulator/env_driver.h"
#include "emulator/loader.h"
#include "topo_gen/launcher_env.h"

namespace railtune::cli {
namespace {

namespace fs = std::filesystem;

// Sets process variables for the step; the destructor restores them.
class StepVariables {
 public:
  void set(const std::string& name, const std::string& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~StepVariables() {
    for (const auto& [name, old] : saved_) old ? ::setenv(name.c_str(), old->c_str(), 1) : ::unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

bool setByUser(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value != nullptr && *value != '\0';
}

// One NCCL release: bind, init, ask every NCCL_* variable of `expected`; lines go to `report`. Returns mismatches.
int askOneRelease(emu::NcclBehaviour nccl, const fs::path& envPlugin, const topo::EnvVars& expected,
                  std::string& report) {
  emu::Loader loader(nccl, emu::EnvSource::fromMap({{"NCCL_ENV_PLUGIN", envPlugin.string()}}));
  const emu::Binding binding = loader.openEnv();
  if (!binding)
    throw std::runtime_error("the env plugin bound nothing under NCCL " + std::string(emu::behaviourName(nccl)));
  emu::EnvDriver driver(binding);
  if (driver.init(emu::ncclVersionNumbers(nccl)) != ncclSuccess)
    throw std::runtime_error("the env plugin's init failed under NCCL " + std::string(emu::behaviourName(nccl)));
  report += "NCCL " + std::string(emu::behaviourName(nccl)) + " binds " + binding.symbol + ":\n";
  int mismatches = 0;
  for (const auto& [name, value] : expected) {
    if (name.rfind("NCCL_", 0) != 0) continue;  // RAILTUNE_RAIL_MAP: the plugin's own input, not NCCL's
    const std::optional<std::string> answer = driver.getEnv(name);
    const bool user = setByUser(name);
    const bool same = answer && *answer == value;
    if (!same && !user) ++mismatches;
    report += "  " + name + "=" + answer.value_or("(no answer)") +
              (user   ? "   (set in this environment, which wins)"
               : same ? ""
                      : "   MISMATCH: topo env exports " + value) +
              "\n";
  }
  driver.finalize();
  return mismatches;
}

}  // namespace

int writeDemoEnv(const fs::path& dir, const fs::path& envPlugin, const fs::path& topologyDir,
                 const std::string& fabricPath) {
  const fabric::Fabric model = loadFabricOption(fabricPath);
  if (model.hosts.empty()) return 0;
  const std::string host = model.hosts.front().name;
  const std::string topoFile = (topologyDir / "nccl-topo" / "{host}.xml").string();
  StepVariables vars;
  vars.set("RAILTUNE_RAIL_MAP", (topologyDir / "rail-map.json").string());
  vars.set("RAILTUNE_HOST", host);
  vars.set("RAILTUNE_ENV_TOPO_FILE", topoFile);
  vars.set("RAILTUNE_ENV_PLUGINS", "net,tuner,profiler");
  std::string report = "Env plugin (NCCL_ENV_PLUGIN=" + envPlugin.string() + ") for host " + host + ":\n";
  int mismatches = 0;
  for (emu::NcclBehaviour nccl : {emu::NcclBehaviour::V2_28, emu::NcclBehaviour::V2_30}) {
    topo::LauncherEnvOptions options;
    options.host = host;
    options.ncclMinor = nccl == emu::NcclBehaviour::V2_28 ? 28 : 30;
    options.topoFile = topoFile;
    options.pluginDir = envPlugin.parent_path().string();
    options.env = processEnv;
    mismatches += askOneRelease(nccl, envPlugin, topo::launcherEnv(model, options), report);
  }
  std::error_code ec;
  fs::create_directories(dir / "env", ec);
  std::ofstream out(dir / "env" / "answers.txt", std::ios::trunc);
  out << report;
  if (!out.flush()) throw std::runtime_error("cannot write " + (dir / "env" / "answers.txt").string());
  std::printf("%s", report.c_str());
  std::printf("Wrote %s (%d answer(s) differ from topo env's)\n\n", (dir / "env" / "answers.txt").c_str(), mismatches);
  return mismatches;
}

}  // namespace railtune::cli
