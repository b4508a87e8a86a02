// The fitted model's picks for `sweep compare --fitted` (fitted_choice.h).
#include "nccl-tests-integration/fit/fitted_choice.h"

#include "emulator/nccl_model/graph_data.h"
#include "formats/tuner_rules/rule.h"

namespace railtune::sweep {
namespace tm = formats::tuner_model;
namespace {

// Whether a fit's fabric is the data's, as the tuner's coverage compares a fit with the rail map: the transport,
// the link layer and the NIC speed (tuner_plugin/fitted/coverage.cc). What the data does not state matches.
bool fabricCovers(const tm::Fabric& fit, const FabricId& data) {
  if (!data.transport.empty() && fit.transport != data.transport) return false;
  const std::string linkLayer = data.linkLayer == "IB" ? "InfiniBand" : data.linkLayer == "RoCE" ? "Ethernet" : "";
  if (fit.linkLayer && !linkLayer.empty() && *fit.linkLayer != linkLayer) return false;
  return !fit.nicGbps || data.nicGbps <= 0 || *fit.nicGbps == static_cast<double>(data.nicGbps);
}

// The file's fit for a group: its GPU, and its fabric (one-node groups: any of the GPU's fits).
const tm::Fit* fitFor(const tm::TunerModel& model, const Shape& shape) {
  for (const tm::Fit& fit : model.fits) {
    if (fit.appliesTo.gpu != shape.gpu) continue;
    if (shape.nodes > 1 && !fabricCovers(fit.appliesTo.fabric, shape.fabric)) continue;
    return &fit;
  }
  return nullptr;
}

}  // namespace

FittedChooser::FittedChooser(const tm::TunerModel& model, const Aggregate& sweep) : model_(model), sweep_(sweep) {}

const FittedChooser::GroupModel& FittedChooser::groupModel(const GroupKey& key) {
  const auto found = groups_.find(key);
  if (found != groups_.end()) return found->second;
  GroupModel& g = groups_[key];
  const std::string label = key.collective + ", " + key.shape.label();
  formats::Collective collective;
  if (!formats::tuner_rules::collectiveFromRuleName(key.collective, &collective)) return g;
  g.collective = collective;
  g.fit = fitFor(model_, key.shape);
  if (g.fit == nullptr) {
    notes_.push_back(label + ": no fit of the model file covers this GPU and fabric (NCCL decides)");
    return g;
  }
  try {
    const ncclmodel::NcclVersion v = g.fit->basis.nccl == formats::NcclRelease::V2_28 ? ncclmodel::NcclVersion::V2_28
                                                                                      : ncclmodel::NcclVersion::V2_30;
    const ncclmodel::CommShape comm{key.shape.ranks, std::max(key.shape.nodes, 1)};
    const auto& graph = ncclmodel::builtinGraphData(g.fit->basis.profile.value_or("")).shapeFor(comm);
    g.shape.emplace(v, comm, graph.factsFor(v));
    const tm::Verdict& verdict = g.fit->usable[static_cast<size_t>(tm::scaleOfNodes(comm.nNodes))];
    if (!tm::verdictApplies(verdict, {comm.nRanks, comm.nNodes}))
      notes_.push_back(label + ": the fit is " +
                       (verdict.measuredShapesUsable ? "usable only at its measured shapes, not this one"
                        : verdict.usable
                            ? "usable only from " + std::to_string(verdict.minRanks) + " to " +
                                  std::to_string(verdict.maxRanks) + " ranks, the range it measured"
                            : "not usable at " + std::string(tm::scaleName(tm::scaleOfNodes(comm.nNodes)))) +
                       " (" + verdict.why + "): the tuner leaves NCCL's choice here; the column shows the fit anyway");
  } catch (const std::exception& e) {
    notes_.push_back(label + ": the fit's profile cannot model it (" + e.what() + ")");
    g.fit = nullptr;
    return g;
  }
  return g;
}

std::optional<Choice> FittedChooser::pick(const GroupKey& key, uint64_t size) {
  const GroupModel& g = groupModel(key);
  if (g.fit == nullptr || !g.shape || !g.collective) return std::nullopt;
  const auto group = sweep_.groups.find(key);
  if (group == sweep_.groups.end()) return std::nullopt;
  const auto atSize = group->second.find(size);
  if (atSize == group->second.end()) return std::nullopt;
  std::map<Cell, Choice> measured;
  for (const auto& [choice, samples] : atSize->second) {
    const std::optional<Cell> cell = cellOf(choice);
    if (cell && modelledCell(*cell) && !samples.busbw.empty()) measured.emplace(*cell, choice);
  }
  std::set<Cell> cells;
  for (const auto& [cell, choice] : measured) cells.insert(cell);
  const std::optional<Cell> best = predictPick(*g.fit, *g.shape, *g.collective, size, cells);
  if (!best) return std::nullopt;
  return measured.at(*best);
}

}  // namespace railtune::sweep
