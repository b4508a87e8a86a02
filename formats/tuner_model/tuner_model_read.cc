// The fitted-model file's strict reader: the document, each fit's applies_to, basis and data
// (tuner_model_read_fit.cc reads the rest of a fit).
#include <algorithm>
#include <cctype>

#include "common/regular_file.h"
#include "formats/schemas.h"
#include "formats/tuner_model/read_fields.h"
#include "formats/tuner_model/tuner_model.h"
#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_model {
namespace {

using namespace detail;

bool isDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "2.30": NCCL's major.minor, the unit the tuner learns from its ABI version.
std::string ncclRelease(const PosNode& v, const std::string& path) {
  const std::string s = text(v, path, 16);
  const size_t dot = s.find('.');
  if (dot == std::string::npos || !isDigits(s.substr(0, dot)) || !isDigits(s.substr(dot + 1)))
    fail(v, path, "\"" + s + "\" is not an NCCL release as MAJOR.MINOR (\"2.30\")");
  return s;
}

Fabric readFabric(const PosNode& v, const std::string& path) {
  Fields f(v, path);
  Fabric fabric;
  fabric.transport = text(f.required("transport"), f.path("transport"), 64);
  if (const PosNode* layer = f.optional("link_layer")) {
    fabric.linkLayer = text(*layer, f.path("link_layer"), 16);
    if (*fabric.linkLayer != "InfiniBand" && *fabric.linkLayer != "Ethernet")
      fail(*layer, f.path("link_layer"), "expected \"InfiniBand\" or \"Ethernet\"");
  }
  if (const PosNode* gbps = f.optional("nic_gbps")) fabric.nicGbps = positive(*gbps, f.path("nic_gbps"));
  f.finish();
  return fabric;
}

AppliesTo readAppliesTo(const PosNode& v, const std::string& path) {
  Fields f(v, path);
  AppliesTo to;
  to.gpu = text(f.required("gpu"), f.path("gpu"), 256);
  to.generation =
      named(f.required("generation"), f.path("generation"), generationFromName, "volta, ampere, hopper, blackwell");
  to.fabric = readFabric(f.required("fabric"), f.path("fabric"));
  const auto& releases = array(f.required("nccl"), f.path("nccl"), 64);
  if (releases.empty()) fail(f.required("nccl"), f.path("nccl"), "names no NCCL release");
  for (size_t i = 0; i < releases.size(); ++i) {
    std::string release = ncclRelease(releases[i], item(f.path("nccl"), i));
    if (std::find(to.nccl.begin(), to.nccl.end(), release) != to.nccl.end())
      fail(releases[i], item(f.path("nccl"), i), "\"" + release + "\" listed twice");
    to.nccl.push_back(std::move(release));
  }
  f.finish();
  return to;
}

Basis readBasis(const PosNode& v, const std::string& path, const AppliesTo& to) {
  Fields f(v, path);
  Basis basis;
  const PosNode& nccl = f.required("nccl");
  basis.nccl = named(nccl, f.path("nccl"), releaseFromName, "2.28, 2.30 (the releases railtune emulates)");
  if (std::find(to.nccl.begin(), to.nccl.end(), releaseName(basis.nccl)) == to.nccl.end())
    fail(nccl, f.path("nccl"), std::string("release ") + releaseName(basis.nccl) + " is not in applies_to.nccl");
  if (const PosNode* profile = f.optional("profile")) basis.profile = text(*profile, f.path("profile"), 64);
  basis.graphs = named(f.required("graphs"), f.path("graphs"), graphsFromName, "emulated, nccl-tuning-log");
  f.finish();
  return basis;
}

// "ALGORITHM:HEX": the algorithm's name in lowercase letters and digits, then 8 to 128 lowercase hex digits.
std::string digest(const PosNode& v, const std::string& path) {
  const std::string s = text(v, path, 160);
  const size_t colon = s.find(':');
  const auto lowerAlnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  const bool ok = colon != std::string::npos && colon > 0 && s.size() - colon - 1 >= 8 && s.size() - colon - 1 <= 128 &&
                  std::all_of(s.begin(), s.begin() + colon, lowerAlnum) &&
                  std::all_of(s.begin() + colon + 1, s.end(), hex);
  if (!ok) fail(v, path, "expected ALGORITHM:HEX (\"fnv1a64:0123456789abcdef\")");
  return s;
}

ShapeRef readShape(const PosNode& v, const std::string& path) {
  Fields f(v, path);
  ShapeRef s;
  const auto whole = [&](const char* key, uint64_t min) {
    return static_cast<int>(count(f.required(key), f.path(key), min, INT32_MAX));
  };
  s.ranks = whole("ranks", 1);
  s.nodes = whole("nodes", 1);
  s.nvlDomains = whole("nvl_domains", 1);
  s.ranksPerDomain = whole("ranks_per_domain", 0);
  s.minBytes = count(f.required("min_bytes"), f.path("min_bytes"));
  s.maxBytes = count(f.required("max_bytes"), f.path("max_bytes"));
  s.cells = static_cast<int>(count(f.required("cells"), f.path("cells"), 1, kNumAlgorithms * kNumProtocols));
  if (s.nodes > s.ranks || s.nvlDomains > s.ranks) fail(v, path, "more nodes or NVLink domains than ranks");
  if (s.minBytes > s.maxBytes) fail(f.required("max_bytes"), f.path("max_bytes"), "below min_bytes");
  f.finish();
  return s;
}

Collective collective(const PosNode& v, const std::string& path) {
  const std::string name = text(v, path, 32);
  Collective c{};
  if (!tuner_rules::collectiveFromRuleName(name, &c))
    fail(v, path, "unknown collective \"" + name + "\" (known: " + tuner_rules::knownCollectiveNames() + ")");
  return c;
}

Data readData(const PosNode& v, const std::string& path) {
  Fields f(v, path);
  Data data;
  const auto& datasets = array(f.required("datasets"), f.path("datasets"));
  for (size_t i = 0; i < datasets.size(); ++i) {
    Fields d(datasets[i], item(f.path("datasets"), i));
    data.datasets.push_back({text(d.required("path"), d.path("path")), digest(d.required("digest"), d.path("digest")),
                             count(d.required("rows"), d.path("rows"))});
    d.finish();
  }
  const auto& shapes = array(f.required("shapes"), f.path("shapes"));
  for (size_t i = 0; i < shapes.size(); ++i) data.shapes.push_back(readShape(shapes[i], item(f.path("shapes"), i)));
  const auto& collectives = array(f.required("collectives"), f.path("collectives"), kNumCollectives);
  for (size_t i = 0; i < collectives.size(); ++i) {
    const Collective c = collective(collectives[i], item(f.path("collectives"), i));
    if (std::find(data.collectives.begin(), data.collectives.end(), c) != data.collectives.end())
      fail(collectives[i], item(f.path("collectives"), i), "listed twice");
    data.collectives.push_back(c);
  }
  f.finish();
  return data;
}

Fit readFit(const PosNode& v, const std::string& path) {
  Fields f(v, path);
  Fit fit;
  fit.appliesTo = readAppliesTo(f.required("applies_to"), f.path("applies_to"));
  fit.basis = readBasis(f.required("basis"), f.path("basis"), fit.appliesTo);
  fit.data = readData(f.required("data"), f.path("data"));
  fit.constants = readConstants(f, fit.appliesTo, fit.basis);
  fit.corrections = readCorrections(f.required("corrections"), f.path("corrections"));
  fit.tableTransform = readTableTransform(f.required("table_transform"), f.path("table_transform"));
  fit.validation = readValidation(f.required("validation"), f.path("validation"));
  fit.usable = readVerdicts(f.required("usable"), f.path("usable"), fit.validation);
  f.finish();
  return fit;
}

// Two fits for one GPU and fabric may not share a release: the tuner could not tell which applies.
void refuseOverlap(const std::vector<Fit>& fits, const std::vector<PosNode>& nodes, const std::string& path) {
  for (size_t j = 1; j < fits.size(); ++j)
    for (size_t i = 0; i < j; ++i) {
      const AppliesTo& a = fits[i].appliesTo;
      const AppliesTo& b = fits[j].appliesTo;
      if (a.gpu != b.gpu || a.fabric.transport != b.fabric.transport || a.fabric.linkLayer != b.fabric.linkLayer ||
          a.fabric.nicGbps != b.fabric.nicGbps)
        continue;
      for (const std::string& release : b.nccl)
        if (std::find(a.nccl.begin(), a.nccl.end(), release) != a.nccl.end())
          fail(nodes[j], item(path, j),
               "applies to the GPU, fabric and NCCL " + release + " of " + item(path, i) + " already");
    }
}

// "2026-12-06T16:00:00Z".
std::string timestamp(const PosNode& v, const std::string& path) {
  const std::string s = text(v, path, 32);
  static constexpr std::string_view kPattern = "dddd-dd-ddTdd:dd:ddZ";
  bool ok = s.size() == kPattern.size();
  for (size_t i = 0; ok && i < s.size(); ++i)
    ok = kPattern[i] == 'd' ? std::isdigit(static_cast<unsigned char>(s[i])) != 0 : s[i] == kPattern[i];
  if (!ok) fail(v, path, "expected UTC as YYYY-MM-DDTHH:MM:SSZ");
  return s;
}

TunerModel readDocument(const PosNode& root) {
  Fields f(root, "");
  const PosNode& schema = f.required("schema");
  if (text(schema, "schema", 64) != kTunerModelSchema)
    fail(schema, "schema", "\"" + schema.text + "\" is not \"" + kTunerModelSchema + "\"");
  TunerModel model;
  model.generatedBy = text(f.required("generated_by"), "generated_by", 256);
  model.created = timestamp(f.required("created"), "created");
  const auto& fits = array(f.required("fits"), "fits", kMaxFits);
  for (size_t i = 0; i < fits.size(); ++i) model.fits.push_back(readFit(fits[i], item("fits", i)));
  refuseOverlap(model.fits, fits, "fits");
  const auto& notes = array(f.required("notes"), "notes");
  for (size_t i = 0; i < notes.size(); ++i) model.notes.push_back(text(notes[i], item("notes", i)));
  f.finish();
  return model;
}

}  // namespace

TunerModel parseTunerModel(std::string_view text, const std::string& source) {
  const tuner_rules::PosParseResult parsed = tuner_rules::parsePositioned(text);
  size_t offset = parsed.errorOffset;
  std::string message = "not JSON: " + parsed.error;
  if (parsed.ok) {
    try {
      return readDocument(parsed.root);
    } catch (const ReadFailure& failure) {
      offset = failure.offset;
      message = failure.message;
    }
  }
  const tuner_rules::LineColumn at = tuner_rules::lineColumnAt(text, offset);
  throw TunerModelError(source + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + message);
}

TunerModel readTunerModelFile(const std::string& path) {
  const RegularFile file = readRegularFile(path, kMaxFileBytes);  // never blocks on a FIFO
  if (!file.ok()) throw TunerModelError(file.describe());
  return parseTunerModel(file.bytes, path);
}

}  // namespace railtune::formats::tuner_model
