// The fitted-model reader, the rest of a fit: the constants (each `nccl` checked against NCCL's default at the
// fit's basis and rows), the corrections and the table transform, the validation, and the verdict per scale.
#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

#include "formats/tuner_model/read_fields.h"
#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_model::detail {
namespace {

enum class Unit { Latency, Bandwidth };  // a latency may be 0 (NCCL's unused cells are), a fitted cap may not

std::string shortest(double x) {
  return nlohmann::json(x).dump();
}

// "nccl", "value" and "why" of one constant's object; `expected` is NCCL's default there.
Constant constantFields(Fields& f, double expected, NcclRelease release, Unit unit) {
  Constant c;
  const PosNode& nccl = f.required("nccl");
  c.nccl = nonNegative(nccl, f.path("nccl"));
  if (c.nccl != expected)
    fail(nccl, f.path("nccl"),
         std::string("NCCL ") + releaseName(release) + "'s default here is " + shortest(expected) + ", not " +
             shortest(c.nccl));
  if (const PosNode* value = f.optional("value"))
    c.value = unit == Unit::Latency ? nonNegative(*value, f.path("value")) : positive(*value, f.path("value"));
  if (const PosNode* why = f.optional("why")) c.why = text(*why, f.path("why"));
  return c;
}

Constant constant(const PosNode& v, const std::string& path, double expected, NcclRelease release, Unit unit) {
  Fields f(v, path);
  Constant c = constantFields(f, expected, release, unit);
  f.finish();
  return c;
}

// "ring/ll128": an algorithm and a protocol in the rules files' spelling.
void cell(size_t at, const std::string& path, const std::string& key, Algorithm* a, Protocol* p) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos || !tuner_rules::algorithmFromRuleName(key.substr(0, slash), a) ||
      !tuner_rules::protocolFromRuleName(key.substr(slash + 1), p))
    failAt(at, path,
           "not ALGORITHM/PROTOCOL (algorithms: " + tuner_rules::knownAlgorithmNames() +
               "; protocols: " + tuner_rules::knownProtocolNames() + ")");
}

// {"ring/ll128": {...}, ...}: one latency per cell, at link `link` (nullopt: the base latencies).
void latencies(const PosNode& v, const std::string& path, std::optional<HwLink> link, NcclRelease release,
               Constants* out) {
  Fields f(v, path);
  for (size_t i = 0; i < v.keys.size(); ++i) {
    const std::string& key = v.keys[i];
    Algorithm a{};
    Protocol p{};
    cell(v.keyOffsets[i], f.path(key), key, &a, &p);
    const double expected = link ? ncclDefaultHwLatency(release, *link, a, p) : ncclDefaultBaseLatency(release, a, p);
    const Constant c = constant(*f.optional(key), f.path(key), expected, release, Unit::Latency);
    if (link)
      out->hwLatencyUs[static_cast<int>(*link)][static_cast<int>(a)][static_cast<int>(p)] = c;
    else
      out->baseLatencyUs[static_cast<int>(a)][static_cast<int>(p)] = c;
  }
}

void hwLatencies(const PosNode& v, const std::string& path, NcclRelease release, Constants* out) {
  Fields f(v, path);
  for (size_t i = 0; i < v.keys.size(); ++i) {
    HwLink link{};
    if (!hwLinkFromName(v.keys[i], &link))
      failAt(v.keyOffsets[i], f.path(v.keys[i]), "unknown link (known: nvlink, pci, net)");
    latencies(*f.optional(v.keys[i]), f.path(v.keys[i]), link, release, out);
  }
}

Scale scaleKey(const PosNode& object, size_t i, const std::string& path) {
  Scale s{};
  if (!scaleFromName(object.keys[i], &s))
    failAt(object.keyOffsets[i], path, "unknown scale (known: 1node, 2nodes, 4nodes)");
  return s;
}

// {"1node": {...}, "2nodes": {..., "cpu": "not_amd"}}: across nodes NCCL picks llMaxBws' row by CPU vendor.
void llMaxBws(const PosNode& v, const std::string& path, const AppliesTo& to, NcclRelease release, Constants* out) {
  Fields f(v, path);
  for (size_t i = 0; i < v.keys.size(); ++i) {
    const std::string at = f.path(v.keys[i]);
    const Scale s = scaleKey(v, i, at);
    Fields entry(*f.optional(v.keys[i]), at);
    std::optional<CpuRow> cpu;
    if (const PosNode* row = entry.optional("cpu")) {
      if (s == Scale::OneNode)
        fail(*row, entry.path("cpu"), "on one node the row is the GPU generation's, not a CPU's");
      cpu = named(*row, entry.path("cpu"), cpuRowFromName, "not_amd, amd_or_mixed");
    } else if (s != Scale::OneNode) {
      fail(entry.node(), entry.path("cpu"), "missing (across nodes the row is the CPU vendor's)");
    }
    LlConstant c;
    static_cast<Constant&>(c) =
        constantFields(entry, ncclDefaultLlMaxBw(release, to.generation, s, cpu), release, Unit::Bandwidth);
    c.cpu = cpu;
    entry.finish();
    out->llMaxBwGbps[static_cast<int>(s)] = c;
  }
}

// {"ring_ll128": {"1node": {...}}, ...}, at the fit's generation row.
void perChannelMax(const PosNode& v, const std::string& path, const AppliesTo& to, NcclRelease release,
                   Constants* out) {
  Fields f(v, path);
  for (size_t i = 0; i < v.keys.size(); ++i) {
    CapArray cap{};
    const std::string at = f.path(v.keys[i]);
    if (!capArrayFromName(v.keys[i], &cap))
      failAt(v.keyOffsets[i], at, "unknown cap (known: ring_ll128, tree_ll128, tree, nvls_tree)");
    const PosNode& scales = *f.optional(v.keys[i]);
    Fields byScale(scales, at);
    for (size_t j = 0; j < scales.keys.size(); ++j) {
      const Scale s = scaleKey(scales, j, byScale.path(scales.keys[j]));
      out->perChannelMaxGbps[static_cast<int>(cap)][static_cast<int>(s)] =
          constant(*byScale.optional(scales.keys[j]), byScale.path(scales.keys[j]),
                   ncclDefaultPerChannelMax(release, to.generation, cap, s), release, Unit::Bandwidth);
    }
  }
}

// {"ranks": 8, "nodes": 1}: a communicator's exact shape, inside the scale bucket it is listed under.
CommShape commShape(const PosNode& v, const std::string& path, Scale scale) {
  Fields f(v, path);
  CommShape s;
  s.ranks = static_cast<int>(count(f.required("ranks"), f.path("ranks"), 1, INT32_MAX));
  s.nodes = static_cast<int>(count(f.required("nodes"), f.path("nodes"), 1, INT32_MAX));
  f.finish();
  if (s.nodes > s.ranks) fail(v, path, "more nodes than ranks");
  if (scaleOfNodes(s.nodes) != scale)
    fail(v, path,
         std::to_string(s.nodes) + " nodes are not in scale " + scaleName(scale) + " (NCCL's bucket is " +
             scaleName(scaleOfNodes(s.nodes)) + ")");
  return s;
}

// The fields of a correction or a table-transform entry but `why`.
CellAffine cellAffine(Fields& f) {
  CellAffine e;
  const PosNode& coll = f.required("collective");
  if (text(coll, f.path("collective"), 32) != "*") {
    Collective c{};
    if (!tuner_rules::collectiveFromRuleName(coll.text, &c))
      fail(coll, f.path("collective"), "expected \"*\" or one of " + tuner_rules::knownCollectiveNames());
    e.collective = c;
  }
  const PosNode& algorithm = f.required("algorithm");
  if (!tuner_rules::algorithmFromRuleName(text(algorithm, f.path("algorithm"), 32), &e.algorithm))
    fail(algorithm, f.path("algorithm"), "expected one of " + tuner_rules::knownAlgorithmNames());
  const PosNode& protocol = f.required("protocol");
  if (!tuner_rules::protocolFromRuleName(text(protocol, f.path("protocol"), 32), &e.protocol))
    fail(protocol, f.path("protocol"), "expected one of " + tuner_rules::knownProtocolNames());
  e.scale = named(f.required("scale"), f.path("scale"), scaleFromName, "1node, 2nodes, 4nodes");
  if (const PosNode* shape = f.optional("shape")) e.shape = commShape(*shape, f.path("shape"), e.scale);
  e.timeScale = positive(f.required("time_scale"), f.path("time_scale"));
  e.timeAddUs = number(f.required("time_add_us"), f.path("time_add_us"));
  return e;
}

template <typename Entry>
void refuseDuplicate(const std::vector<Entry>& entries, const PosNode& at, const std::string& path) {
  const Entry& last = entries.back();
  for (size_t i = 0; i + 1 < entries.size(); ++i)
    if (entries[i].collective == last.collective && entries[i].algorithm == last.algorithm &&
        entries[i].protocol == last.protocol && entries[i].scale == last.scale && entries[i].shape == last.shape)
      fail(at, path, "the same collective, cell, scale and shape as entry " + std::to_string(i));
}

RegretStats regret(const PosNode& v, const std::string& path, std::vector<std::string>* heldOut) {
  Fields f(v, path);
  RegretStats r;
  r.points = count(f.required("points"), f.path("points"));
  const PosNode* worst = f.optional("worst");
  const PosNode* mean = f.optional("mean");
  const PosNode* at = f.optional("worst_at");
  if (r.points == 0 && (worst || mean || at))
    fail(worst ? *worst : mean ? *mean : *at, path, "worst, mean and worst_at need points > 0");
  if (r.points > 0) {
    r.worst = nonNegative(f.required("worst"), f.path("worst"));
    r.mean = nonNegative(f.required("mean"), f.path("mean"));
    if (r.mean > r.worst) fail(*mean, f.path("mean"), "above worst");
  }
  if (at) {
    Fields w(*at, f.path("worst_at"));
    RegretAt where;
    where.shape = text(w.required("shape"), w.path("shape"));
    const PosNode& coll = w.required("collective");
    if (!tuner_rules::collectiveFromRuleName(text(coll, w.path("collective"), 32), &where.collective))
      fail(coll, w.path("collective"), "expected one of " + tuner_rules::knownCollectiveNames());
    where.bytes = count(w.required("bytes"), w.path("bytes"));
    w.finish();
    r.worstAt = where;
  }
  if (const PosNode* why = f.optional("why")) r.why = text(*why, f.path("why"));
  if (heldOut != nullptr) {
    const auto& shapes = array(f.required("held_out"), f.path("held_out"));
    for (size_t i = 0; i < shapes.size(); ++i) heldOut->push_back(text(shapes[i], item(f.path("held_out"), i)));
  }
  f.finish();
  return r;
}

// "measured_shapes_usable" and "shapes" of one scale's verdict (absent in files written before them: false).
void measuredShapes(Fields& verdict, Scale scale, const Validation& validation, Verdict& out) {
  const PosNode* flag = verdict.optional("measured_shapes_usable");
  if (flag != nullptr) out.measuredShapesUsable = boolean(*flag, verdict.path("measured_shapes_usable"));
  if (out.measuredShapesUsable && out.usable)
    fail(*flag, verdict.path("measured_shapes_usable"), "true with usable true: usable everywhere says it all");
  if (out.measuredShapesUsable && validation.status != ValidationStatus::Complete)
    fail(*flag, verdict.path("measured_shapes_usable"),
         std::string("true with validation ") + validationStatusName(validation.status) +
             ": only a complete validation makes a fit usable");
  const PosNode* shapes = verdict.optional("shapes");
  if (shapes == nullptr) {
    if (out.measuredShapesUsable) fail(*flag, verdict.path("shapes"), "missing (the measured shapes it applies to)");
    return;
  }
  if (!out.measuredShapesUsable) fail(*shapes, verdict.path("shapes"), "listed without measured_shapes_usable true");
  const auto& items = array(*shapes, verdict.path("shapes"));
  if (items.empty()) fail(*shapes, verdict.path("shapes"), "empty (the measured shapes it applies to)");
  for (size_t i = 0; i < items.size(); ++i) {
    const CommShape shape = commShape(items[i], item(verdict.path("shapes"), i), scale);
    if (std::find(out.shapes.begin(), out.shapes.end(), shape) != out.shapes.end())
      fail(items[i], item(verdict.path("shapes"), i), "listed twice");
    out.shapes.push_back(shape);
  }
}

}  // namespace

Constants readConstants(Fields& fit, const AppliesTo& to, const Basis& basis) {
  Fields f(fit.required("constants"), fit.path("constants"));
  Constants out;
  latencies(f.required("base_latency_us"), f.path("base_latency_us"), std::nullopt, basis.nccl, &out);
  hwLatencies(f.required("hw_latency_us"), f.path("hw_latency_us"), basis.nccl, &out);
  llMaxBws(f.required("ll_max_bw_gbps"), f.path("ll_max_bw_gbps"), to, basis.nccl, &out);
  perChannelMax(f.required("per_channel_max_gbps"), f.path("per_channel_max_gbps"), to, basis.nccl, &out);
  f.finish();
  return out;
}

std::vector<Correction> readCorrections(const PosNode& v, const std::string& path) {
  std::vector<Correction> out;
  const auto& entries = array(v, path);
  for (size_t i = 0; i < entries.size(); ++i) {
    Fields f(entries[i], item(path, i));
    Correction c;
    static_cast<CellAffine&>(c) = cellAffine(f);
    c.why = text(f.required("why"), f.path("why"));
    f.finish();
    out.push_back(std::move(c));
    refuseDuplicate(out, entries[i], item(path, i));
  }
  return out;
}

std::vector<CellAffine> readTableTransform(const PosNode& v, const std::string& path) {
  std::vector<CellAffine> out;
  const auto& entries = array(v, path);
  for (size_t i = 0; i < entries.size(); ++i) {
    Fields f(entries[i], item(path, i));
    out.push_back(cellAffine(f));
    f.finish();
    refuseDuplicate(out, entries[i], item(path, i));
  }
  return out;
}

Validation readValidation(const PosNode& v, const std::string& path) {
  Fields f(v, path);
  Validation out;
  Fields targets(f.required("targets"), f.path("targets"));
  out.sizeTarget = positive(targets.required("size_worst"), targets.path("size_worst"));
  out.shapeTarget = positive(targets.required("shape_worst"), targets.path("shape_worst"));
  targets.finish();
  out.status = named(f.required("status"), f.path("status"), validationStatusFromName, "complete, truncated, skipped");
  out.inSample = regret(f.required("in_sample"), f.path("in_sample"), nullptr);
  out.leaveOneSizeOut = regret(f.required("leave_one_size_out"), f.path("leave_one_size_out"), nullptr);
  out.leaveOneShapeOut = regret(f.required("leave_one_shape_out"), f.path("leave_one_shape_out"), &out.heldOutShapes);
  out.ncclDefault = regret(f.required("nccl_default"), f.path("nccl_default"), nullptr);
  f.finish();
  return out;
}

// "ranks" {"min", "max"} of a usable verdict: the measured range it applies within (absent: any rank count, as in
// files written before it).
void usableRanks(Fields& verdict, Verdict& out) {
  const PosNode* ranks = verdict.optional("ranks");
  if (ranks == nullptr) return;
  if (!out.usable) fail(*ranks, verdict.path("ranks"), "given without usable true");
  Fields f(*ranks, verdict.path("ranks"));
  out.minRanks = static_cast<int>(count(f.required("min"), f.path("min"), 1, INT32_MAX));
  out.maxRanks = static_cast<int>(count(f.required("max"), f.path("max"), 1, INT32_MAX));
  f.finish();
  if (out.minRanks > out.maxRanks) fail(*ranks, verdict.path("ranks"), "min above max");
}

std::array<Verdict, kNumScales> readVerdicts(const PosNode& v, const std::string& path, const Validation& validation) {
  Fields f(v, path);
  std::array<Verdict, kNumScales> out;
  for (int s = 0; s < kNumScales; ++s) {
    const char* name = scaleName(static_cast<Scale>(s));
    Fields verdict(f.required(name), f.path(name));
    const PosNode& usable = verdict.required("usable");
    out[s].usable = boolean(usable, verdict.path("usable"));
    if (out[s].usable && validation.status != ValidationStatus::Complete)
      fail(usable, verdict.path("usable"),
           std::string("true with validation ") + validationStatusName(validation.status) +
               ": only a complete validation makes a fit usable");
    measuredShapes(verdict, static_cast<Scale>(s), validation, out[s]);
    usableRanks(verdict, out[s]);
    out[s].why = text(verdict.required("why"), verdict.path("why"));
    verdict.finish();
  }
  f.finish();
  return out;
}

}  // namespace railtune::formats::tuner_model::detail
