// libFuzzer target for the profiler's record readers (formats/profile_logs.h): the input
// is read as a collective log and as a network summary. Besides crashes and sanitizer reports it
// checks the readers' promises: errors name the file and a line; every record read renders back to
// a line that reads back to the same rendering; and the Chrome trace and the Prometheus text made
// from those records stay well formed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "formats/profile_logs.h"
#include "profiler_plugin/output/prometheus.h"
#include "profiler_plugin/output/trace.h"

namespace {

using namespace railtune::profiler;
using namespace railtune::profiler::output;

void require(bool promise) {
  if (!promise) std::abort();
}

// Dropped lines of every form (the writer's, a capture's notice); records_dropped on other lines
// only as files of earlier versions had it.
std::string renderAgain(const ParsedCollective& parsed) {
  if (parsed.droppedNotice) return renderDroppedLine(parsed.identity, droppedNoticeOf(parsed));
  return renderCollectiveLine(parsed.identity, parsed.record, parsed.recordsDropped);
}

void checkCollectives(std::string_view text) {
  const CollectiveParseResult all = parseCollectiveRecords(text, "fuzz");
  require(all.error.empty() || all.error.rfind("fuzz:", 0) == 0);
  TraceRenderer trace(railtune::Identity{"host", "job", 1});
  PrometheusMetrics metrics(railtune::Identity{"host", "job", 1});
  std::string events = "[\n";
  for (const ParsedCollective& parsed : all.records) {
    const std::string line = renderAgain(parsed);
    const CollectiveLineResult again = parseCollectiveLine(line, "again", 1);
    require(again.parsed.has_value() && renderAgain(*again.parsed) == line);
    trace.append(parsed.record, &events);  // a dropped line's record (kind Lost) has no event
    metrics.add(parsed.record);
  }
  require(nlohmann::json::accept(events + TraceRenderer::kClose));
  // Headers, with the counts of a removed file's losses when they carry them, render again to the same line.
  for (const ParsedCollective& header : all.headers) {
    std::string line;
    appendHeaderLine(&line, header.identity, header.record.start.realtimeNs, header.bootId, droppedNoticeOf(header),
                     header.droppedReason);
    const CollectiveLineResult again = parseCollectiveLine(line, "again", 1);
    require(again.parsed.has_value() && again.parsed->header && again.parsed->recordsDropped == header.recordsDropped &&
            again.parsed->droppedReason == header.droppedReason);
  }
  const std::string exposition = metrics.render();
  require(!exposition.empty() && exposition.back() == '\n');
}

void checkNet(std::string_view text) {
  const NetParseResult all = parseNetRecords(text, "fuzz");
  require(all.error.empty() || all.error.rfind("fuzz:", 0) == 0);
  for (const ParsedNet& parsed : all.records) {
    const std::string line = renderNetLine(parsed.identity, parsed.record);
    const NetLineResult again = parseNetLine(line, "again", 1);
    require(again.parsed.has_value() && renderNetLine(again.parsed->identity, again.parsed->record) == line);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  checkCollectives(text);
  checkNet(text);
  return 0;
}
