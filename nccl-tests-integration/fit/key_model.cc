// The emulated model of one fit key (key_model.h).
#include "nccl-tests-integration/fit/key_model.h"

#include <algorithm>

#include "emulator/nccl_model/graph_data.h"

namespace railtune::sweep {
namespace {

// Why a group cannot be modelled, or nullopt with the model built into `out`.
std::optional<std::string> modelGroup(const GroupPoints& group, const std::string& profile,
                                      ncclmodel::NcclVersion version, std::optional<ncclmodel::ShapeModel>& out,
                                      int& minCompCap) {
  if (!group.collective) return "NCCL's cost model does not cost " + group.key.group.collective;
  const Shape& shape = group.key.group.shape;
  // The profiles' multi-node graphs are an InfiniBand (or RoCE) network's; another transport has other graphs.
  if (shape.nodes > 1 && !shape.fabric.transport.empty() && shape.fabric.transport != "IB")
    return "the " + profile + " profile's graphs are for an IB network, not " + shape.fabric.transport;
  const ncclmodel::CommShape comm{shape.ranks, std::max(shape.nodes, 1)};
  try {
    const ncclmodel::GraphShape& graph = ncclmodel::builtinGraphData(profile).shapeFor(comm);
    const ncclmodel::TopologyFacts& facts = graph.factsFor(version);
    out.emplace(version, comm, facts);
    minCompCap = facts.minCompCap;
  } catch (const std::exception& e) {
    return "no graph data for it in profile " + profile + " (" + e.what() + ")";
  }
  return std::nullopt;
}

}  // namespace

KeyShapes buildKeyShapes(const FitPoints& points, std::span<const size_t> groups, ncclmodel::NcclVersion version,
                         const std::optional<std::string>& profile) {
  KeyShapes shapes;
  shapes.version = version;
  shapes.models.resize(points.groups.size());
  for (const size_t g : groups) {
    const GroupPoints& group = points.groups[g];
    const std::optional<std::string> chosen = profile ? profile : ncclmodel::profileForGpu(group.key.gpu());
    if (!chosen) {
      shapes.skipped.push_back(group.key.label() +
                               (group.key.gpu().empty() ? ": the outputs name no GPU (pass --profile to model one)"
                                                        : ": no hardware profile models GPU '" + group.key.gpu() +
                                                              "' (pass --profile to use one)") +
                               ": not fitted, NCCL decides");
      continue;
    }
    int cc = 0;
    if (const auto why = modelGroup(group, *chosen, version, shapes.models[g], cc)) {
      shapes.skipped.push_back(group.key.label() + ": " + *why + ": not fitted, NCCL decides");
      continue;
    }
    if (shapes.profile.empty()) shapes.profile = *chosen;
    shapes.minCompCap = shapes.minCompCap == 0 ? cc : std::min(shapes.minCompCap, cc);
    shapes.groups.push_back(g);
  }
  return shapes;
}

TimePredictor constantsPredictor(const FitPoints& points, std::shared_ptr<const KeyShapes> shapes,
                                 const formats::CostModelConstants& c) {
  return [&points, shapes, c](size_t g, uint64_t bytes, Cell cell) -> std::optional<double> {
    const std::optional<ncclmodel::ShapeModel>& model = shapes->models[g];
    const std::optional<formats::Collective> coll = points.groups[g].collective;
    if (!model || !coll || !model->offered(*coll, cell.algorithm, cell.protocol)) return std::nullopt;
    const float t = model->timeUs(c, *coll, cell.algorithm, cell.protocol, static_cast<size_t>(bytes));
    if (!(t > 0)) return std::nullopt;
    return static_cast<double>(t);
  };
}

TimePredictor predictorOf(const FitPoints& points, std::shared_ptr<const KeyModel> model) {
  const TimePredictor base = constantsPredictor(points, model->shapes, model->constants);
  if (model->corrections.empty()) return base;
  return corrected(points, base, model->corrections);
}

std::vector<PointRef> keyPoints(const FitPoints& points, const KeyShapes& shapes, const PointMask* mask) {
  std::vector<PointRef> out;
  for (const size_t g : shapes.groups)
    for (size_t s = 0; s < points.groups[g].sizes.size(); ++s)
      if ((mask == nullptr || mask->keeps(g, s)) && !points.groups[g].sizes[s].cells.empty())
        out.push_back({static_cast<uint32_t>(g), static_cast<uint32_t>(s)});
  return out;
}

}  // namespace railtune::sweep
