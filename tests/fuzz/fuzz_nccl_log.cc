// libFuzzer target for the NCCL INFO log reader and the import (analysis/nccl_log). The input is a log; its
// first byte chooses whether a small rail map is given. Besides crashes and sanitizer reports it checks the
// promises: a skipped line is named "log:LINE" with a line the input has; every connection's rank is the
// rank its Channel line printed for this side; every record the import writes is read back by the strict
// path-log reader and gives the same bytes again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/nccl_log/import.h"
#include "analysis/nccl_log/log_set.h"
#include "formats/path_log.h"
#include "formats/rail_map.h"

namespace {

namespace nl = railtune::analysis::nccl_log;
namespace pl = railtune::formats::path_log;

void require(bool promise) {
  if (!promise) std::abort();
}

const railtune::formats::RailMap& railMap() {
  static const railtune::formats::RailMap map = railtune::formats::parseRailMap(
      R"({"schema":"railtune.rail_map.v1","cluster":"f","rails":2,"planes":2,"hosts":[{"name":"a","domain":"a","gpus":[
{"index":0,"bus_id":"0000:1b:00.0","nics":[{"hca":"mlx5_0","netdev":"","bus_id":"0000:18:00.0","port":1,"rail":0,"plane":0}]},
{"index":1,"bus_id":"0000:43:00.0","nics":[{"hca":"mlx5_1","netdev":"","bus_id":"0000:40:00.0","port":1,"rail":1,"plane":1}]}]}]})",
      "fuzz");
  return map;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool withMap = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  nl::LogSetBuilder builder;
  builder.startFile("log");
  int lines = 0;
  for (size_t start = 0; start <= text.size();) {
    const size_t end = text.find('\n', start);
    const size_t stop = end == std::string_view::npos ? text.size() : end;
    builder.addLine(text.substr(start, stop - start), ++lines);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  const nl::LogSet logs = builder.finish();
  for (const nl::Diagnostic& d : logs.diagnostics) {
    require(d.where.rfind("log:", 0) == 0);
    require(std::atoi(d.where.c_str() + 4) >= 1 && std::atoi(d.where.c_str() + 4) <= lines);
  }
  nl::ImportOptions options;
  options.railMap = withMap ? &railMap() : nullptr;
  const nl::Import import = nl::importLogs(logs, options);
  size_t connections = 0;
  for (const nl::Process& p : logs.processes) connections += p.connections.size();
  require(import.counts.connectionEnds == connections);  // one record per logged end
  require(import.counts.connections <= connections);
  for (size_t i = 0; i < import.processes.size(); ++i) {
    const nl::ImportedProcess& process = import.processes[i];
    for (size_t c = 0; c < process.connections.size(); ++c) {
      const pl::PathRecord& r = process.connections[c].record;
      require(r.rank == logs.processes[i].connections[c].localRank());
      const std::string line = pl::renderRecord(process.identity, r);
      const pl::ParseResult parsed = pl::parseRecord(line, "rendered", 1);
      require(parsed.parsed.has_value());
      require(pl::renderRecord(parsed.parsed->identity, parsed.parsed->record) == line);
    }
  }
  return 0;
}
