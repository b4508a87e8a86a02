// describeModel(): the model's inputs and corrections as text for the decisions table.
#include <string>

#include "common/printed.h"
#include "tuner_plugin/model/advise.h"
#include "tuner_plugin/model/corrections.h"
#include "tuner_plugin/model/cost_model.h"

namespace railtune::tuner::model {
namespace {

std::string fabricLine(const FabricFacts& f) {
  std::string s = printed("fabric: NVLink %.1f GB/s per GPU; network %.1f GB/s per GPU (%d rails x %.0f Gb/s",
                          f.nvlinkBwPerGpu, f.netBwPerGpu, f.railsPerHost, f.nicGbps);
  s += printed(" / %d GPUs per host, %d plane(s)), ", f.gpusPerHost, f.planes);
  s += f.fromRailMap ? "from the rail map" : "defaults, no rail map";
  if (f.hostsDiffer) s += ", minimum over differing hosts";
  return s + "\n";
}

}  // namespace

std::string describeModel(const ModelInputs& in) {
  std::string s = printed("model inputs: nRanks %d, nNodes %d, NVLink domains %d x %d ranks", in.nRanks, in.nNodes,
                          in.nDomains, in.ranksPerDomain);
  s += in.nvlFromNccl ? " (NCCL's nvlDomainInfo)" : " (from nNodes, nRanks / nNodes)";
  s += in.constantsFromNccl ? "; NCCL's constants\n" : "; NCCL 2.30 default constants\n";
  s += fabricLine(in.fabric);
  // What domainSpansHosts compares, in its own terms: the domain's ranks against the largest host's GPUs.
  s += printed("correction: NVLS efficiency %.3f (NCCL %.2f), ", kNvlsEfficiencyMultiNodeNvlink,
               kNcclNvlsEfficiencyBlackwell);
  const char* hostSource = in.fabric.fromRailMap ? "rail map" : "defaults";
  s += domainSpansHosts(in)
           ? printed("applied: an NVLink domain of %d ranks spans hosts of at most %d GPUs (%s): multi-node NVLink\n",
                     in.ranksPerDomain, in.fabric.largestHostGpus, hostSource)
           : printed("not applied: an NVLink domain of %d ranks fits in one host of %d GPUs (%s)\n", in.ranksPerDomain,
                     in.fabric.largestHostGpus, hostSource);
  s += printed("correction: Ring/Simple NVLink efficiency %.3f, bus bandwidth %.1f -> %.1f GB/s\n",
               kRingSimpleNvlinkEfficiency, ringNvlinkBusBandwidth(in),
               ringNvlinkBusBandwidth(in) * kRingSimpleNvlinkEfficiency);
  return s;
}

}  // namespace railtune::tuner::model
