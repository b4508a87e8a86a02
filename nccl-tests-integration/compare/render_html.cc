// `railtune sweep compare -o REPORT.html` (report.h, renderCompareHtml): one self-contained page (inline
// style, the plots inline, no script, no external URL, font or image), so that it can be attached to a
// ticket or opened without network. Per group: its plot (render_svg.cc) and the same table the terminal
// shows (render_cells.h), each row tagged with its size and whether a rule chose it. The markup is also
// well-formed XML, so that the tests can parse it without a browser.
#include <string>
#include <vector>

#include "nccl-tests-integration/compare/render_cells.h"
#include "nccl-tests-integration/compare/render_markup.h"
#include "nccl-tests-integration/compare/report.h"

namespace railtune::sweep {
namespace {

using render::attr;
using render::markup;

constexpr const char* kTitle = "railtune sweep compare";

constexpr const char* kPageStyle =
    "<style>\n"
    "body{font-family:sans-serif;margin:20px 24px;color:#1f2328;background:#ffffff}\n"
    "h1{font-size:20px;margin:0 0 8px 0}\n"
    "h2{font-size:16px;margin:28px 0 8px 0}\n"
    "dl.sources{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:13px;margin:0}\n"
    "dl.sources dt{font-weight:bold}\n"
    "dl.sources dd{margin:0;overflow-wrap:anywhere}\n"
    "section.group{border-top:1px solid #d0d7de;margin-top:20px}\n"
    "svg.compare-plot{max-width:100%;height:auto;border:1px solid #d0d7de;border-radius:6px}\n"
    "table.compare{border-collapse:collapse;font-size:13px;font-variant-numeric:tabular-nums;margin-top:8px}\n"
    "table.compare th,table.compare td{border-bottom:1px solid #d0d7de;padding:3px 10px;text-align:left;"
    "vertical-align:top}\n"
    "table.compare th{background:#f6f8fa}\n"
    "table.compare .num{text-align:right;white-space:nowrap}\n"
    "table.compare .label{max-width:24em;overflow-wrap:anywhere}\n"
    "table.compare tr.ruled td{background:#eef5ff}\n"
    "table.compare td.gain.loss{color:#b00000}\n"
    "p.summary{font-size:13px;margin:6px 0}\n"
    "</style>\n";

std::string sources(const CompareReport& report) {
  std::string out = "<dl class=\"sources\">\n";
  for (const render::SourceLine& line : render::sourceLines(report)) {
    out += "<dt>" + markup(line.name) + "</dt><dd";
    out += attr("class", line.name);
    out += ">" + markup(line.text) + "</dd>\n";
  }
  return out + "</dl>\n";
}

std::string cellClass(const render::Column& column, const ComparePoint& point) {
  std::string out = column.name;
  out += column.numeric ? " num" : " label";
  if (std::string(column.name) == "gain") {
    const std::optional<double> gain = point.gain();
    if (gain && *gain < 0) out += " loss";
  }
  return out;
}

std::string table(const CompareGroup& group, bool withModel) {
  const std::vector<render::Column> columns = render::compareColumns(group, withModel);
  std::string out = "<table class=\"compare\">\n<thead><tr>";
  for (const render::Column& c : columns)
    out +=
        "<th" + attr("class", std::string(c.name) + (c.numeric ? " num" : " label")) + ">" + markup(c.header) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const ComparePoint& point : group.points) {
    out += "<tr" + attr("class", render::ruled(point) ? "point ruled" : "point") +
           attr("data-size", std::to_string(point.size)) + ">";
    for (const render::Column& c : columns)
      out += "<td" + attr("class", cellClass(c, point)) + ">" + markup(c.cell(point)) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string section(const CompareGroup& group, bool withModel) {
  const Shape& s = group.shape;
  std::string out = "<section class=\"group\"" + attr("data-collective", group.collective) +
                    attr("data-ranks", std::to_string(s.ranks)) + attr("data-hosts", std::to_string(s.hosts)) +
                    attr("data-nodes", std::to_string(s.nodes)) +
                    attr("data-nvl-domains", std::to_string(s.nvlDomains)) +
                    attr("data-ranks-per-domain", std::to_string(s.ranksPerDomain)) + ">\n";
  out += "<h2>" + markup(render::groupTitle(group)) + "</h2>\n";
  out += renderCompareSvg(group);
  out += table(group, withModel);
  for (const std::string& line : render::summaryLines(group, withModel))
    out += "<p class=\"summary\">" + markup(line) + "</p>\n";
  return out + "</section>\n";
}

}  // namespace

std::string renderCompareHtml(const CompareReport& report) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += std::string("<title>") + kTitle + "</title>\n" + kPageStyle + "</head>\n<body>\n";
  out += std::string("<h1>") + kTitle + "</h1>\n" + sources(report);
  if (report.groups.empty()) out += std::string("<p class=\"empty\">") + render::kNothingToCompare + "</p>\n";
  for (const CompareGroup& group : report.groups) out += section(group, report.withModel);
  return out + "</body>\n</html>\n";
}

}  // namespace railtune::sweep
