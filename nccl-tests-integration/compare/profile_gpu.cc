// The GPU of each built-in hardware profile, and the profile `sweep compare --model` asks with (profile_gpu.h).
#include "nccl-tests-integration/compare/profile_gpu.h"

#include <set>

#include "emulator/nccl_model/terms.h"

namespace railtune::sweep {
namespace {

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
  std::set<std::string> profiles;
  std::string gpus;
  for (const auto& [gpu, n] : groups.byGpu) {
    const std::optional<std::string> profile = ncclmodel::profileForGpu(gpu);
    if (!profile) {
      how = "the default; no built-in profile models " + gpu;
      return "";
    }
    profiles.insert(*profile);
    gpus += (gpus.empty() ? "" : ", ") + gpu;
  }
  if (profiles.size() != 1) {
    how = profiles.empty() ? "the default; the data names no GPU"
                           : "the default; the data's GPUs (" + gpus + ") have different profiles";
    return "";
  }
  how = "picked from the data: every group is " + gpus;
  return *profiles.begin();
}

// One warning per GPU of the data that the profile does not model, naming the profile that does.
std::vector<std::string> mismatches(const std::string& profile, const GpuGroups& groups) {
  std::vector<std::string> out;
  const std::optional<std::string> model = ncclmodel::gpuForProfile(profile);
  if (!model) return out;  // a profile of no known GPU: nothing to compare with
  for (const auto& [gpu, n] : groups.byGpu) {
    const std::optional<std::string> other = ncclmodel::profileForGpu(gpu);
    if (other == profile) continue;
    out.push_back("--model: profile " + profile + " models " + *model + "; " + countedGroups(n) +
                  (n == 1 ? " is " : " are ") + gpu +
                  (!other ? " (no built-in profile models it: the regret is the " + profile + " model's)"
                          : " (pass --profile " + *other + ")"));
  }
  return out;
}

}  // namespace

GpuGroups gpuGroupsOf(const Aggregate& aggregate) {
  GpuGroups out;
  // The GPU is part of a group's shape (dataset.h), so a group is of one GPU or of rows that name none.
  for (const auto& [key, table] : aggregate.groups) {
    if (key.shape.gpu.empty())
      ++out.unnamed;
    else
      ++out.byGpu[key.shape.gpu];
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
