// The sweep dataset's writer and reader (dataset.h). The writer appends with formats' JSON appender; the
// reader is simdjson's on-demand parser over lines streamed by the analyses' line reader, so a dataset of
// a million rows is read in about a second and never held whole.
#include "nccl-tests-integration/dataset/dataset.h"

#include <simdjson.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "analysis/ingest/line_reader.h"
#include "formats/json_append.h"
#include "nccl-tests-integration/parse/row_bounds.h"

namespace railtune::sweep {
namespace {

namespace od = simdjson::ondemand;

void appendMeasurement(formats::JsonAppender& json, const char* key, const Measurement& m) {
  if (!m.timeUs && !m.algbwGBps && !m.busbwGBps && !m.wrong) return;
  json.key(key);
  json.beginObject();
  if (m.timeUs) json.key("time_us").number(*m.timeUs);
  if (m.algbwGBps) json.key("algbw").number(*m.algbwGBps);
  if (m.busbwGBps) json.key("busbw").number(*m.busbwGBps);
  if (m.wrong) json.key("wrong").number(*m.wrong);
  json.endObject();
}

// A field that is not what the schema says: the line is skipped with this message.
struct BadField {
  std::string message;
};

// Calls fn(key, value) for each member of an object, in order. A key given twice is refused: a JSON reader keeps
// one of the two values (simdjson the later, others the first), so a hand-edited row would mean what its reader
// decides.
template <typename Fn>
void eachField(od::object object, Fn&& fn) {
  std::vector<std::string> seen;
  for (auto member : object) {
    od::field field;
    if (std::move(member).get(field)) throw BadField{"not JSON"};
    std::string_view key;
    if (field.unescaped_key().get(key)) throw BadField{"unreadable key"};
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw BadField{"duplicate key \"" + std::string(key) + "\""};
    seen.emplace_back(key);
    fn(key, field.value());
  }
}

std::string str(od::value value, std::string_view key) {
  std::string_view s;
  if (value.get_string().get(s)) throw BadField{"\"" + std::string(key) + "\" must be a string"};
  return std::string(s);
}

uint64_t unsig(od::value value, std::string_view key) {
  uint64_t n = 0;
  if (value.get_uint64().get(n)) throw BadField{"\"" + std::string(key) + "\" must be an integer >= 0"};
  return n;
}

int integer(od::value value, std::string_view key, int64_t min = INT32_MIN) {
  int64_t n = 0;
  if (value.get_int64().get(n) || n < min || n > INT32_MAX)
    throw BadField{"\"" + std::string(key) + "\" must be an integer" + (min >= 0 ? " >= 0" : "")};
  return static_cast<int>(n);
}

double number(od::value value, std::string_view key) {
  double d = 0;
  if (value.get_double().get(d)) throw BadField{"\"" + std::string(key) + "\" must be a number"};
  return d;
}

od::object object(od::value value, std::string_view key) {
  od::object o;
  if (value.get_object().get(o)) throw BadField{"\"" + std::string(key) + "\" must be an object"};
  return o;
}

void readMeasurement(od::value value, std::string_view key, Measurement& m) {
  eachField(object(value, key), [&](std::string_view name, od::value fv) {
    if (name == "time_us")
      m.timeUs = number(fv, name);
    else if (name == "algbw")
      m.algbwGBps = number(fv, name);
    else if (name == "busbw")
      m.busbwGBps = number(fv, name);
    else if (name == "wrong")
      m.wrong = number(fv, name);
    else
      throw BadField{"unknown key \"" + std::string(name) + "\" in \"" + std::string(key) + "\""};
  });
}

void readChoice(od::value value, Choice& c) {
  eachField(object(value, "choice"), [&](std::string_view name, od::value fv) {
    if (name == "algorithm")
      c.algorithm = str(fv, name);
    else if (name == "protocol")
      c.protocol = str(fv, name);
    else if (name == "channels")
      c.channels = integer(fv, name, 1);
    else if (name == "chunk_size")
      c.chunkSize = unsig(fv, name);
    else if (name == "unusable")
      c.unusable = str(fv, name);
    else
      throw BadField{"unknown key \"" + std::string(name) + "\" in \"choice\""};
  });
  if (!c.algorithm.empty() && !algorithmFromNccl(c.algorithm))
    throw BadField{"unknown algorithm \"" + c.algorithm + "\""};
  if (!c.protocol.empty() && !protocolFromNccl(c.protocol)) throw BadField{"unknown protocol \"" + c.protocol + "\""};
}

void readShape(od::value value, Shape& s) {
  eachField(object(value, "shape"), [&](std::string_view name, od::value fv) {
    if (name == "ranks")
      s.ranks = integer(fv, name, 0);
    else if (name == "hosts")
      s.hosts = integer(fv, name, 0);
    else if (name == "nodes")
      s.nodes = integer(fv, name, 0);
    else if (name == "nvl_domains")
      s.nvlDomains = integer(fv, name, 0);
    else if (name == "ranks_per_domain")
      s.ranksPerDomain = integer(fv, name, 0);
    else
      throw BadField{"unknown key \"" + std::string(name) + "\" in \"shape\""};
  });
}

std::optional<ForcedBy> forcedByFromName(std::string_view name) {
  for (ForcedBy f : {ForcedBy::None, ForcedBy::Manifest, ForcedBy::NcclLog, ForcedBy::Option})
    if (name == forcedByName(f)) return f;
  return std::nullopt;
}

void readRow(od::object line, DatasetRow& row) {
  bool schema = false, size = false;
  eachField(line, [&](std::string_view name, od::value fv) {
    od::value& v = fv;
    if (name == "schema") {
      if (str(v, name) != kDatasetSchema) throw BadField{"not a " + std::string(kDatasetSchema) + " line"};
      schema = true;
    } else if (name == "source")
      row.source = str(v, name);
    else if (name == "line")
      row.line = integer(v, name, 0);
    else if (name == "run")
      row.run = integer(v, name, 0);
    else if (name == "test")
      row.test = str(v, name);
    else if (name == "collective")
      row.collective = str(v, name);
    else if (name == "size") {
      row.size = unsig(v, name);
      size = true;
    } else if (name == "count")
      row.count = unsig(v, name);
    else if (name == "type")
      row.type = str(v, name);
    else if (name == "redop")
      row.redop = str(v, name);
    else if (name == "root")
      row.root = integer(v, name, -1);
    else if (name == "choice")
      readChoice(v, row.choice);
    else if (name == "forced_by") {
      const std::optional<ForcedBy> f = forcedByFromName(str(v, name));
      if (!f) throw BadField{"\"forced_by\" must be none, manifest, nccl-log or option"};
      row.forcedBy = *f;
    } else if (name == "env") {
      eachField(object(v, name), [&](std::string_view key, od::value ev) { row.env[std::string(key)] = str(ev, key); });
    } else if (name == "shape")
      readShape(v, row.shape);
    else if (name == "out_of_place")
      readMeasurement(v, name, row.outOfPlace);
    else if (name == "in_place")
      readMeasurement(v, name, row.inPlace);
    else if (name == "valid") {
      bool b = false;
      if (v.get_bool().get(b)) throw BadField{"\"valid\" must be true or false"};
      row.valid = b;
    } else if (name == "repeat")
      row.repeat = integer(v, name, 0);
    else if (name == "nccl_version")
      row.ncclVersion = str(v, name);
    else if (name == "tests_version")
      row.testsVersion = str(v, name);
    else if (name == "gpu")
      row.gpu = str(v, name);
    else
      throw BadField{"unknown key \"" + std::string(name) + "\""};
  });
  if (!schema) throw BadField{"no \"schema\""};
  if (!size) throw BadField{"no \"size\""};
  if (row.collective.empty()) throw BadField{"no \"collective\""};
  // The bounds `sweep parse` keeps (row_bounds.h): a row edited past them is no measurement. "wrong" may be an
  // old table's largest error, not a count.
  if (const std::string why = rowProblem(row.size, row.count, row.outOfPlace, row.inPlace, false); !why.empty())
    throw BadField{"impossible value: " + why};
}

// One line into row (cleared first). Returns the problem, or "" when the row was read.
std::string parseLine(od::parser& parser, std::string_view line, size_t readable, DatasetRow& row) {
  row.env.clear();
  row = DatasetRow{};
  try {
    od::document doc;
    if (parser.iterate(line.data(), line.size(), readable).get(doc)) return "not JSON";
    od::object object;
    if (doc.get_object().get(object)) return "not a JSON object";
    readRow(object, row);
    // After the object, only the end of the line: a second value would be lost silently.
    const char* rest = nullptr;
    if (!doc.current_location().get(rest) && rest != nullptr) {
      for (const char* c = rest; c < line.data() + line.size(); ++c)
        if (*c != ' ' && *c != '\t' && *c != '\r') return "text after the JSON object";
    }
  } catch (const BadField& bad) {
    return bad.message;
  } catch (const simdjson::simdjson_error& e) {
    return std::string("not JSON (") + e.what() + ")";
  }
  return "";
}

bool blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
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

std::string Shape::label() const {
  std::string out = std::to_string(ranks) + (ranks == 1 ? " rank, " : " ranks, ") + std::to_string(nodes) +
                    (nodes == 1 ? " node, " : " nodes, ") + std::to_string(nvlDomains) +
                    (nvlDomains == 1 ? " NVLink domain" : " NVLink domains");
  if (ranksPerDomain > 0) out += " of " + std::to_string(ranksPerDomain);
  return out;
}

void appendDatasetRow(const DatasetRow& row, std::string& out) {
  formats::JsonAppender json(&out);
  json.beginObject();
  json.key("schema").string(kDatasetSchema);
  json.key("source").string(row.source);
  json.key("line").integer(row.line);
  json.key("run").integer(row.run);
  if (!row.test.empty()) json.key("test").string(row.test);
  json.key("collective").string(row.collective);
  json.key("size").count(row.size);
  json.key("count").count(row.count);
  json.key("type").string(row.type);
  json.key("redop").string(row.redop);
  json.key("root").integer(row.root);
  json.key("choice");
  json.beginObject();
  if (!row.choice.algorithm.empty()) json.key("algorithm").string(row.choice.algorithm);
  if (!row.choice.protocol.empty()) json.key("protocol").string(row.choice.protocol);
  if (row.choice.channels > 0) json.key("channels").integer(row.choice.channels);
  if (row.choice.chunkSize > 0) json.key("chunk_size").count(row.choice.chunkSize);
  if (!row.choice.unusable.empty()) json.key("unusable").string(row.choice.unusable);
  json.endObject();
  json.key("forced_by").string(forcedByName(row.forcedBy));
  json.key("env");
  json.beginObject();
  for (const auto& [k, v] : row.env) json.key(k).string(v);
  json.endObject();
  json.key("shape");
  json.beginObject();
  json.key("ranks").integer(row.shape.ranks);
  json.key("hosts").integer(row.shape.hosts);
  json.key("nodes").integer(row.shape.nodes);
  json.key("nvl_domains").integer(row.shape.nvlDomains);
  json.key("ranks_per_domain").integer(row.shape.ranksPerDomain);
  json.endObject();
  appendMeasurement(json, "out_of_place", row.outOfPlace);
  appendMeasurement(json, "in_place", row.inPlace);
  json.key("valid").boolean(row.valid);
  json.key("repeat").integer(row.repeat);
  if (!row.ncclVersion.empty()) json.key("nccl_version").string(row.ncclVersion);
  if (!row.testsVersion.empty()) json.key("tests_version").string(row.testsVersion);
  if (!row.gpu.empty()) json.key("gpu").string(row.gpu);
  json.endObject();
  out.push_back('\n');
}

void readDatasetText(std::string_view paddedText, const std::string& source, const DatasetSink& sink,
                     std::vector<DatasetDiagnostic>& diagnostics) {
  od::parser parser;
  DatasetRow row;
  size_t number = 0;
  for (size_t start = 0; start < paddedText.size();) {
    const size_t end = std::min(paddedText.find('\n', start), paddedText.size());
    const std::string_view line = paddedText.substr(start, end - start);
    ++number;
    if (!blank(line)) {
      const size_t readable = paddedText.size() - start + simdjson::SIMDJSON_PADDING;
      const std::string problem = parseLine(parser, line, readable, row);
      if (problem.empty())
        sink(row);
      else
        diagnostics.push_back({source, number, problem});
    }
    start = end + 1;
  }
}

void readDatasetFile(const std::string& path, const DatasetSink& sink, std::vector<DatasetDiagnostic>& diagnostics) {
  od::parser parser;
  DatasetRow row;
  analysis::ingest::LineHandlers handlers;
  handlers.line = [&](std::string_view line, int number, size_t readable) {
    if (blank(line)) return true;
    const std::string problem = parseLine(parser, line, readable, row);
    if (problem.empty())
      sink(row);
    else
      diagnostics.push_back({path, static_cast<size_t>(number), problem});
    return true;
  };
  handlers.tooLong = [&](int number, size_t bytes) {
    diagnostics.push_back({path, static_cast<size_t>(number), analysis::ingest::tooLongMessage(bytes)});
  };
  const analysis::ingest::ReadOutcome outcome =
      analysis::ingest::forEachLine(path, simdjson::SIMDJSON_PADDING, handlers);
  if (!outcome.opened) {
    // The line reader's words are for a folder walk ("...; skipped"); a dataset named by the user is an error.
    std::string error = outcome.error;
    if (error.ends_with("; skipped")) error.resize(error.size() - 9);
    throw std::runtime_error("cannot read the dataset " + error);
  }
  if (!outcome.error.empty()) diagnostics.push_back({path, 0, outcome.error});
}

Dataset readDatasetFiles(const std::vector<std::string>& paths) {
  Dataset dataset;
  for (const std::string& path : paths)
    readDatasetFile(
        path, [&](const DatasetRow& row) { dataset.rows.push_back(row); }, dataset.diagnostics);
  return dataset;
}

}  // namespace railtune::sweep
