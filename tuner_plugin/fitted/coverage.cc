// Which fit of the file covers a communicator (fitted_model.h): the GPU and fabric from the rail map, the NCCL
// release from the ABI NCCL bound, the scale bucket from nNodes, and the fit's verdict for that bucket.
#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <string_view>

#include "formats/rail_map.h"
#include "tuner_plugin/fitted/fitted_model.h"

namespace railtune::tuner::fitted {
namespace {

namespace tm = formats::tuner_model;

// The fabric a rail map describes, as a fit names it. The map's NICs are RDMA devices, which NCCL drives with
// its IB transport on InfiniBand and on RoCE alike.
struct MapFabric {
  std::string gpu;        // "" = the map does not state it
  std::string linkLayer;  // "InfiniBand" unless the map says Ethernet (the map's documented default)
  int nicMbps = 0;        // the slowest rail NIC's speed; 0 = not stated
};

MapFabric mapFabric(const formats::RailMap& map) {
  MapFabric f;
  f.gpu = map.gpu;
  f.linkLayer = map.network.linkLayer == qp::LinkLayer::Ethernet ? "Ethernet" : "InfiniBand";
  int slowest = INT_MAX;
  for (const formats::RailMapHost& host : map.hosts)
    for (const formats::RailMapGpu& gpu : host.gpus)
      for (const formats::RailMapNic& nic : gpu.nics) slowest = std::min(slowest, nic.speedMbps);
  f.nicMbps = slowest == INT_MAX ? 0 : slowest;
  return f;
}

std::string gbps(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%gG", value);
  return text;
}

std::string mapLabel(const MapFabric& f) {
  return (f.gpu.empty() ? std::string("GPU not stated") : f.gpu) + "/IB " + f.linkLayer + " " +
         (f.nicMbps > 0 ? gbps(f.nicMbps / 1000.0) : std::string("NIC speed not stated"));
}

// NCCL's device names, compared without case and with the "NVIDIA " prefix optional.
std::string canonicalGpu(std::string_view name) {
  std::string text(name);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text.rfind("nvidia ", 0) == 0) text.erase(0, 7);
  return text;
}

bool fabricMatches(const tm::Fabric& fit, const MapFabric& map, size_t nNodes) {
  if (fit.transport == "nvlink") return nNodes == 1;  // fitted inside one NVLink domain: no network crossed
  if (fit.transport != "IB") return false;            // Socket or a net plugin's: not what a rail map describes
  if (fit.linkLayer && *fit.linkLayer != map.linkLayer) return false;
  return !fit.nicGbps || (map.nicMbps > 0 && *fit.nicGbps * 1000.0 == static_cast<double>(map.nicMbps));
}

// The releases a tuner ABI is bound by: v5 by 2.28 and 2.29, v6 by 2.30 (nccl_tuner.h:23@v2.28.9,
// :24@v2.29.7, :25@v2.30.7). Coarse: a later NCCL that still binds v6 reads as 2.30.
bool releaseMatches(const tm::Fit& fit, int abiVersion) {
  const auto listed = [&fit](const char* release) {
    return std::find(fit.appliesTo.nccl.begin(), fit.appliesTo.nccl.end(), release) != fit.appliesTo.nccl.end();
  };
  if (abiVersion == 5) return listed("2.28") || listed("2.29");
  if (abiVersion == 6) return listed("2.30");
  // v7: first bound by 2.32.6 (2.31.2 and 2.32.3 still bind v6; docs/tuning.md, "Tuner v7").
  if (abiVersion == 7) return listed("2.32");
  return true;  // v3/v4: the table transform, approximate for any release before 2.28 (fitted_model.h)
}

std::string shapesText(const std::vector<tm::CommShape>& shapes) {
  std::string out;
  for (const tm::CommShape& s : shapes) out += (out.empty() ? "" : "; ") + tm::commShapeLabel(s);
  return out;
}

std::string prefix(const FitInputs& in) {
  return "RAILTUNE_TUNER_MODEL_FILE=" + in.modelPath + ": ";
}

}  // namespace

std::string fitLabel(const Fit& fit) {
  const tm::Fabric& f = fit.appliesTo.fabric;
  std::string label = fit.appliesTo.gpu + "/" + f.transport;
  if (f.linkLayer) label += " " + *f.linkLayer;
  if (f.nicGbps) label += " " + gbps(*f.nicGbps);
  return label;
}

Coverage coverage(const FitInputs& in, const CommInfo& comm) {
  if (comm.abiVersion == 2)
    return {std::nullopt, prefix(in) + "tuner v2 gets no cost table from NCCL, so no fit applies; NCCL decides"};
  if (in.railMap == nullptr)
    return {std::nullopt, prefix(in) +
                              "no usable rail map (RAILTUNE_RAIL_MAP), so this communicator's GPU and "
                              "fabric are unknown; NCCL's constants and cost table unchanged"};
  const MapFabric map = mapFabric(*in.railMap);
  const std::string ours = mapLabel(map) + " (rail map " + in.railMapPath + ")";
  std::string fits;
  for (const Fit& fit : in.model->fits) {
    fits += (fits.empty() ? "" : ", ") + fitLabel(fit);
    if (map.gpu.empty() || canonicalGpu(fit.appliesTo.gpu) != canonicalGpu(map.gpu)) continue;
    if (!fabricMatches(fit.appliesTo.fabric, map, comm.nNodes) || !releaseMatches(fit, comm.abiVersion)) continue;
    const tm::Scale scale = tm::scaleOfNodes(static_cast<int>(comm.nNodes));
    const tm::Verdict& verdict = fit.usable[static_cast<size_t>(scale)];
    const tm::CommShape shape{static_cast<int>(comm.nRanks), static_cast<int>(comm.nNodes)};
    if (verdict.measuredShapesUsable && !tm::verdictApplies(verdict, shape))
      return {std::nullopt, prefix(in) + "the fit for " + fitLabel(fit) + " is usable at " + tm::scaleName(scale) +
                                " only at the shapes it measured (" + shapesText(verdict.shapes) +
                                "), not this communicator's " + tm::commShapeLabel(shape) + " (" + verdict.why +
                                "); NCCL's constants and cost table unchanged"};
    if (verdict.usable && !tm::verdictApplies(verdict, shape))
      return {std::nullopt, prefix(in) + "the fit for " + fitLabel(fit) + " is usable at " + tm::scaleName(scale) +
                                " from " + std::to_string(verdict.minRanks) + " to " +
                                std::to_string(verdict.maxRanks) + " ranks, the range it measured, not at " +
                                tm::commShapeLabel(shape) + "; NCCL's constants and cost table unchanged"};
    if (!tm::verdictApplies(verdict, shape))
      return {std::nullopt, prefix(in) + "the fit for " + fitLabel(fit) + " is not usable at " + tm::scaleName(scale) +
                                " (" + verdict.why + "); NCCL's constants and cost table unchanged"};
    return {planOf(in, fit, comm), ""};
  }
  const std::string release = comm.abiVersion == 5   ? " and NCCL 2.28/2.29 (tuner v5)"
                              : comm.abiVersion == 6 ? " and NCCL 2.30 (tuner v6)"
                              : comm.abiVersion == 7 ? " and NCCL 2.32 (tuner v7)"
                                                     : "";
  return {std::nullopt, prefix(in) + "fits " + (fits.empty() ? std::string("nothing") : fits) +
                            "; this communicator's GPU and fabric are " + ours + release +
                            ": NCCL's constants and cost table unchanged"};
}

}  // namespace railtune::tuner::fitted
