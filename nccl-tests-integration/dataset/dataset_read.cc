// The sweep dataset's reader (dataset.h): simdjson's on-demand parser over lines streamed by the analyses' line
// reader, so a dataset of a million rows is read in about a second and never held whole. (The writer:
// dataset_write.cc.)
#include "nccl-tests-integration/dataset/dataset.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <vector>

#include "analysis/ingest/line_reader.h"
#include "nccl-tests-integration/parse/row_bounds.h"

namespace railtune::sweep {
namespace {

namespace od = simdjson::ondemand;

// A field that is not what the schema says: the line is skipped with this message.
struct BadField {
  std::string message;
};

// Calls fn(key, value) for each member of an object, in order. A key given twice is refused: a JSON reader keeps
// one of the two values (simdjson the later, others the first), so a hand-edited row would mean what its reader
// decides.
template <typename Fn>
void eachField(od::object object, Fn&& fn) {
  // The keys seen so far (views into the parser's string buffer, which holds them until the next line) and a 64-bit
  // filter of them: a row has some twenty keys, and only a key whose filter bit is already set is compared.
  std::array<std::string_view, 32> seen;
  std::vector<std::string_view> more;  // past 32 (a long env)
  size_t count = 0;
  uint64_t filter = 0;
  for (auto member : object) {
    od::field field;
    if (std::move(member).get(field)) throw BadField{"not JSON"};
    std::string_view key;
    if (field.unescaped_key().get(key)) throw BadField{"unreadable key"};
    const uint64_t bit = key.empty() ? 1
                                     : uint64_t{1} << ((key.size() * 31 + static_cast<uint8_t>(key.front()) * 7 +
                                                        static_cast<uint8_t>(key.back())) &
                                                       63);
    if ((filter & bit) != 0) {
      const auto end = seen.begin() + static_cast<std::ptrdiff_t>(std::min(count, seen.size()));
      if (std::find(seen.begin(), end, key) != end || std::find(more.begin(), more.end(), key) != more.end())
        throw BadField{"duplicate key \"" + std::string(key) + "\""};
    }
    filter |= bit;
    if (count < seen.size())
      seen[count] = key;
    else
      more.push_back(key);
    ++count;
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

void readFabric(od::value value, FabricId& f) {
  eachField(object(value, "fabric"), [&](std::string_view name, od::value fv) {
    if (name == "transport")
      f.transport = str(fv, name) == "unknown" ? "" : str(fv, name);
    else if (name == "link_layer")
      f.linkLayer = str(fv, name);
    else if (name == "nic_gbps")
      f.nicGbps = integer(fv, name, 0);
    else if (name == "nics_per_gpu")
      f.nicsPerGpu = integer(fv, name, 0);
    else if (name == "name")
      f.name = str(fv, name);
    else
      throw BadField{"unknown key \"" + std::string(name) + "\" in \"fabric\""};
  });
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
    else if (name == "fabric")
      readFabric(fv, s.fabric);
    else if (name != "source")
      throw BadField{"unknown key \"" + std::string(name) + "\" in \"shape\""};
    else if (const std::optional<ShapeSource> from = shapeSourceFromName(str(fv, name)))
      s.source = *from;
    else
      throw BadField{"\"shape\".\"source\" must be rail-map, fabric, option, manifest, nccl-log or assumed"};
  });
}

// "net_env": NCCL variables with string values (a name that is not one is a bad line, not a setting).
void readNetEnv(od::value value, NetEnv& out) {
  eachField(object(value, "net_env"), [&](std::string_view key, od::value ev) {
    if (!isNcclVariableName(key))
      throw BadField{"\"net_env\" key \"" + std::string(key) + "\" is not an NCCL variable"};
    out[std::string(key)] = str(ev, key);
  });
}

std::optional<ForcedBy> forcedByFromName(std::string_view name) {
  for (ForcedBy f : {ForcedBy::None, ForcedBy::Manifest, ForcedBy::NcclLog, ForcedBy::Option})
    if (name == forcedByName(f)) return f;
  return std::nullopt;
}

// A field that describes the row's run (what every row of a run shares). Returns false for any other name.
bool readRunField(std::string_view name, od::value& v, DatasetRow& row) {
  if (name == "source")
    row.source = str(v, name);
  else if (name == "run")
    row.run = integer(v, name, 0);
  else if (name == "test")
    row.test = str(v, name);
  else if (name == "collective")
    row.collective = str(v, name);
  else if (name == "choice")
    readChoice(v, row.choice);
  else if (name == "forced_by") {
    const std::optional<ForcedBy> f = forcedByFromName(str(v, name));
    if (!f) throw BadField{"\"forced_by\" must be none, manifest, nccl-log or option"};
    row.forcedBy = *f;
  } else if (name == "env") {
    eachField(object(v, name), [&](std::string_view key, od::value ev) { row.env[std::string(key)] = str(ev, key); });
  } else if (name == "net_env") {
    readNetEnv(v, row.netEnv);
  } else if (name == "call") {
    try {
      row.call = callModeFromLabel(str(v, name));
    } catch (const std::invalid_argument& e) {
      throw BadField{e.what()};
    }
  } else if (name == "shape")
    readShape(v, row.shape);
  else if (name == "repeat")
    row.repeat = integer(v, name, 0);
  else if (name == "nccl_version")
    row.ncclVersion = str(v, name);
  else if (name == "tests_version")
    row.testsVersion = str(v, name);
  else if (name == "gpu")
    row.shape.gpu = row.gpu = str(v, name);
  else
    return false;
  return true;
}

void readRow(od::object line, DatasetRow& row) {
  bool schema = false, size = false;
  eachField(line, [&](std::string_view name, od::value fv) {
    od::value& v = fv;
    if (name == "schema") {
      if (str(v, name) != kDatasetSchema) throw BadField{"not a " + std::string(kDatasetSchema) + " line"};
      schema = true;
    } else if (name == "line")
      row.line = integer(v, name, 0);
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
    else if (name == "out_of_place")
      readMeasurement(v, name, row.outOfPlace);
    else if (name == "in_place")
      readMeasurement(v, name, row.inPlace);
    else if (name == "valid") {
      bool b = false;
      if (v.get_bool().get(b)) throw BadField{"\"valid\" must be true or false"};
      row.valid = b;
    } else if (!readRunField(name, v, row))
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

void readSourceLine(od::object line, DatasetSource& out) {
  bool schema = false;
  const auto count = [](od::value v, std::string_view key) { return static_cast<size_t>(unsig(v, key)); };
  eachField(line, [&](std::string_view name, od::value v) {
    if (name == "schema") {
      if (str(v, name) != kDatasetSourceSchema) throw BadField{"not a " + std::string(kDatasetSourceSchema) + " line"};
      schema = true;
    } else if (name == "source")
      out.source = str(v, name);
    else if (name == "runs")
      out.runs = count(v, name);
    else if (name == "rows")
      out.rows = count(v, name);
    else if (name == "flagged")
      out.flagged = count(v, name);
    else if (name == "bad_rows")
      out.badRows = count(v, name);
    else if (name == "skipped_rows")
      out.skippedRows = count(v, name);
    else if (name == "bad") {
      od::array items;
      if (v.get_array().get(items)) throw BadField{"\"bad\" must be an array"};
      for (auto item : items) {
        od::value element;
        if (std::move(item).get(element)) throw BadField{"not JSON"};
        std::pair<size_t, std::string> entry;
        eachField(object(element, "bad"), [&](std::string_view key, od::value ev) {
          if (key == "line")
            entry.first = count(ev, key);
          else if (key == "reason")
            entry.second = str(ev, key);
          else
            throw BadField{"unknown key \"" + std::string(key) + "\" in \"bad\""};
        });
        out.bad.push_back(std::move(entry));
      }
    } else
      throw BadField{"unknown key \"" + std::string(name) + "\""};
  });
  if (!schema) throw BadField{"no \"schema\""};
}

// A line of either schema: a row into row, or a source line into source (which says which it was).
struct ParsedLine {
  bool isSource = false;
  std::string problem;  // "" when read
};

// "schema"'s value, or "" when the line has none (or is no JSON object).
std::string_view schemaOf(od::parser& parser, std::string_view line, size_t readable) {
  od::document doc;
  od::object object;
  od::value value;
  std::string_view schema;
  if (parser.iterate(line.data(), line.size(), readable).get(doc) || doc.get_object().get(object) ||
      object.find_field_unordered("schema").get(value) || value.get_string().get(schema))
    return "";
  return schema;
}

ParsedLine parseAnyLine(od::parser& parser, std::string_view line, size_t readable, DatasetRow& row,
                        DatasetSource& source) {
  // Most lines are rows: a line is looked at again as a source line only when it is not one.
  std::string problem = parseLine(parser, line, readable, row);
  if (problem.empty() || schemaOf(parser, line, readable) != kDatasetSourceSchema) return {false, std::move(problem)};
  source = DatasetSource{};
  try {
    od::document doc;
    if (parser.iterate(line.data(), line.size(), readable).get(doc)) return {true, "not JSON"};
    od::object object;
    if (doc.get_object().get(object)) return {true, "not a JSON object"};
    readSourceLine(object, source);
    const char* rest = nullptr;  // after the object, only the end of the line
    if (!doc.current_location().get(rest) && rest != nullptr) {
      for (const char* c = rest; c < line.data() + line.size(); ++c)
        if (*c != ' ' && *c != '\t' && *c != '\r') return {true, "text after the JSON object"};
    }
  } catch (const BadField& bad) {
    return {true, bad.message};
  } catch (const simdjson::simdjson_error& e) {
    return {true, std::string("not JSON (") + e.what() + ")"};
  }
  return {true, ""};
}

bool blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

}  // namespace

namespace {

// One line of a dataset to the sinks, or its problem to the diagnostics.
class LineDispatch {
 public:
  LineDispatch(const DatasetSink& rows, const DatasetSourceSink& sources) : rows_(rows), sources_(sources) {}
  void operator()(std::string_view line, size_t readable, const std::string& file, size_t number,
                  std::vector<DatasetDiagnostic>& diagnostics) {
    if (blank(line)) return;
    const ParsedLine parsed = parseAnyLine(parser_, line, readable, row_, source_);
    if (!parsed.problem.empty())
      diagnostics.push_back({file, number, parsed.problem});
    else if (!parsed.isSource)
      rows_(row_);
    else if (sources_)
      sources_(source_);
  }

 private:
  od::parser parser_;
  DatasetRow row_;
  DatasetSource source_;
  const DatasetSink& rows_;
  const DatasetSourceSink& sources_;
};

}  // namespace

void readDatasetText(std::string_view paddedText, const std::string& source, const DatasetSink& sink,
                     std::vector<DatasetDiagnostic>& diagnostics, const DatasetSourceSink& sources) {
  LineDispatch dispatch(sink, sources);
  size_t number = 0;
  for (size_t start = 0; start < paddedText.size();) {
    const size_t end = std::min(paddedText.find('\n', start), paddedText.size());
    const size_t readable = paddedText.size() - start + simdjson::SIMDJSON_PADDING;
    dispatch(paddedText.substr(start, end - start), readable, source, ++number, diagnostics);
    start = end + 1;
  }
}

void readDatasetFile(const std::string& path, const DatasetSink& sink, std::vector<DatasetDiagnostic>& diagnostics,
                     const DatasetSourceSink& sources) {
  LineDispatch dispatch(sink, sources);
  analysis::ingest::LineHandlers handlers;
  handlers.line = [&](std::string_view line, int number, size_t readable) {
    dispatch(line, readable, path, static_cast<size_t>(number), diagnostics);
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
