// The renderers of `railtune sweep compare` (nccl-tests-integration/compare/render_*.cc) on reports built by
// hand: the text table's columns and summaries, the HTML page's sections, rows and escaping, and the SVG's
// series, chosen marks, axes and well-formedness, with the edge cases a sweep can produce (one size, an
// empty series, zero busbw, huge or hostile labels, many groups).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "nccl-tests-integration/compare/render_markup.h"
#include "nccl-tests-integration/compare/report.h"

namespace railtune::sweep {
namespace {

constexpr uint64_t kMiB = 1 << 20;

Shape oneTray() {
  return Shape{8, 1, 1, 1, 8, {}, {}, {}};
}

Series series(const std::string& label, std::vector<SeriesPoint> points) {
  Series s;
  s.label = label;
  s.isDefault = label == "default";
  s.isTuned = label == "tuned";
  s.points = std::move(points);
  return s;
}

ComparePoint point(uint64_t size, std::optional<double> def, const std::string& chosen,
                   std::optional<double> chosenBusbw, const std::string& best, std::optional<double> bestBusbw) {
  ComparePoint p;
  p.size = size;
  p.defaultBusbw = def;
  p.chosen = chosen;
  p.chosenBusbw = chosenBusbw;
  p.best = best;
  p.bestBusbw = bestBusbw;
  return p;
}

// allreduce on one tray at 1, 4 and 16 MiB: ring/ll128 wins at 1 MiB (+20 %), NCCL's default holds at 4 MiB,
// tree/simple is ruled at 16 MiB but measured slower than the default there.
CompareGroup allreduce() {
  CompareGroup g;
  g.collective = "allreduce";
  g.shape = oneTray();
  g.series = {series("default", {{kMiB, 100, 5}, {4 * kMiB, 150, 5}, {16 * kMiB, 180, 5}}),
              series("ring/ll128", {{kMiB, 120, 5}, {4 * kMiB, 140, 5}, {16 * kMiB, 160, 5}}),
              series("tree/simple", {{kMiB, 90, 5}, {4 * kMiB, 145, 5}, {16 * kMiB, 171, 5}})};
  g.points = {point(kMiB, 100, "ring/ll128", 120, "ring/ll128", 120),
              point(4 * kMiB, 150, "default", 150, "default", 150),
              point(16 * kMiB, 180, "tree/simple", 171, "default", 180)};
  return g;
}

CompareReport reportOf(std::vector<CompareGroup> groups) {
  CompareReport r;
  r.inputs = {"sweep.jsonl", "rules.json"};
  r.rulesSource = "rules.json";
  r.groups = std::move(groups);
  return r;
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// The line of the table that starts with the size's text, split on runs of two or more blanks.
std::vector<std::string> rowOf(const std::string& table, const std::string& size) {
  for (const std::string& line : linesOf(table)) {
    const std::string trimmed =
        line.substr(line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' '));
    if (trimmed.rfind(size + "  ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::regex gap("  +");
    for (std::sregex_token_iterator it(trimmed.begin(), trimmed.end(), gap, -1), end; it != end; ++it)
      cells.push_back(*it);
    return cells;
  }
  return {};
}

// A small check that markup is well-formed XML: tags nest and close, attribute values are quoted, every '&'
// starts an entity and no '<' stands in text. Returns "" or what is wrong.
std::string xmlProblem(const std::string& doc) {
  std::vector<std::string> open;
  int roots = 0;
  const std::regex entity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
  const auto entityAt = [&](size_t i) { return std::regex_search(doc.substr(i, 12), entity); };
  for (size_t i = 0; i < doc.size();) {
    if (doc[i] == '&') {
      if (!entityAt(i)) return "bare & at " + std::to_string(i);
      ++i;
      continue;
    }
    if (doc[i] != '<') {
      if (doc[i] == '>') return "bare > at " + std::to_string(i);
      ++i;
      continue;
    }
    if (doc.compare(i, 4, "<!--") == 0) {
      i = doc.find("-->", i);
      if (i == std::string::npos) return "unclosed comment";
      i += 3;
      continue;
    }
    if (doc.compare(i, 2, "<!") == 0 || doc.compare(i, 2, "<?") == 0) {
      if (!open.empty()) return "declaration inside an element";
      i = doc.find('>', i) + 1;
      continue;
    }
    const bool closing = doc[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    const size_t nameStart = j;
    while (j < doc.size() && (std::isalnum(static_cast<unsigned char>(doc[j])) || doc[j] == '-' || doc[j] == ':')) ++j;
    const std::string name = doc.substr(nameStart, j - nameStart);
    if (name.empty()) return "tag without a name at " + std::to_string(i);
    // Attributes: name="value" (the value with no '<', its '&' entities).
    while (j < doc.size() && doc[j] != '>' && doc[j] != '/') {
      if (doc[j] == ' ' || doc[j] == '\n') {
        ++j;
        continue;
      }
      const size_t eq = doc.find('=', j);
      if (eq == std::string::npos || doc[eq + 1] != '"') return "unquoted attribute in <" + name + ">";
      const size_t close = doc.find('"', eq + 2);
      if (close == std::string::npos) return "unclosed attribute in <" + name + ">";
      for (size_t k = eq + 2; k < close; ++k) {
        if (doc[k] == '<') return "'<' in an attribute of <" + name + ">";
        if (doc[k] == '&' && !entityAt(k)) return "bare & in an attribute of <" + name + ">";
      }
      j = close + 1;
    }
    if (j >= doc.size()) return "unclosed tag <" + name + ">";
    const bool empty = doc[j] == '/';
    if (empty && doc[j + 1] != '>') return "stray / in <" + name + ">";
    i = j + (empty ? 2 : 1);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
      open.pop_back();
    } else if (!empty) {
      if (open.empty()) ++roots;
      open.push_back(name);
    } else if (open.empty()) {
      ++roots;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

// Python's own XML parser on the text, where python3 is installed: "" when it parsed (or python3 is absent).
std::string pythonXmlProblem(const std::string& doc, const std::string& name) {
  if (std::system("python3 -c 'import xml.etree.ElementTree' >/dev/null 2>&1") != 0) return "";
  // The process id keeps two builds' runs of the same test apart.
  const std::string path = ::testing::TempDir() + "/sweep_render_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << doc;
  const std::string command =
      "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '" + path + "'";
  if (std::system(command.c_str()) != 0) return "python's xml.etree rejected " + path;  // kept to look at
  std::remove(path.c_str());
  return "";
}

void expectWellFormed(const std::string& doc, const std::string& name) {
  EXPECT_EQ(xmlProblem(doc), "") << doc;
  EXPECT_EQ(pythonXmlProblem(doc, name), "");
  EXPECT_EQ(doc.find("nan"), std::string::npos) << doc;
  EXPECT_EQ(doc.find("inf\""), std::string::npos) << doc;
}

// Every value of one attribute on the elements that start with `open` ("<circle class=\"chosen").
std::vector<std::string> attributeValues(const std::string& doc, const std::string& open, const std::string& attr) {
  std::vector<std::string> values;
  for (size_t at = doc.find(open); at != std::string::npos; at = doc.find(open, at + 1)) {
    const size_t end = doc.find('>', at);
    const std::string tag = doc.substr(at, end - at);
    const size_t a = tag.find(" " + attr + "=\"");
    if (a == std::string::npos) continue;
    const size_t start = a + attr.size() + 3;
    values.push_back(tag.substr(start, tag.find('"', start) - start));
  }
  return values;
}

// ---- the text table ----

TEST(SweepRenderTable, TitleColumnsAndValues) {
  const std::string text = renderCompareTable(reportOf({allreduce()}));
  EXPECT_NE(text.find("inputs: sweep.jsonl, rules.json\n"), std::string::npos) << text;
  EXPECT_NE(text.find("choices: rules.json\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nallreduce, 8 ranks, 1 node, 1 NVLink domain of 8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("busbw: every GB/s is the median of the runs' out-of-place and in-place busbw, pooled\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  size  default GB/s (median, in- and out-of-place)  chosen       chosen GB/s     gain  best    "
                      "    best GB/s\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("tuned GB/s"), std::string::npos) << "no tuned run, no tuned column\n" << text;
  EXPECT_EQ(text.find("model"), std::string::npos) << text;
  EXPECT_EQ(rowOf(text, "1 MiB"),
            (std::vector<std::string>{"1 MiB", "100.0", "ring/ll128", "120.0", "+20.0 %", "ring/ll128", "120.0"}));
  EXPECT_EQ(rowOf(text, "4 MiB"),
            (std::vector<std::string>{"4 MiB", "150.0", "default", "150.0", "-", "default", "150.0"}));
  EXPECT_EQ(rowOf(text, "16 MiB"),
            (std::vector<std::string>{"16 MiB", "180.0", "tree/simple", "171.0", "-5.0 %", "default", "180.0"}));
  EXPECT_EQ(text.find(" \n"), std::string::npos) << "no trailing blanks\n" << text;
}

TEST(SweepRenderTable, ColumnsAlignNumbersRightLabelsLeft) {
  const std::vector<std::string> lines = linesOf(renderCompareTable(reportOf({allreduce()})));
  std::vector<std::string> table;
  for (const std::string& line : lines)
    if (!line.starts_with("busbw: ") &&
        (line.find("GB/s") != std::string::npos || line.find(" MiB ") != std::string::npos))
      table.push_back(line);
  ASSERT_EQ(table.size(), 4u);
  // The last column is right-aligned: every line of the table ends at the same column.
  for (const std::string& line : table) EXPECT_EQ(line.size(), table[0].size()) << line;
  // The "chosen" label column starts at the same column in every row.
  const size_t chosen = table[0].find("chosen ");
  EXPECT_EQ(table[1].substr(chosen, 10), "ring/ll128");
  EXPECT_EQ(table[2].substr(chosen, 7), "default");
  EXPECT_EQ(table[3].substr(chosen, 11), "tree/simple");
}

TEST(SweepRenderTable, SummaryOfRuledSizesAndGain) {
  const std::string text = renderCompareTable(reportOf({allreduce()}));
  // Ruled at 1 MiB (+20 %) and 16 MiB (-5 %): mean +7.5 %; only 1 MiB beats the default.
  EXPECT_NE(text.find("the rules choose at 2 of 3 sizes and beat NCCL default at 1; mean gain +7.5 % over the "
                      "2 sizes ruled (expected from the sweep)\n"),
            std::string::npos)
      << text;
  CompareGroup none = allreduce();
  for (ComparePoint& p : none.points) p.chosen = "default";
  EXPECT_NE(renderCompareTable(reportOf({none})).find("no rule at any of the 3 sizes: NCCL decides at each\n"),
            std::string::npos);
}

TEST(SweepRenderTable, TunedColumnAndMeasuredGain) {
  CompareGroup g = allreduce();
  g.series.insert(g.series.begin() + 1, series("tuned", {{kMiB, 130, 3}, {4 * kMiB, 151, 3}, {16 * kMiB, 170, 3}}));
  g.points[0].tunedBusbw = 130;
  g.points[1].tunedBusbw = 151;
  // 16 MiB: the tuned run has no valid sample there.
  const std::string text = renderCompareTable(reportOf({g}));
  EXPECT_NE(text.find("chosen GB/s  tuned GB/s     gain  best"), std::string::npos) << text;
  EXPECT_EQ(rowOf(text, "1 MiB"), (std::vector<std::string>{"1 MiB", "100.0", "ring/ll128", "120.0", "130.0", "+30.0 %",
                                                            "ring/ll128", "120.0"}));
  EXPECT_EQ(rowOf(text, "16 MiB")[4], "-");
  EXPECT_NE(text.find("(measured with the rules loaded)"), std::string::npos) << text;
}

TEST(SweepRenderTable, ModelColumnsAndRegretSummary) {
  CompareReport r = reportOf({allreduce()});
  r.withModel = true;
  r.modelNote = "cost model of the railtune tuner, advise mode, profile gb300-nvl72";
  auto& points = r.groups[0].points;
  points[0].modelPick = "ring/ll128", points[0].modelRegret = 0.0, points[0].defaultRegret = 0.2;
  points[1].modelPick = "ring/ll128", points[1].modelRegret = 150.0 / 140 - 1, points[1].defaultRegret = 0.0;
  points[2].modelPick = "nvls/simple";  // not measured: no regret
  const std::string text = renderCompareTable(r);
  EXPECT_NE(text.find("model: cost model of the railtune tuner, advise mode, profile gb300-nvl72\n"),
            std::string::npos);
  EXPECT_NE(text.find("best GB/s  model pick   model regret  default regret\n"), std::string::npos) << text;
  EXPECT_EQ(rowOf(text, "1 MiB").back(), "20.0 %");
  EXPECT_EQ(rowOf(text, "4 MiB")[8], "7.1 %");
  EXPECT_EQ(rowOf(text, "16 MiB"), (std::vector<std::string>{"16 MiB", "180.0", "tree/simple", "171.0", "-5.0 %",
                                                             "default", "180.0", "nvls/simple", "-", "-"}));
  EXPECT_NE(text.find("model regret mean 3.6 % (max 7.1 %) vs NCCL default 10.0 % (max 20.0 %) over 2 sizes; the "
                      "model's pick was not measured at 1 size\n"),
            std::string::npos)
      << text;
}

TEST(SweepRenderTable, MissingValuesPrintDash) {
  CompareGroup g;
  g.collective = "alltoall";
  g.shape = oneTray();
  g.points = {point(8, std::nullopt, "", std::nullopt, "", std::nullopt)};
  const std::string text = renderCompareTable(reportOf({g}));
  EXPECT_EQ(rowOf(text, "8 B"), (std::vector<std::string>{"8 B", "-", "-", "-", "-", "-", "-"})) << text;
  EXPECT_NE(text.find("no rule at any of the 1 size"), std::string::npos) << text;
}

TEST(SweepRenderTable, NoGroupsAndOwnWinners) {
  CompareReport r;
  r.inputs = {"a.jsonl"};
  const std::string text = renderCompareTable(r);
  EXPECT_NE(text.find("choices: the dataset's own winners\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nothing to compare"), std::string::npos) << text;
}

TEST(SweepRenderTable, ControlCharactersInLabelsDoNotReachTheTerminal) {
  CompareGroup g = allreduce();
  g.points[0].chosen = "ring\x1b[31m/ll128\nx";
  const std::string text = renderCompareTable(reportOf({g}));
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("ring?[31m/ll128?x"), std::string::npos) << text;
}

TEST(SweepRenderTable, Deterministic) {
  const CompareReport r = reportOf({allreduce(), allreduce()});
  EXPECT_EQ(renderCompareTable(r), renderCompareTable(r));
  EXPECT_EQ(renderCompareHtml(r), renderCompareHtml(r));
}

// ---- the SVG plot ----

TEST(SweepRenderSvg, WellFormedStandaloneXml) {
  const std::string svg = renderCompareSvg(allreduce());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg;
  EXPECT_NE(svg.find("viewBox=\"0 0 900 420\""), std::string::npos);
  expectWellFormed(svg, "allreduce.svg");
}

TEST(SweepRenderSvg, OnePolylinePerSeriesAndOneChosenMarkPerPoint) {
  const std::string svg = renderCompareSvg(allreduce());
  EXPECT_EQ(attributeValues(svg, "<polyline class=\"series\"", "data-label"),
            (std::vector<std::string>{"default", "ring/ll128", "tree/simple"}));
  EXPECT_EQ(attributeValues(svg, "<circle class=\"chosen", "data-size"),
            (std::vector<std::string>{std::to_string(kMiB), std::to_string(4 * kMiB), std::to_string(16 * kMiB)}));
  EXPECT_EQ(attributeValues(svg, "<circle class=\"chosen", "data-label"),
            (std::vector<std::string>{"ring/ll128", "default", "tree/simple"}));
  EXPECT_EQ(count(svg, "<g class=\"legend\""), 1u);
  EXPECT_EQ(attributeValues(svg, "<g class=\"entry\"", "data-label").size(), 3u);
}

TEST(SweepRenderSvg, ChosenMarkSitsOnTheChosenSeries) {
  const std::string svg = renderCompareSvg(allreduce());
  // Each series' vertices, by x.
  std::map<std::string, std::map<std::string, std::string>> vertices;
  const auto labels = attributeValues(svg, "<polyline class=\"series\"", "data-label");
  const auto points = attributeValues(svg, "<polyline class=\"series\"", "points");
  const auto colours = attributeValues(svg, "<polyline class=\"series\"", "stroke");
  ASSERT_EQ(labels.size(), points.size());
  std::map<std::string, std::string> colourOf;
  for (size_t i = 0; i < labels.size(); ++i) {
    colourOf[labels[i]] = colours[i];
    std::istringstream in(points[i]);
    for (std::string xy; in >> xy;) vertices[labels[i]][xy.substr(0, xy.find(','))] = xy.substr(xy.find(',') + 1);
  }
  const auto cx = attributeValues(svg, "<circle class=\"chosen", "cx");
  const auto cy = attributeValues(svg, "<circle class=\"chosen", "cy");
  const auto chosen = attributeValues(svg, "<circle class=\"chosen", "data-label");
  const auto stroke = attributeValues(svg, "<circle class=\"chosen", "stroke");
  ASSERT_EQ(cx.size(), 3u);
  for (size_t i = 0; i < cx.size(); ++i) {
    EXPECT_EQ(vertices[chosen[i]][cx[i]], cy[i]) << chosen[i] << " at x " << cx[i];
    EXPECT_EQ(stroke[i], colourOf[chosen[i]]);
  }
  // Distinct colours; the default's dark and thick, others thinner.
  EXPECT_NE(colourOf["default"], colourOf["ring/ll128"]);
  EXPECT_NE(colourOf["ring/ll128"], colourOf["tree/simple"]);
  EXPECT_EQ(attributeValues(svg, "<polyline class=\"series\"", "stroke-width")[0], "3.0");
}

TEST(SweepRenderSvg, TunedSeriesDashed) {
  CompareGroup g = allreduce();
  g.series.insert(g.series.begin() + 1, series("tuned", {{kMiB, 130, 3}}));
  const std::string svg = renderCompareSvg(g);
  const auto labels = attributeValues(svg, "<polyline class=\"series\"", "data-label");
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[1], "tuned");
  size_t at = svg.find("data-label=\"tuned\"");
  const std::string tag = svg.substr(at, svg.find('>', at) - at);
  EXPECT_NE(tag.find("stroke-dasharray"), std::string::npos) << tag;
}

TEST(SweepRenderSvg, AxesHaveNiceTicksAndSizeLabels) {
  const std::string svg = renderCompareSvg(allreduce());
  // Largest busbw 180: 1.1 x 180 = 198, step 50 -> 0 to 200 in 4 intervals.
  for (const char* tick : {">0</text>", ">50</text>", ">100</text>", ">150</text>", ">200</text>"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">250</text>"), std::string::npos);
  for (const char* size : {">1 MiB</text>", ">4 MiB</text>", ">16 MiB</text>"})
    EXPECT_NE(svg.find(size), std::string::npos) << size;
}

TEST(SweepRenderSvg, ThinsSizeLabelsBeyondTwelve) {
  CompareGroup g;
  g.collective = "allgather";
  g.shape = oneTray();
  Series d = series("default", {});
  for (int k = 3; k <= 32; ++k) {  // 8 B to 4 GiB: 30 powers of two
    d.points.push_back({uint64_t{1} << k, 1.0 * k, 1});
    g.points.push_back(point(uint64_t{1} << k, 1.0 * k, "default", 1.0 * k, "default", 1.0 * k));
  }
  g.series = {d};
  const std::string svg = renderCompareSvg(g);
  const size_t start = svg.find("<g class=\"x-axis\""), end = svg.find("</g>", start);
  const size_t labels = count(svg.substr(start, end - start), "</text>") - 1;  // less the axis title
  EXPECT_GE(labels, 6u);
  EXPECT_LE(labels, 12u);
  EXPECT_NE(svg.find(">8 B</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "<circle class=\"chosen"), 30u);
  expectWellFormed(svg, "many-sizes.svg");
}

TEST(SweepRenderSvg, OneSizeOnly) {
  CompareGroup g;
  g.collective = "broadcast";
  g.shape = oneTray();
  g.series = {series("default", {{4096, 12.5, 1}}), series("ring/simple", {{4096, 14, 1}})};
  g.points = {point(4096, 12.5, "ring/simple", 14, "ring/simple", 14)};
  const std::string svg = renderCompareSvg(g);
  expectWellFormed(svg, "one-size.svg");
  EXPECT_EQ(attributeValues(svg, "<circle class=\"chosen", "cx"), (std::vector<std::string>{"361.0"}));
  EXPECT_NE(svg.find(">4 KiB</text>"), std::string::npos);
}

TEST(SweepRenderSvg, EmptySeriesZeroBusbwAndNoPoints) {
  CompareGroup g;
  g.collective = "reduce";
  g.shape = oneTray();
  g.series = {series("default", {{8, 0, 1}, {16, 0, 1}}), series("ring/ll", {})};
  g.points = {point(8, 0.0, "default", 0.0, "default", 0.0),
              point(16, std::nullopt, "ring/ll", std::nullopt, "", std::nullopt)};
  std::string svg = renderCompareSvg(g);
  expectWellFormed(svg, "zero.svg");
  EXPECT_EQ(count(svg, "<polyline class=\"series\""), 2u);
  EXPECT_NE(svg.find("data-label=\"ring/ll\" points=\"\""), std::string::npos) << svg;
  EXPECT_EQ(count(svg, "<circle class=\"chosen unmeasured\""), 1u) << svg;  // ring/ll at 16 B was not measured
  // Absurd and hostile numbers: still finite coordinates and a few ticks.
  g.series[0].points = {{8, 1e308, 1}, {16, -5, 1}};
  g.points[0].bestBusbw = std::numeric_limits<double>::infinity();
  g.points[1].defaultBusbw = std::numeric_limits<double>::quiet_NaN();
  svg = renderCompareSvg(g);
  expectWellFormed(svg, "absurd.svg");
  EXPECT_LE(count(svg, "<text"), 20u);
  // No series, no points at all.
  CompareGroup empty;
  empty.collective = "allreduce";
  svg = renderCompareSvg(empty);
  expectWellFormed(svg, "empty.svg");
  EXPECT_EQ(count(svg, "<polyline"), 0u);
}

TEST(SweepRenderSvg, HugeAndHostileLabels) {
  CompareGroup g = allreduce();
  const std::string huge = "unusable (NCCL_ALGO=" + std::string(5000, 'R') + "\xC3\xA9" + ")";
  g.series[2].label = huge;
  g.points[2].chosen = huge;
  g.series[1].label = "<script>alert(\"x\" & 'y')</script>";
  g.points[0].chosen = g.series[1].label;
  g.collective = "all\x01reduce\xff";
  const std::string svg = renderCompareSvg(g);
  expectWellFormed(svg, "hostile.svg");
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("data-label=\"&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;\""),
            std::string::npos);
  // The legend shows a short form, the data attribute keeps the whole label, and the mark still finds it.
  EXPECT_NE(svg.find(">unusable (NCCL_ALGO=RRRRR\xE2\x80\xA6</text>"), std::string::npos);
  EXPECT_EQ(attributeValues(svg, "<circle class=\"chosen", "data-label")[2], huge);
  EXPECT_EQ(count(svg, "<circle class=\"chosen unmeasured"), 0u);
}

TEST(SweepRenderSvg, ManySeriesGrowThePicture) {
  CompareGroup g = allreduce();
  for (int i = 0; i < 30; ++i) g.series.push_back(series("ring/simple ch=" + std::to_string(i), {{kMiB, 1.0 * i, 1}}));
  const std::string svg = renderCompareSvg(g);
  expectWellFormed(svg, "many-series.svg");
  EXPECT_EQ(count(svg, "<polyline class=\"series\""), 33u);
  EXPECT_EQ(svg.find("height=\"420\""), std::string::npos) << "33 legend entries do not fit in 420 px";
}

// ---- the HTML page ----

TEST(SweepRenderHtml, SectionsTablesAndPlots) {
  CompareGroup two = allreduce();
  two.collective = "allgather";
  two.shape = Shape{16, 2, 1, 1, 16, {}, {}, {}};
  const std::string html = renderCompareHtml(reportOf({allreduce(), two}));
  expectWellFormed(html, "report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>railtune sweep compare</title>"), std::string::npos);
  EXPECT_NE(html.find("rules.json"), std::string::npos);
  EXPECT_EQ(attributeValues(html, "<section class=\"group\"", "data-collective"),
            (std::vector<std::string>{"allreduce", "allgather"}));
  EXPECT_EQ(attributeValues(html, "<section class=\"group\"", "data-ranks"), (std::vector<std::string>{"8", "16"}));
  EXPECT_NE(html.find("<h2>allgather, 16 ranks, 1 node, 1 NVLink domain of 16</h2>"), std::string::npos) << html;
  EXPECT_EQ(count(html, "<svg "), 2u);
  EXPECT_EQ(count(html, "<table class=\"compare\">"), 2u);
  EXPECT_EQ(count(html, "<polyline class=\"series\""), 6u);
  EXPECT_EQ(count(html, "<circle class=\"chosen"), 6u);
  EXPECT_EQ(attributeValues(html, "<tr class=\"point", "data-size").size(), 6u);
  EXPECT_EQ(attributeValues(html, "<tr class=\"point", "class"),
            (std::vector<std::string>{"point ruled", "point", "point ruled", "point ruled", "point", "point ruled"}));
  EXPECT_NE(html.find("<td class=\"gain num\">+20.0 %</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"gain num loss\">-5.0 %</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<p class=\"summary\">the rules choose at 2 of 3 sizes"), std::string::npos);
}

TEST(SweepRenderHtml, EveryLabelSaysWhichSamplesAGbpsIs) {
  // The page's header cell, its source line and the plot's legend: the median of both halves of every run.
  const std::string html = renderCompareHtml(reportOf({allreduce()}));
  EXPECT_NE(html.find("<th class=\"default-busbw num\">default GB/s (median, in- and out-of-place)</th>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<dt>busbw</dt><dd class=\"busbw\">every GB/s is the median of the runs&#39; out-of-place "
                      "and in-place busbw, pooled</dd>"),
            std::string::npos)
      << html;
  const std::string svg = renderCompareSvg(allreduce());
  expectWellFormed(svg, "plot.svg");
  EXPECT_NE(svg.find(">each point: median busbw over</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">all runs, out-of-place and in-place</text>"), std::string::npos) << svg;
}

TEST(SweepRenderTable, OneChoiceAloneIsNotCalledBest) {
  CompareGroup g = allreduce();
  g.points[1].measuredChoices = 1;  // 4 MiB: the default alone
  g.points[2].measuredChoices = 3;
  const std::string text = renderCompareTable(reportOf({g}));
  EXPECT_EQ(rowOf(text, "4 MiB"),
            (std::vector<std::string>{"4 MiB", "150.0", "default", "150.0", "-", "only default measured", "150.0"}));
  EXPECT_EQ(rowOf(text, "16 MiB").back(), "180.0");
  EXPECT_EQ(rowOf(text, "16 MiB")[5], "default");
}

TEST(SweepRenderHtml, SelfContainedAndEscaped) {
  CompareReport r = reportOf({allreduce()});
  r.groups[0].series[1].label = "<script>alert(1)</script>";
  r.groups[0].points[0].chosen = r.groups[0].series[1].label;
  r.inputs.push_back("<img src=x onerror=alert(1)>.jsonl");
  r.withModel = true;
  r.modelNote = "note & <b>bold</b>";
  const std::string html = renderCompareHtml(r);
  expectWellFormed(html, "escaped.html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("note &amp; &lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  // No URL but the SVG namespace's, nothing fetched, no script.
  std::smatch m;
  std::string rest = html;
  while (std::regex_search(rest, m, std::regex("https?://[^\"' <>]*"))) {
    EXPECT_EQ(m.str(), "http://www.w3.org/2000/svg");
    rest = m.suffix();
  }
  for (const char* needle : {"<link", "@import", "url(", "<script"}) EXPECT_EQ(html.find(needle), std::string::npos);
}

TEST(SweepRenderHtml, NoGroups) {
  CompareReport r;
  const std::string html = renderCompareHtml(r);
  expectWellFormed(html, "empty.html");
  EXPECT_NE(html.find("the dataset&#39;s own winners"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"empty\">"), std::string::npos);
  EXPECT_EQ(count(html, "<section"), 0u);
}

// ---- markup helpers ----

TEST(SweepRenderMarkup, EscapesAndReplacesWhatXmlCannotHold) {
  EXPECT_EQ(render::markup("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(render::markup("caf\xC3\xA9 \xE2\x80\xA6"), "caf\xC3\xA9 \xE2\x80\xA6");  // UTF-8 stays
  EXPECT_EQ(render::markup("x\x01y"), "x\xEF\xBF\xBDy");                              // control character
  EXPECT_EQ(render::markup("\xFF\xC3"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // not UTF-8
  EXPECT_EQ(render::markup("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(render::markup("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(render::markup("tab\tline\n"), "tab\tline\n");
}

TEST(SweepRenderMarkup, ShortensOnCharacterBoundaries) {
  EXPECT_EQ(render::shortened("ring/ll128", 10), "ring/ll128");
  EXPECT_EQ(render::shortened("ring/ll128", 5), "ring\xE2\x80\xA6");
  EXPECT_EQ(render::shortened("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(render::shortened("\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xC3\xA9");
}

}  // namespace
}  // namespace railtune::sweep
