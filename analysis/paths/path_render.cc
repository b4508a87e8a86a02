// Format selection and the detail-or-racks decision.
#include "analysis/paths/path_render.h"

#include "analysis/paths/path_report.h"

#include <algorithm>
#include <cctype>

namespace railtune::analysis::paths {

std::optional<RenderFormat> parseRenderFormat(const std::string& name) {
  if (name == "html") return RenderFormat::Html;
  if (name == "svg") return RenderFormat::Svg;
  if (name == "dot") return RenderFormat::Dot;
  return std::nullopt;
}

std::optional<RenderFormat> renderFormatFromPath(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  const size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "htm") return RenderFormat::Html;
  if (ext == "gv") return RenderFormat::Dot;
  return parseRenderFormat(ext);
}

RenderCounts renderCounts(const CheckReport& report) {
  return RenderCounts{report.hosts,          report.connections,
                      report.connectionEnds, report.fromNcclLog,
                      report.violations(),   report.railsUnchecked > 0 ? railsUncheckedText(report) : ""};
}

std::string summaryLine(const std::string& job, const RenderCounts& c) {
  auto plural = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string line = "job " + job + ": " + plural(c.hosts, "host", "hosts") + " logged, " +
                     plural(c.connections, "connection", "connections");
  if (c.fromNcclLog > 0) line += " (" + std::to_string(c.fromNcclLog) + " from NCCL's logs)";
  line += ", " + plural(c.connectionEnds, "connection end", "connection ends") + ", " +
          plural(c.violations, "violation", "violations");
  if (!c.railsUnchecked.empty()) line += "; " + c.railsUnchecked;
  return line;
}

std::string renderPaths(const PathGraph& graph, const CheckReport& report, const RenderOptions& options) {
  if (graph.hostCount() > options.maxHosts) {
    const RackGraph racks = aggregateByRack(graph);
    switch (options.format) {
      case RenderFormat::Html:
        return renderHtml(racks, report);
      case RenderFormat::Svg:
        return renderSvg(racks);
      case RenderFormat::Dot:
        return renderDot(racks);
    }
  }
  switch (options.format) {
    case RenderFormat::Html:
      return renderHtml(graph, report);
    case RenderFormat::Svg:
      return renderSvg(graph);
    case RenderFormat::Dot:
      return renderDot(graph);
  }
  return {};
}

}  // namespace railtune::analysis::paths
