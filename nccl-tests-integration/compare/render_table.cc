// `railtune sweep compare` on a terminal (report.h, renderCompareTable): the report's sources, then per
// group its title, a table aligned in columns (numbers to the right, labels to the left) and the summary
// under it. Plain text only, the same for the same report: it is what goes into a ticket or a diff.
#include <algorithm>
#include <string>
#include <vector>

#include "nccl-tests-integration/compare/render_cells.h"
#include "nccl-tests-integration/compare/report.h"

namespace railtune::sweep {
namespace {

constexpr const char* kGap = "  ";

// Labels and file names come from user files: a control character in one (a line end, an escape sequence)
// must neither break the table nor reach the terminal.
std::string oneLine(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  return text;
}

// Display width in characters: UTF-8 continuation bytes take no column.
size_t widthOf(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void appendRow(const std::vector<render::Column>& columns, const std::vector<std::string>& cells,
               const std::vector<size_t>& widths, std::string& out) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string padding(widths[i] - widthOf(cells[i]), ' ');
    if (i > 0) line += kGap;
    line += columns[i].numeric ? padding + cells[i] : cells[i] + padding;
  }
  line.erase(line.find_last_not_of(' ') + 1);  // a left-aligned last column leaves no trailing blanks
  out += line + "\n";
}

void appendGroup(const CompareGroup& group, bool withModel, std::string& out) {
  out += oneLine(render::groupTitle(group)) + "\n";
  const std::vector<render::Column> columns = render::compareColumns(group, withModel);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (const render::Column& c : columns) header.emplace_back(c.header);
  rows.push_back(header);
  for (const ComparePoint& point : group.points) {
    std::vector<std::string> cells;
    for (const render::Column& c : columns) cells.push_back(oneLine(c.cell(point)));
    rows.push_back(cells);
  }
  std::vector<size_t> widths(columns.size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], widthOf(row[i]));
  for (const auto& row : rows) appendRow(columns, row, widths, out);
  for (const std::string& line : render::summaryLines(group, withModel)) out += oneLine(line) + "\n";
}

}  // namespace

std::string renderCompareTable(const CompareReport& report) {
  std::string out;
  for (const render::SourceLine& line : render::sourceLines(report))
    out += line.name + (": " + oneLine(line.text)) + "\n";
  if (report.groups.empty()) return out + "\n" + render::kNothingToCompare + "\n";
  for (const CompareGroup& group : report.groups) {
    out += "\n";
    appendGroup(group, report.withModel, out);
  }
  return out;
}

}  // namespace railtune::sweep
