// The fitted-model file's writer: a fixed key order, NCCL's order of algorithms, protocols, links and scales, and
// one line per constant, correction, shape and dataset (an object or array of plain values stays on one line), so
// that two fits of the same data give the same bytes and a diff of two files reads constant by constant.
#include <nlohmann/json.hpp>

#include "formats/schemas.h"
#include "formats/tuner_model/tuner_model.h"
#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_model {
namespace {

using Json = nlohmann::ordered_json;

std::string cellName(int a, int p) {
  return std::string(tuner_rules::algorithmRuleName(static_cast<Algorithm>(a))) + "/" +
         tuner_rules::protocolRuleName(static_cast<Protocol>(p));
}

Json constant(const Constant& c) {
  Json j = Json::object();
  j["nccl"] = c.nccl;
  if (c.value) j["value"] = *c.value;
  if (!c.why.empty()) j["why"] = c.why;
  return j;
}

// base_latency_us, or one link's hw_latency_us: the listed cells, in NCCL's order.
Json cells(const std::optional<Constant> (&byCell)[kNumAlgorithms][kNumProtocols]) {
  Json j = Json::object();
  for (int a = 0; a < kNumAlgorithms; ++a)
    for (int p = 0; p < kNumProtocols; ++p)
      if (byCell[a][p]) j[cellName(a, p)] = constant(*byCell[a][p]);
  return j;
}

Json constants(const Constants& c) {
  Json j = Json::object();
  j["base_latency_us"] = cells(c.baseLatencyUs);
  Json& hw = j["hw_latency_us"] = Json::object();
  for (int l = 0; l < kNumHwLinks; ++l) {
    Json link = cells(c.hwLatencyUs[l]);
    if (!link.empty()) hw[hwLinkName(static_cast<HwLink>(l))] = std::move(link);
  }
  Json& ll = j["ll_max_bw_gbps"] = Json::object();
  for (int s = 0; s < kNumScales; ++s) {
    if (!c.llMaxBwGbps[s]) continue;
    Json entry = Json::object();
    if (c.llMaxBwGbps[s]->cpu) entry["cpu"] = cpuRowName(*c.llMaxBwGbps[s]->cpu);
    entry.update(constant(*c.llMaxBwGbps[s]));
    ll[scaleName(static_cast<Scale>(s))] = std::move(entry);
  }
  Json& caps = j["per_channel_max_gbps"] = Json::object();
  for (int a = 0; a < kNumCapArrays; ++a) {
    Json byScale = Json::object();
    for (int s = 0; s < kNumScales; ++s)
      if (c.perChannelMaxGbps[a][s]) byScale[scaleName(static_cast<Scale>(s))] = constant(*c.perChannelMaxGbps[a][s]);
    if (!byScale.empty()) caps[capArrayName(static_cast<CapArray>(a))] = std::move(byScale);
  }
  return j;
}

Json commShape(const CommShape& s) {
  return Json{{"ranks", s.ranks}, {"nodes", s.nodes}};
}

Json verdict(const Verdict& v) {
  Json j = Json::object();
  j["usable"] = v.usable;
  j["measured_shapes_usable"] = v.measuredShapesUsable;
  if (v.measuredShapesUsable) {
    Json& shapes = j["shapes"] = Json::array();
    for (const CommShape& s : v.shapes) shapes.push_back(commShape(s));
  }
  if (v.usable && v.maxRanks > 0) j["ranks"] = Json{{"min", v.minRanks}, {"max", v.maxRanks}};
  j["why"] = v.why;
  return j;
}

Json cellAffine(const CellAffine& e) {
  Json j = Json::object();
  j["collective"] = e.collective ? tuner_rules::collectiveRuleName(*e.collective) : "*";
  j["algorithm"] = tuner_rules::algorithmRuleName(e.algorithm);
  j["protocol"] = tuner_rules::protocolRuleName(e.protocol);
  j["scale"] = scaleName(e.scale);
  if (e.shape) j["shape"] = commShape(*e.shape);
  j["time_scale"] = e.timeScale;
  j["time_add_us"] = e.timeAddUs;
  return j;
}

Json regret(const RegretStats& r) {
  Json j = Json::object();
  j["points"] = r.points;
  if (r.points > 0) {
    j["worst"] = r.worst;
    j["mean"] = r.mean;
  }
  if (r.worstAt)
    j["worst_at"] = {{"shape", r.worstAt->shape},
                     {"collective", tuner_rules::collectiveRuleName(r.worstAt->collective)},
                     {"bytes", r.worstAt->bytes}};
  if (!r.why.empty()) j["why"] = r.why;
  return j;
}

Json validation(const Validation& v) {
  Json j = Json::object();
  j["targets"] = {{"size_worst", v.sizeTarget}, {"shape_worst", v.shapeTarget}};
  j["status"] = validationStatusName(v.status);
  j["in_sample"] = regret(v.inSample);
  j["leave_one_size_out"] = regret(v.leaveOneSizeOut);
  j["leave_one_shape_out"] = regret(v.leaveOneShapeOut);
  j["leave_one_shape_out"]["held_out"] = v.heldOutShapes;
  j["nccl_default"] = regret(v.ncclDefault);
  return j;
}

Json appliesTo(const AppliesTo& to) {
  Json fabric = Json::object();
  fabric["transport"] = to.fabric.transport;
  if (to.fabric.linkLayer) fabric["link_layer"] = *to.fabric.linkLayer;
  if (to.fabric.nicGbps) fabric["nic_gbps"] = *to.fabric.nicGbps;
  return {{"gpu", to.gpu}, {"generation", generationName(to.generation)}, {"fabric", fabric}, {"nccl", to.nccl}};
}

Json data(const Data& d) {
  Json datasets = Json::array(), shapes = Json::array(), collectives = Json::array();
  for (const DatasetRef& r : d.datasets) datasets.push_back({{"path", r.path}, {"digest", r.digest}, {"rows", r.rows}});
  for (const ShapeRef& s : d.shapes)
    shapes.push_back({{"ranks", s.ranks},
                      {"nodes", s.nodes},
                      {"nvl_domains", s.nvlDomains},
                      {"ranks_per_domain", s.ranksPerDomain},
                      {"min_bytes", s.minBytes},
                      {"max_bytes", s.maxBytes},
                      {"cells", s.cells}});
  for (Collective c : d.collectives) collectives.push_back(tuner_rules::collectiveRuleName(c));
  return {{"datasets", datasets}, {"shapes", shapes}, {"collectives", collectives}};
}

Json fit(const Fit& f) {
  Json j = Json::object();
  j["applies_to"] = appliesTo(f.appliesTo);
  Json& basis = j["basis"] = Json::object();
  basis["nccl"] = releaseName(f.basis.nccl);
  if (f.basis.profile) basis["profile"] = *f.basis.profile;
  basis["graphs"] = graphsName(f.basis.graphs);
  j["data"] = data(f.data);
  j["constants"] = constants(f.constants);
  Json& corrections = j["corrections"] = Json::array();
  for (const Correction& c : f.corrections) {
    corrections.push_back(cellAffine(c));
    corrections.back()["why"] = c.why;
  }
  Json& transform = j["table_transform"] = Json::array();
  for (const CellAffine& e : f.tableTransform) transform.push_back(cellAffine(e));
  j["validation"] = validation(f.validation);
  Json& usable = j["usable"] = Json::object();
  for (int s = 0; s < kNumScales; ++s) usable[scaleName(static_cast<Scale>(s))] = verdict(f.usable[s]);
  return j;
}

std::string scalar(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// An object or array of plain values on one line; anything holding one more level, one member per line.
void render(const Json& j, size_t indent, std::string* out) {
  if (!j.is_structured()) {
    *out += scalar(j);
    return;
  }
  // A cell's shape key ({"ranks": 8, "nodes": 1}) keeps its correction on one line.
  bool flat = true;
  for (auto it = j.begin(); it != j.end(); ++it)
    flat = flat && (!it->is_structured() || (j.is_object() && it.key() == "shape"));
  const bool object = j.is_object();
  const std::string pad(indent + 2, ' ');
  *out += object ? '{' : '[';
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    *out += first ? "" : ",";
    *out += flat ? (first ? "" : " ") : "\n" + pad;
    if (object) *out += scalar(it.key()) + ": ";
    render(*it, indent + 2, out);
    first = false;
  }
  if (!flat) *out += "\n" + std::string(indent, ' ');
  *out += object ? '}' : ']';
}

}  // namespace

std::string writeTunerModel(const TunerModel& model) {
  Json doc = Json::object();
  doc["schema"] = kTunerModelSchema;
  doc["generated_by"] = model.generatedBy;
  doc["created"] = model.created;
  Json& fits = doc["fits"] = Json::array();
  for (const Fit& f : model.fits) fits.push_back(fit(f));
  doc["notes"] = model.notes;
  std::string text;
  render(doc, 0, &text);
  text += '\n';
  try {
    parseTunerModel(text, "the model to write");  // the writer never writes what its reader refuses
  } catch (const TunerModelError& e) {
    throw TunerModelError(std::string("not written, the model breaks its format: ") + e.what());
  }
  return text;
}

}  // namespace railtune::formats::tuner_model
