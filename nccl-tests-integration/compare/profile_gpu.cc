// The GPU of each built-in hardware profile, and the profile `sweep compare --model` asks with (profile_gpu.h).
#include "nccl-tests-integration/compare/profile_gpu.h"

#include <set>

namespace railtune::sweep {
namespace {

// The built-in profiles (emulator/data/graphs/, fabric/profiles/) and the GPU model that nccl-tests' device lines
// name on each system. The superchips report "NVIDIA GB300" and "NVIDIA GB200", not the B300 or B200 die that
// fabric/profiles/*.yaml names; DGX H100 reports "NVIDIA H100 80GB HBM3", DGX B200 "NVIDIA B200". A profile
// added to the emulator without a line here is asked as named and never warned about.
struct ProfileGpu {
  std::string_view profile, model;
};
constexpr ProfileGpu kProfileGpus[] = {
    {"gb300-nvl72", "GB300"}, {"gb200-nvl72", "GB200"}, {"dgx-h100", "H100"}, {"dgx-b200", "B200"}};

std::string countedGroups(size_t n) {
  return std::to_string(n) + (n == 1 ? " group" : " groups");
}

// The one profile every group's GPU maps to, or "" with why none is picked.
std::string pickedProfile(const GpuGroups& groups, std::string& how) {
  if (groups.unnamed > 0) {
    how = "the default; " + countedGroups(groups.unnamed) + " of the data " + (groups.unnamed == 1 ? "names" : "name") +
          " no GPU";
    return "";
  }
  if (groups.pooled > 0) {
    how = "the default; " + countedGroups(groups.pooled) + " of the data " + (groups.pooled == 1 ? "pools" : "pool") +
          " several GPU models";
    return "";
  }
  std::set<std::string_view> profiles;
  std::string gpus;
  for (const auto& [gpu, n] : groups.byGpu) {
    const std::string_view profile = profileOfGpuModel(gpuModelOf(gpu));
    if (profile.empty()) {
      how = "the default; no built-in profile models " + gpu;
      return "";
    }
    profiles.insert(profile);
    gpus += (gpus.empty() ? "" : ", ") + gpu;
  }
  if (profiles.size() != 1) {
    how = profiles.empty() ? "the default; the data names no GPU"
                           : "the default; the data's GPUs (" + gpus + ") have different profiles";
    return "";
  }
  how = "picked from the data: every group is " + gpus;
  return std::string(*profiles.begin());
}

// One warning per GPU of the data that the profile does not model, naming the profile that does.
std::vector<std::string> mismatches(const std::string& profile, const GpuGroups& groups) {
  std::vector<std::string> out;
  const std::string_view model = profileGpuModel(profile);
  if (model.empty()) return out;  // a profile of no known GPU: nothing to compare with
  for (const auto& [gpu, n] : groups.byGpu) {
    const std::string dataModel = gpuModelOf(gpu);
    if (dataModel == model) continue;
    const std::string_view other = profileOfGpuModel(dataModel);
    out.push_back("--model: profile " + profile + " models NVIDIA " + std::string(model) + "; " + countedGroups(n) +
                  (n == 1 ? " is " : " are ") + gpu +
                  (other.empty() ? " (no built-in profile models it: the regret is the " + profile + " model's)"
                                 : " (pass --profile " + std::string(other) + ")"));
  }
  return out;
}

}  // namespace

std::string gpuModelOf(std::string_view deviceName) {
  while (!deviceName.empty() && deviceName.front() == ' ') deviceName.remove_prefix(1);
  if (deviceName.starts_with("NVIDIA ")) deviceName.remove_prefix(7);
  while (!deviceName.empty() && deviceName.front() == ' ') deviceName.remove_prefix(1);
  return std::string(deviceName.substr(0, deviceName.find_first_of(" -")));
}

std::string_view profileGpuModel(std::string_view profile) {
  for (const ProfileGpu& p : kProfileGpus)
    if (p.profile == profile) return p.model;
  return {};
}

std::string_view profileOfGpuModel(std::string_view model) {
  for (const ProfileGpu& p : kProfileGpus)
    if (p.model == model) return p.profile;
  return {};
}

GpuGroups gpuGroupsOf(const Aggregate& aggregate) {
  GpuGroups out;
  for (const auto& [key, table] : aggregate.groups) {
    // The GPU names of the group's rows (rules/aggregate.h). Once the GPU is part of the shape, this is the key's.
    const auto gpus = aggregate.gpusOfGroup.find(key);
    if (gpus == aggregate.gpusOfGroup.end() || gpus->second.empty())
      ++out.unnamed;
    else if (gpus->second.size() > 1)
      ++out.pooled;
    else
      ++out.byGpu[*gpus->second.begin()];
  }
  return out;
}

ProfileChoice chooseProfile(const std::string& requested, const GpuGroups& groups, const std::string& fallback) {
  ProfileChoice out;
  out.profile = requested.empty() ? pickedProfile(groups, out.how) : requested;
  if (out.profile.empty()) out.profile = fallback;
  out.warnings = mismatches(out.profile, groups);
  return out;
}

}  // namespace railtune::sweep
