#include "doctor/env_checks.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/params.h"
#include "doctor/check.h"
#include "formats/nccl_if_list.h"

extern char** environ;

namespace railtune::doctor {
namespace {

std::string readError(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Bool:
      return readBool(spec.name).error;
    case ParamType::Int:
      return readInt(spec.name).error;
    case ParamType::String:
    case ParamType::Enum:
      return readString(spec.name).error;
    case ParamType::List:
      return readList(spec.name).error;
  }
  return "unknown parameter type";
}

std::set<std::string> railHcas(const formats::RailMapHost& host) {
  std::set<std::string> hcas;
  for (const formats::RailMapGpu& gpu : host.gpus)
    for (const formats::RailMapNic& nic : gpu.nics) hcas.insert(nic.hca);
  return hcas;
}

// NCCL_IB_HCA in NCCL's syntax (formats/nccl_if_list.h): rail HCAs it rejects, and entries no rail HCA matches.
void checkIbHca(const std::string& value, const formats::RailMapHost& host, Report& report) {
  const formats::NcclIfList filter = formats::parseNcclIfList(value, formats::kMaxIbHcaEntries);
  std::vector<std::string> excluded;
  for (const formats::RailMapGpu& gpu : host.gpus)
    for (const formats::RailMapNic& nic : gpu.nics)
      if (!formats::matchNcclIfList(filter, nic.hca, nic.port).accepted)
        excluded.push_back(nic.hca + ":" + std::to_string(nic.port));
  const std::set<std::string> hcas = railHcas(host);
  std::vector<std::string> offRail;
  if (!filter.exclude)
    for (const formats::NcclIfEntry& entry : filter.entries) {
      const bool matches = std::any_of(hcas.begin(), hcas.end(), [&](const std::string& hca) {
        return formats::ncclIfNameMatches(filter, entry, hca);
      });
      if (!matches) offRail.push_back(entry.name);
    }
  const std::string head = "NCCL_IB_HCA=" + value + " vs the rail map's HCAs of " + host.name + " (" +
                           joined({hcas.begin(), hcas.end()}) + ")";
  if (!excluded.empty())
    report.add("env.NCCL_IB_HCA", Status::Fail, head + ": excludes rail HCA(s) " + joined(excluded),
               "list every rail HCA in NCCL_IB_HCA (or unset it): an excluded rail leaves its GPUs without their NIC");
  else if (!offRail.empty())
    report.add("env.NCCL_IB_HCA", Status::Warn, head + ": names HCA(s) on no rail: " + joined(offRail),
               "remove them from NCCL_IB_HCA, or regenerate the rail map if they are compute NICs");
  else
    report.add("env.NCCL_IB_HCA", Status::Ok, head + ": every rail HCA is accepted");
}

void checkCrossNic(const std::string& value, const formats::RailMap* railMap, Report& report) {
  const bool railOptimized = railMap != nullptr && railMap->rails > 1;
  if (value == "1" && railOptimized)
    report.add("env.NCCL_CROSS_NIC", Status::Warn,
               "NCCL_CROSS_NIC=1 on a rail-optimized fabric (" + std::to_string(railMap->rails) +
                   " rails): rings may leave on one rail and arrive on another, crossing the spine",
               "unset it (NCCL's default 2 lets NCCL decide) or set NCCL_CROSS_NIC=0");
  else
    report.add("env.NCCL_CROSS_NIC", Status::Ok, "NCCL_CROSS_NIC=" + value);
}

void checkMnnvl(const std::string& value, const DoctorOptions& options, Report& report) {
  if (value != "1") {
    report.add("env.NCCL_MNNVL_ENABLE", Status::Ok, "NCCL_MNNVL_ENABLE=" + value);
    return;
  }
  const std::string dir = underRoot(options.root, "/dev/nvidia-caps-imex-channels");
  std::error_code ec;
  bool channel = false;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    channel = channel || it->path().filename().string().rfind("channel", 0) == 0;
  if (channel)
    report.add("env.NCCL_MNNVL_ENABLE", Status::Ok, "NCCL_MNNVL_ENABLE=1 and " + dir + " holds an IMEX channel");
  else
    report.add("env.NCCL_MNNVL_ENABLE", Status::Fail,
               "NCCL_MNNVL_ENABLE=1 but " + dir +
                   " has no channel* (no IMEX channel in this container): NCCL fails to "
                   "import multi-node NVLink memory",
               "run the IMEX daemon and give the pod an IMEX channel (Kubernetes: a ComputeDomain resource claim), or "
               "unset NCCL_MNNVL_ENABLE");
}

}  // namespace

void checkRailtuneVariables(Report& report) {
  int set = 0;
  bool bad = false;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    if (entry.rfind("RAILTUNE_", 0) != 0) continue;
    const std::string name = entry.substr(0, entry.find('='));
    ++set;
    const ParamSpec* spec = findParam(name);
    if (spec == nullptr) {
      bad = true;
      report.add("env." + name, Status::Warn, name + " is not a railtune variable (a typo?); it is ignored",
                 "see `railtune config` for the variables railtune reads");
      continue;
    }
    const std::string error = readError(*spec);
    if (!error.empty()) {
      bad = true;
      report.add("env." + name, Status::Fail, error,
                 "fix the value (docs/config.md); the plugins reject it the same way");
    }
  }
  if (!bad) report.add("env.railtune", Status::Ok, std::to_string(set) + " RAILTUNE_* variable(s) set, all accepted");
}

void checkNcclVariables(const DoctorOptions& options, const formats::RailMap* railMap,
                        const formats::RailMapHost* railHost, Report& report) {
  if (const auto hca = processEnv("NCCL_IB_HCA")) {
    if (railHost != nullptr)
      checkIbHca(*hca, *railHost, report);
    else
      report.add("env.NCCL_IB_HCA", Status::Skip,
                 "NCCL_IB_HCA=" + *hca + ": no rail map entry for this host to compare with");
  }
  if (const auto cross = processEnv("NCCL_CROSS_NIC")) checkCrossNic(*cross, railMap, report);
  if (const auto mnnvl = processEnv("NCCL_MNNVL_ENABLE")) checkMnnvl(*mnnvl, options, report);
}

}  // namespace railtune::doctor
