// The sweep dataset's writer (dataset.h): lines appended with formats' JSON appender, a run's shared fields
// serialized once (DatasetLineParts) and each row's between them. (The reader: dataset_read.cc.)
#include <string>

#include "formats/json_append.h"
#include "nccl-tests-integration/dataset/dataset.h"

namespace railtune::sweep {
namespace {

// ,"KEY":{...} after the value before it; nothing when the half has no value.
void appendMeasurement(std::string& out, const char* key, const Measurement& m) {
  if (!m.timeUs && !m.algbwGBps && !m.busbwGBps && !m.wrong) return;
  out += ",\"";
  out += key;
  out += "\":";
  formats::JsonAppender json(&out);
  json.beginObject();
  if (m.timeUs) json.key("time_us").number(*m.timeUs);
  if (m.algbwGBps) json.key("algbw").number(*m.algbwGBps);
  if (m.busbwGBps) json.key("busbw").number(*m.busbwGBps);
  if (m.wrong) json.key("wrong").number(*m.wrong);
  json.endObject();
}

// ,"net_env":{...} (names and values escaped: they are the user's), written raw between two keys of the line's
// appender, which puts the comma before the next key; nothing without a setting.
void appendNetEnv(const NetEnv& env, std::string& out) {
  if (env.empty()) return;
  out += ",\"net_env\":{";
  for (size_t i = 0; const auto& [name, value] : env) {
    if (i++ > 0) out.push_back(',');
    formats::appendJsonString(&out, name);
    out.push_back(':');
    formats::appendJsonString(&out, value);
  }
  out.push_back('}');
}

// ,"fabric":{...} when anything of it is known.
void appendFabric(formats::JsonAppender& json, const FabricId& f) {
  if (!f.known() && f.name.empty()) return;
  json.key("fabric");
  json.beginObject();
  json.key("transport").string(f.transport.empty() ? "unknown" : f.transport);
  if (!f.linkLayer.empty()) json.key("link_layer").string(f.linkLayer);
  if (f.nicGbps > 0) json.key("nic_gbps").integer(f.nicGbps);
  if (f.nicsPerGpu > 0) json.key("nics_per_gpu").integer(f.nicsPerGpu);
  if (!f.name.empty()) json.key("name").string(f.name);
  json.endObject();
}

void appendShape(formats::JsonAppender& json, const Shape& shape) {
  json.key("shape");
  json.beginObject();
  json.key("ranks").integer(shape.ranks);
  json.key("hosts").integer(shape.hosts);
  json.key("nodes").integer(shape.nodes);
  json.key("nvl_domains").integer(shape.nvlDomains);
  json.key("ranks_per_domain").integer(shape.ranksPerDomain);
  appendFabric(json, shape.fabric);
  json.key("source").string(shapeSourceName(shape.source));
  json.endObject();
}

}  // namespace

const char* forcedByName(ForcedBy f) {
  switch (f) {
    case ForcedBy::None:
      return "none";
    case ForcedBy::Manifest:
      return "manifest";
    case ForcedBy::NcclLog:
      return "nccl-log";
    case ForcedBy::Option:
      return "option";
  }
  return "none";
}

const char* shapeSourceName(ShapeSource s) {
  switch (s) {
    case ShapeSource::Assumed:
      return "assumed";
    case ShapeSource::NcclLog:
      return "nccl-log";
    case ShapeSource::Manifest:
      return "manifest";
    case ShapeSource::Option:
      return "option";
    case ShapeSource::Fabric:
      return "fabric";
    case ShapeSource::RailMap:
      return "rail-map";
  }
  return "assumed";
}

std::optional<ShapeSource> shapeSourceFromName(std::string_view name) {
  for (ShapeSource s : {ShapeSource::Assumed, ShapeSource::NcclLog, ShapeSource::Manifest, ShapeSource::Option,
                        ShapeSource::Fabric, ShapeSource::RailMap})
    if (name == shapeSourceName(s)) return s;
  return std::nullopt;
}

std::string FabricId::label() const {
  if (transport == "nvlink") return "";
  std::string out = transport;
  if (!linkLayer.empty() && linkLayer != transport) out += (out.empty() ? "" : "/") + linkLayer;
  if (nicGbps > 0) out += (out.empty() ? "" : " ") + std::to_string(nicGbps) + "G NICs";
  return out;
}

std::string Shape::counts() const {
  std::string out = std::to_string(ranks) + (ranks == 1 ? " rank, " : " ranks, ") + std::to_string(nodes) +
                    (nodes == 1 ? " node, " : " nodes, ") + std::to_string(nvlDomains) +
                    (nvlDomains == 1 ? " NVLink domain" : " NVLink domains");
  if (ranksPerDomain > 0) out += " of " + std::to_string(ranksPerDomain);
  return out;
}

std::string Shape::cluster() const {
  const std::string network = fabric.label();
  return gpu + (!gpu.empty() && !network.empty() ? ", " : "") + network;
}

std::string Shape::label() const {
  const std::string what = cluster();
  return counts() + (what.empty() ? "" : "; " + what);
}

// The line is written in the run's parts and the row's fields between them, the same bytes a JsonAppender writes
// for the whole line in one go: each part after the first starts with the comma the appender would put there.
DatasetLineParts datasetLineParts(const DatasetRow& run) {
  DatasetLineParts parts;
  {
    formats::JsonAppender json(&parts.head);
    json.beginObject();
    json.key("schema").string(kDatasetSchema);
    json.key("source").string(run.source);
    json.key("line");
  }
  {
    parts.afterLine = ",";
    formats::JsonAppender json(&parts.afterLine);
    json.key("run").integer(run.run);
    if (!run.test.empty()) json.key("test").string(run.test);
    json.key("collective").string(run.collective);
    json.key("size");
  }
  {
    parts.afterRoot = ",";
    formats::JsonAppender json(&parts.afterRoot);
    json.key("choice");
    json.beginObject();
    if (!run.choice.algorithm.empty()) json.key("algorithm").string(run.choice.algorithm);
    if (!run.choice.protocol.empty()) json.key("protocol").string(run.choice.protocol);
    if (run.choice.channels > 0) json.key("channels").integer(run.choice.channels);
    if (run.choice.chunkSize > 0) json.key("chunk_size").count(run.choice.chunkSize);
    if (!run.choice.unusable.empty()) json.key("unusable").string(run.choice.unusable);
    json.endObject();
    json.key("forced_by").string(forcedByName(run.forcedBy));
    json.key("env");
    json.beginObject();
    // The names are the user's (--env, a manifest): escaped as the values are, never copied raw as keys are.
    for (size_t i = 0; const auto& [k, v] : run.env) {
      if (i++ > 0) parts.afterRoot.push_back(',');
      formats::appendJsonString(&parts.afterRoot, k);
      parts.afterRoot.push_back(':');
      formats::appendJsonString(&parts.afterRoot, v);
    }
    json.endObject();
    appendNetEnv(run.netEnv, parts.afterRoot);
    if (!run.call.isDefault()) json.key("call").string(run.call.label());
    appendShape(json, run.shape);
  }
  {
    parts.tail = ",";
    formats::JsonAppender json(&parts.tail);
    json.key("repeat").integer(run.repeat);
    if (!run.ncclVersion.empty()) json.key("nccl_version").string(run.ncclVersion);
    if (!run.testsVersion.empty()) json.key("tests_version").string(run.testsVersion);
    const std::string& gpu = run.shape.gpu.empty() ? run.gpu : run.shape.gpu;
    if (!gpu.empty()) json.key("gpu").string(gpu);
    parts.tail += "}\n";
  }
  return parts;
}

void appendDatasetRow(const DatasetRow& row, const DatasetLineParts& parts, std::string& out) {
  out += parts.head;
  formats::appendJsonInt(&out, row.line);
  out += parts.afterLine;
  formats::appendJsonUint(&out, row.size);
  out += ",\"count\":";
  formats::appendJsonUint(&out, row.count);
  out += ",\"type\":";
  formats::appendJsonString(&out, row.type);
  out += ",\"redop\":";
  formats::appendJsonString(&out, row.redop);
  out += ",\"root\":";
  formats::appendJsonInt(&out, row.root);
  out += parts.afterRoot;
  appendMeasurement(out, "out_of_place", row.outOfPlace);
  appendMeasurement(out, "in_place", row.inPlace);
  out += row.valid ? ",\"valid\":true" : ",\"valid\":false";
  out += parts.tail;
}

void appendDatasetRow(const DatasetRow& row, std::string& out) {
  appendDatasetRow(row, datasetLineParts(row), out);
}

void appendDatasetSource(const DatasetSource& source, std::string& out) {
  formats::JsonAppender json(&out);
  json.beginObject();
  json.key("schema").string(kDatasetSourceSchema);
  json.key("source").string(source.source);
  json.key("runs").count(source.runs);
  json.key("rows").count(source.rows);
  json.key("flagged").count(source.flagged);
  json.key("bad_rows").count(source.badRows);
  json.key("skipped_rows").count(source.skippedRows);
  json.key("bad");
  json.beginArray();
  for (const auto& [line, reason] : source.bad) {
    json.beginObject();
    json.key("line").count(line);
    json.key("reason").string(reason);
    json.endObject();
  }
  json.endArray();
  json.endObject();
  out.push_back('\n');
}

}  // namespace railtune::sweep
