// Which GPU each built-in hardware profile of the cost model stands for, so that `sweep compare --model` scores
// the model on the data's own GPU: without --profile the profile is picked from the data's device lines, and a
// profile of another GPU than the data's is said once per GPU (a GB300 profile on GB200 data ranks choices by
// GB300's bandwidths, and its regret then says little about the GB200 model).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "nccl-tests-integration/rules/aggregate.h"

namespace railtune::sweep {

// Which profile models which GPU is the emulator's table (ncclmodel::profileForGpu, gpuForProfile): exact
// device-line names, so an H100 PCIe card is not taken for a DGX H100.

// The GPUs the groups of a sweep name: how many groups name each GPU, and how many name none.
struct GpuGroups {
  std::map<std::string, size_t> byGpu;  // the device line's name -> groups of that GPU
  size_t unnamed = 0;
};
GpuGroups gpuGroupsOf(const Aggregate& aggregate);

struct ProfileChoice {
  std::string profile;                // the profile the model is asked with
  std::string how;                    // how it was chosen, for the report's model line ("" when --profile named it)
  std::vector<std::string> warnings;  // one per GPU of the data that the profile does not model
};
// requested: --profile ("" when not given); fallback: the profile used when the data does not pick one.
ProfileChoice chooseProfile(const std::string& requested, const GpuGroups& groups, const std::string& fallback);

}  // namespace railtune::sweep
