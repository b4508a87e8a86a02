// The HTML page: one self-contained file (the SVG inline, inline CSS, a few lines of inline JS for the
// hover panel; no external script, style, font or image), so it can be mailed, attached to a ticket or
// opened on a machine without network access. Under the picture: the check's findings.
#include <algorithm>

#include "analysis/paths/path_render.h"
#include "analysis/paths/path_render_style.h"
#include "analysis/paths/path_render_svg_parts.h"

namespace railtune::analysis::paths {
namespace {

constexpr const char* kPageStyle =
    "<style>\n"
    "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:16px;color:#1f2328;background:#ffffff}\n"
    "h1{font-size:20px;margin:0 0 6px 0}\n"
    "h2{font-size:16px;margin:18px 0 6px 0}\n"
    "#picture{overflow:auto;border:1px solid #d0d7de;border-radius:6px}\n"
    "#details{white-space:pre-line;font-size:13px;min-height:3.6em;margin:8px 0;padding:6px 10px;"
    "border-left:4px solid #8b949e;background:#f6f8fa}\n"
    "#details.bad{border-left-color:#d00000}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}\n"
    "tr.violation td:first-child{color:#d00000;font-weight:bold}\n"
    "</style>\n";

// Copies a link's <title> into the panel when the pointer is on it (the title alone shows late).
constexpr const char* kHoverScript =
    "<script>\n"
    "(function () {\n"
    "  var panel = document.getElementById('details');\n"
    "  document.querySelectorAll('#paths .link').forEach(function (link) {\n"
    "    link.addEventListener('mouseenter', function () {\n"
    "      var title = link.querySelector('title');\n"
    "      panel.textContent = title ? title.textContent : '';\n"
    "      panel.className = link.classList.contains('violation') ? 'bad' : '';\n"
    "    });\n"
    "  });\n"
    "})();\n"
    "</script>\n";

const char* kindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::CrossRail:
      return "cross-rail";
    case FindingKind::CrossPlane:
      return "cross-plane";
    case FindingKind::DigestMismatch:
      return "digest mismatch";
    case FindingKind::AsymmetricRails:
      return "asymmetric rails";
    case FindingKind::UnusedRail:
      return "unused rail";
    case FindingKind::MissingHost:
      return "missing host";
    case FindingKind::NeverClosed:
      return "never closed";
    case FindingKind::IdleQp:
      return "idle QP";
  }
  return "?";
}

// The check's messages may start with the kind ("cross-rail: rank 0 ..."), which has its own column here.
std::string withoutKind(const Finding& f) {
  const std::string prefix = std::string(kindName(f.kind)) + ": ";
  return f.message.compare(0, prefix.size(), prefix) == 0 ? f.message.substr(prefix.size()) : f.message;
}

// A large job can have a finding per connection; the page lists the first ones (violations come first)
// and stays small. `railtune paths check` lists them all.
constexpr size_t kMaxFindingRows = 200;

std::string findingsTable(const CheckReport& report) {
  if (report.findings.empty()) return "<p id=\"findings\">No findings: every connection stayed on its rail.</p>\n";
  std::string s = "<table id=\"findings\">\n<tr><th>severity</th><th>kind</th><th>finding</th></tr>\n";
  const size_t shown = std::min(report.findings.size(), kMaxFindingRows);
  for (size_t i = 0; i < shown; ++i) {
    const Finding& f = report.findings[i];
    const bool bad = f.severity == Severity::Violation;
    s += std::string("<tr class=\"") + (bad ? "violation" : "note") + "\"><td>" + (bad ? "violation" : "note") +
         "</td><td>" + kindName(f.kind) + "</td><td>" + style::xmlEscape(withoutKind(f)) + "</td></tr>\n";
  }
  s += "</table>\n";
  if (shown < report.findings.size())
    s += "<p id=\"findings-more\">... and " + std::to_string(report.findings.size() - shown) +
         " more; <code>railtune paths check</code> lists them all.</p>\n";
  return s;
}

std::string page(const std::string& heading, const std::string& intro, const std::string& svgText,
                 const CheckReport& report) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  style::xmlEscape("railtune paths: " + heading) + "</title>\n" + kPageStyle + "</head>\n<body>\n";
  s += "<h1>" + style::xmlEscape("railtune paths: " + heading) + "</h1>\n<p>" + style::xmlEscape(intro) + "</p>\n";
  s += "<div id=\"details\">Point at a link for its GPU, NIC, rail, peer, bytes and messages.</div>\n";
  s += "<div id=\"picture\">\n" + svgText + "</div>\n<h2>Findings</h2>\n" + findingsTable(report);
  return s + kHoverScript + "</body>\n</html>\n";
}

}  // namespace

// Which connections NCCL's logs gave (railtune paths import) and which railtune's net plugin wrote.
static std::string originText(const CheckReport& report) {
  if (report.fromNcclLog == 0) return "";
  return " " + std::to_string(report.fromNcclLog) + " of the " + std::to_string(report.connections) +
         " connections were rebuilt from NCCL's INFO logs (a link's details name the log line), the others written "
         "by railtune's net plugin.";
}

std::string renderHtml(const PathGraph& graph, const CheckReport& report) {
  const std::string heading = summaryLine(graph.job, graph.counts);
  return page(heading,
              "Each connection is drawn once, from the sending GPU through its NIC to its rail's switch and on to the "
              "peer's NIC and GPU; colour: the sender's rail; width: bytes (log scale); red dashed: a violation of "
              "the rail plan. Dotted grey lines inside a tray: the GPU-to-NIC binding the rail map intends." +
                  originText(report),
              renderSvg(graph), report);
}

std::string renderHtml(const RackGraph& graph, const CheckReport& report) {
  const std::string heading = summaryLine(graph.job, graph.counts) + " (aggregated by rack)";
  return page(heading,
              "The job has too many trays to draw one by one (--max-hosts), so each link joins a rack to a rail "
              "switch and carries every connection with an end in that rack on that rail; width: summed bytes (log "
              "scale); red dashed: a link carrying violations; a red badge: how many of the rack's connections are "
              "violations." +
                  originText(report),
              renderSvg(graph), report);
}

}  // namespace railtune::analysis::paths
