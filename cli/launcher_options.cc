#include "cli/launcher_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli/plugin_files.h"
#include "topo_gen/measured_net.h"

namespace railtune::cli {

void addLauncherOptions(CLI::App& app, LauncherCliOptions& options) {
  app.add_option("--local-rank", options.env.localRank, "this rank's index among the host's ranks (= its GPU index)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--isolate-gpu", options.env.isolateGpu, "set CUDA_VISIBLE_DEVICES to the local rank's GPU");
  app.add_flag("--one-hca-per-rank", options.env.oneHcaPerRank, "NCCL_IB_HCA lists only the local rank's GPU's NICs");
  app.add_option("--nccl-version", options.ncclVersion, "NCCL version the job runs (2.28 or later)")
      ->capture_default_str();
  app.add_option("--topo-file", options.env.topoFile, "NCCL_TOPO_FILE; {host} is replaced by the host name");
  app.add_option("--rail-map", options.env.railMap, "RAILTUNE_RAIL_MAP: the rail map the plugins read");
  app.add_option("--plugin-dir", options.env.pluginDir,
                 "folder of the railtune plugin libraries; default: the one installed beside railtune");
  app.add_option("--measured", options.measured,
                 "network settings measured by `railtune sweep` (railtune.net-env/1): the entry for this cluster's "
                 "GPU and fabric wins over the QP policy's defaults (docs/qp-policy.md)")
      ->check(CLI::ExistingFile);
}

namespace {

int ncclMinor(const std::string& version) {
  const std::string prefix = "2.";
  const std::string minor = version.rfind(prefix, 0) == 0 ? version.substr(prefix.size()) : "";
  const size_t dot = minor.find('.');
  const std::string digits = minor.substr(0, dot);
  if (digits.empty() || digits.size() > 3 || digits.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("--nccl-version '" + version + "' is not a version like 2.28 or 2.30.7");
  return std::stoi(digits);
}

}  // namespace

std::vector<std::string> launcherFileWarnings(const topo::EnvVars& vars) {
  std::vector<std::string> warnings;
  for (const auto& [name, value] : vars) {
    if (name != "NCCL_TOPO_FILE") continue;
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(value, ec);
    std::string why;
    if (ec || !std::filesystem::exists(status)) {
      why = ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file";
    } else if (!std::filesystem::is_regular_file(status)) {
      why = "not a regular file";
    } else if (::access(value.c_str(), R_OK) != 0) {
      why = std::strerror(errno);
    }
    if (why.empty()) continue;
    warnings.push_back("NCCL_TOPO_FILE=" + value + ": " + why +
                       " here; it is set anyway, and where NCCL cannot open it, NCCL detects the topology itself "
                       "(and says so only at NCCL_DEBUG=INFO)");
  }
  return warnings;
}

topo::LauncherEnvOptions resolveLauncherOptions(const LauncherCliOptions& options) {
  topo::LauncherEnvOptions env = options.env;
  env.ncclMinor = ncclMinor(options.ncclVersion);
  if (env.pluginDir.empty()) {
    const std::filesystem::path installed = defaultPluginDir();
    std::error_code ec;
    if (std::filesystem::is_regular_file(installed / "libnccl-net-railtune.so", ec)) env.pluginDir = installed.string();
  }
  return env;
}

void applyMeasured(const LauncherCliOptions& options, const fabric::Fabric& model, topo::LauncherEnvOptions& env,
                   const std::string& command) {
  if (options.measured.empty()) return;
  const formats::NetEnvChoice choice = topo::measuredForHost(model, env.host, options.measured);
  for (const std::string& note : choice.notes) std::cerr << "railtune " << command << ": note: " << note << "\n";
  env.measured = choice.measured;
}

}  // namespace railtune::cli
