// Bus bandwidth per (collective, algorithm, protocol): NCCL's refinements (src/graph/tuning.cc) applied
// to the bandwidth the fabric gives each algorithm, then the corrections of corrections.h.
#include <algorithm>
#include <limits>

#include "tuner_plugin/model/corrections.h"
#include "tuner_plugin/model/cost_model.h"
#include "tuner_plugin/model/cost_model_internal.h"

namespace railtune::tuner::model {
namespace {

using detail::kBlackwellRow;

// NCCL's sm100SpeedArrayIntra (src/graph/search.cc): the per-channel speeds its search tries, fastest
// first. The model rounds down to one of them, as the search would.
constexpr double kSm100Speeds[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr int kRingSearchChannels = 8;  // the first ring solution on an NVSwitch; duplicated to 16
constexpr int kMaxRingChannels = 16;

double searchSpeed(double limit) {
  for (double s : kSm100Speeds)
    if (s <= limit) return s;
  return limit;
}

struct RingShape {
  double busBw = 0;
  int channels = 0;
  bool nvlinkBound = true;
};

// Ring (and Tree) bandwidth: NVLink-bound inside a domain, else the NICs of a node; two channels per NIC.
RingShape ringShape(const ModelInputs& in) {
  RingShape r{ringNvlinkBusBandwidth(in), kMaxRingChannels, true};
  const double netPerNode = in.fabric.netBwPerGpu * detail::ranksPerNode(in);
  if (in.nNodes > 1 && netPerNode < r.busBw) {
    const double nics = in.fabric.nicGbps > 0 ? netPerNode / (in.fabric.nicGbps / 8.0) : 1.0;
    r = {netPerNode, std::clamp(static_cast<int>(2 * nics + 0.5), 1, kMaxRingChannels), false};
  }
  return r;
}

double llMaxBw(const ModelInputs& in) {
  // Multi-node: NCCL picks the row by CPU, row 0 unless AMD; Grace (ARM) gives row 0.
  return in.nNodes == 1 ? in.constants.llMaxBws[kBlackwellRow][0] : in.constants.llMaxBws[0][detail::scaleIndex(in)];
}

double ringBus(const ModelInputs& in, Protocol p) {
  const RingShape r = ringShape(in);
  const int s = detail::scaleIndex(in);
  if (p == Protocol::LL) return std::min(llMaxBw(in), r.busBw * 0.5);
  if (p == Protocol::LL128)
    return std::min(r.busBw * 0.92, r.channels * in.constants.perChMaxRingLL128Bws[kBlackwellRow][s]);
  return r.busBw * (r.nvlinkBound ? kRingSimpleNvlinkEfficiency : 1.0);
}

double treeBus(const ModelInputs& in, Protocol p) {
  const RingShape r = ringShape(in);
  const auto& k = in.constants;
  const int s = detail::scaleIndex(in);
  double bus = std::min(r.busBw * 0.92, r.channels * k.perChMaxTreeBws[kBlackwellRow][s]);
  if (p == Protocol::LL) bus = std::min(bus / 3.8, llMaxBw(in));
  if (p == Protocol::LL128)
    bus = std::min(bus * (in.nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                   r.channels * k.perChMaxTreeLL128Bws[kBlackwellRow][s]);
  return bus;
}

double nvlsEfficiency(const ModelInputs& in) {
  return domainSpansHosts(in) ? kNvlsEfficiencyMultiNodeNvlink : kNcclNvlsEfficiencyBlackwell;
}

double nvlsTreeBus(const ModelInputs& in, Collective c) {
  const int heads = detail::nvlsHeads(in);
  const double netPerHead = in.fabric.netBwPerGpu * detail::ranksPerNode(in) / heads;
  const double intraSpeed = searchSpeed(std::min(in.fabric.nvlinkBwPerGpu / (heads + 1), netPerHead));
  const double interSpeed = std::min(2 * intraSpeed, netPerHead) * (in.nNodes <= 2 ? 2.0 : 1.0);
  const double intra = nvlsBusBandwidth(in, c, nvlsEfficiency(in)) / heads;
  const double cap = in.constants.perChMaxNVLSTreeBws[kBlackwellRow][detail::scaleIndex(in)];
  return heads * std::min({intra, interSpeed, cap});
}

}  // namespace

double ringNvlinkBusBandwidth(const ModelInputs& in) {
  return kRingSearchChannels * searchSpeed(in.fabric.nvlinkBwPerGpu / kRingSearchChannels);
}

double nvlsBusBandwidth(const ModelInputs& in, Collective c, double efficiency) {
  const int heads = detail::nvlsHeads(in), ppn = detail::ranksPerNode(in);
  if (heads < 2) return 0;
  double perChannel = in.fabric.nvlinkBwPerGpu / (heads + 1);  // every head also carries its own share
  if (in.nNodes > 1) perChannel = std::min(perChannel, in.fabric.netBwPerGpu * ppn / heads);
  double bw = searchSpeed(perChannel) * efficiency * (heads - 1) / heads;
  bw *= c == Collective::AllReduce ? 2.0 : static_cast<double>(ppn - 1) / ppn;
  return heads * bw;
}

double busBandwidth(const ModelInputs& in, Collective c, Algorithm a, Protocol p) {
  if (!cellUsable(in, c, a, p)) return 0;
  switch (a) {
    case Algorithm::Ring:
      return ringBus(in, p);
    case Algorithm::Tree:
      return treeBus(in, p);
    case Algorithm::Nvls:
      return nvlsBusBandwidth(in, c, nvlsEfficiency(in));
    case Algorithm::NvlsTree:
      return nvlsTreeBus(in, c);
    case Algorithm::Pat:
      return std::min(in.fabric.netBwPerGpu * detail::ranksPerNode(in), ringNvlinkBusBandwidth(in)) * 0.75;
    default:
      return 0;
  }
}

}  // namespace railtune::tuner::model
