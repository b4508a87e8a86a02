// The file `sweep compare -o` writes (report.h).
#include <stdexcept>
#include <string>

#include "nccl-tests-integration/compare/report.h"

namespace railtune::sweep {

CompareFile compareFileOf(const std::string& path) {
  if (path.ends_with(".html") || path.ends_with(".htm")) return CompareFile::Html;
  if (path.ends_with(".svg")) return CompareFile::Svg;
  if (path.ends_with(".txt") || path.ends_with(".md")) return CompareFile::Text;
  throw std::invalid_argument("-o " + path + ": cannot tell the format from the extension (.html, .svg or .txt)");
}

std::string renderCompareFile(const CompareReport& report, CompareFile kind, const std::string& path) {
  switch (kind) {
    case CompareFile::Html:
      return renderCompareHtml(report);
    case CompareFile::Svg:
      if (report.groups.size() != 1)
        throw std::invalid_argument("-o " + path + ": an SVG holds one plot, and the datasets hold " +
                                    std::to_string(report.groups.size()) + " collectives and shapes; write .html");
      return renderCompareSvg(report.groups.front());
    case CompareFile::Text:
      break;
  }
  return renderCompareTable(report);
}

}  // namespace railtune::sweep
