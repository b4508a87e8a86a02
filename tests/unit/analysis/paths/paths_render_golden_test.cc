// The three outputs of the hand-built job (paths_render_test_job.h), detail and racks views, compared
// byte for byte with tests/data/golden/paths_render/. Regenerate after an intended change with
//   RAILTUNE_UPDATE_GOLDEN=1 ctest --test-dir BUILD -R '^unit\.PathsRenderGolden'
// and review the diff (open the .html files in a browser).
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "analysis/paths/path_render.h"
#include "tests/unit/analysis/paths/paths_render_test_job.h"

namespace railtune::analysis::paths {
namespace {

std::string goldenPath(const std::string& name) {
  return std::string(RAILTUNE_PATHS_RENDER_GOLDEN) + "/" + name;
}

void expectGolden(const std::string& name, const std::string& actual) {
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(goldenPath(name), std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << name;
  }
  std::ifstream in(goldenPath(name), std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << goldenPath(name) << " (RAILTUNE_UPDATE_GOLDEN=1 writes it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << goldenPath(name);
}

std::string render(RenderFormat format, int maxHosts) {
  const formats::RailMap map = testjob::railMap();
  const CheckReport report = testjob::report();
  return renderPaths(buildPathGraph(testjob::job(), report, &map), report, RenderOptions{format, maxHosts});
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

TEST(PathsRenderGolden, DetailHtml) {
  expectGolden("fixture.html", render(RenderFormat::Html, 32));
}
TEST(PathsRenderGolden, DetailSvg) {
  expectGolden("fixture.svg", render(RenderFormat::Svg, 32));
}
TEST(PathsRenderGolden, DetailDot) {
  expectGolden("fixture.dot", render(RenderFormat::Dot, 32));
}
TEST(PathsRenderGolden, RacksHtml) {
  expectGolden("fixture-racks.html", render(RenderFormat::Html, 2));
}
TEST(PathsRenderGolden, RacksSvg) {
  expectGolden("fixture-racks.svg", render(RenderFormat::Svg, 2));
}
TEST(PathsRenderGolden, RacksDot) {
  expectGolden("fixture-racks.dot", render(RenderFormat::Dot, 2));
}

// What the goldens must hold whatever their bytes: these fail even right after a careless update.
TEST(PathsRenderContent, DetailDrawsEveryConnectionOnceAndMarksTheViolations) {
  const std::string svg = render(RenderFormat::Svg, 32);
  EXPECT_EQ(count(svg, "class=\"link\""), 2u);
  EXPECT_EQ(count(svg, "class=\"link violation\""), 2u);
  EXPECT_EQ(count(svg, "id=\"legend\""), 1u);
  EXPECT_NE(svg.find("data-conn=\"2\" data-rail=\"1\""), std::string::npos);
  EXPECT_NE(svg.find("VIOLATION: cross-rail"), std::string::npos);
  EXPECT_NE(svg.find("x9<tspan class=\"muted\"> (no path log)"), std::string::npos);
  EXPECT_EQ(svg.find("data-conn=\"1\""), std::string::npos);  // the receive side of a pair is not drawn again
}

// The `d` attribute of the first element that starts with `opening` and names connection `conn`.
std::string pathData(const std::string& svg, const std::string& opening, int conn) {
  for (size_t at = svg.find(opening); at != std::string::npos; at = svg.find(opening, at + 1)) {
    const std::string element = svg.substr(at, svg.find('>', at) - at);
    if (element.find("data-conn=\"" + std::to_string(conn) + "\"") == std::string::npos) continue;
    const size_t d = element.find(" d=\"") + 4;
    return element.substr(d, element.find('"', d) - d);
  }
  return "";
}

// Connection 2: a2 GPU 0, misbound to mlx5_1 (rail 1), sends to b1 GPU 0 on mlx5_0 (rail 0), which is wired
// as the rail map says. A violation is red from end to end, its send side and its receive side alike (an
// operator following the red path from either GPU reaches the other); its details name the misbound end.
// Connection 4, a digest mismatch, is red from end to end too.
TEST(PathsRenderContent, ACrossRailConnectionIsRedFromEndToEnd) {
  const std::string svg = render(RenderFormat::Svg, 32);
  EXPECT_EQ(count(svg, "link-wired-end"), 0u);
  const std::string red = pathData(svg, "<path class=\"link violation\"", 2);
  ASSERT_FALSE(red.empty());
  EXPECT_EQ(std::count(red.begin(), red.end(), 'C'), 2) << "both ends' curves (GPU-NIC-switch) are red: " << red;
  EXPECT_NE(svg.find("(misbound: a2 GPU 0 mlx5_1 (rail 1)"), std::string::npos) << svg;
  const std::string mismatch = pathData(svg, "<path class=\"link violation\"", 4);
  EXPECT_EQ(std::count(mismatch.begin(), mismatch.end(), 'C'), 2) << "a digest mismatch is red whole: " << mismatch;

  const std::string dot = render(RenderFormat::Dot, 32);
  EXPECT_NE(dot.find("  r0h1g0 -- r0h1n1 -- s1 -- spine -- s0 -- r1h0n0 -- r1h0g0 [color=\"#d00000\""),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  r1h0g1 -- r1h0n1 -- s1 -- r0h0n1 [color=\"#d00000\""), std::string::npos) << dot;
}

TEST(PathsRenderContent, RacksViewMarksRacksWithViolations) {
  const std::string svg = render(RenderFormat::Svg, 2);
  EXPECT_EQ(count(svg, "class=\"link\""), 2u);
  EXPECT_EQ(count(svg, "class=\"link violation\""), 3u);
  EXPECT_EQ(count(svg, "class=\"rack-violation\""), 2u);
  EXPECT_NE(svg.find("data-rack=\"rack-a\" data-violations=\"2\""), std::string::npos);
}

TEST(PathsRenderContent, HtmlFetchesNothing) {
  for (const int maxHosts : {32, 2}) {
    const std::string html = render(RenderFormat::Html, maxHosts);
    const std::regex url(R"(https?://[^"' <>]*)");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it)
      EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
    EXPECT_EQ(html.find("src="), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
    EXPECT_EQ(html.find("@import"), std::string::npos);
    // Hosts that logged (b2, named only as a peer, is drawn but not counted), and the check's counts.
    EXPECT_NE(html.find("<title>railtune paths: job fixture: 3 hosts logged, 4 connections, 6 connection ends, 2 "
                        "violations"),
              std::string::npos)
        << html.substr(0, 2000);
  }
}

TEST(PathsRenderContent, SvgIsWellFormedXmlWithOneLinkPerConnection) {
  for (const int maxHosts : {32, 2}) {
    const std::string svg = render(RenderFormat::Svg, maxHosts);
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed = doc.load_buffer(svg.data(), svg.size());
    ASSERT_TRUE(parsed) << parsed.description() << " at offset " << parsed.offset;
    EXPECT_STREQ(doc.document_element().name(), "svg");
    EXPECT_EQ(doc.select_nodes("//path[contains(concat(' ', @class, ' '), ' link ')]").size(),
              maxHosts == 32 ? 4u : 5u);
    EXPECT_EQ(doc.select_nodes("//g[@id='legend']").size(), 1u);
  }
}

TEST(PathsRenderContent, TheFindingsTableIsCapped) {
  CheckReport report = testjob::report();
  report.findings.resize(250, report.findings.back());
  const std::string html = renderHtml(buildPathGraph(testjob::job(), report, nullptr), report);
  EXPECT_EQ(count(html, "<tr class="), 200u);
  EXPECT_NE(html.find("... and 50 more; <code>railtune paths check</code> lists them all."), std::string::npos);
}

TEST(PathsRenderContent, NamesAreEscaped) {
  JobPaths job = testjob::job();
  job.connections[5].remote.host = "x<9>&\"q\"";
  const std::string svg = renderSvg(buildPathGraph(job, testjob::report(), nullptr));
  EXPECT_EQ(svg.find("x<9>"), std::string::npos);
  EXPECT_NE(svg.find("x&lt;9&gt;&amp;&quot;q&quot;"), std::string::npos);
  const std::string dot = renderDot(buildPathGraph(job, testjob::report(), nullptr));
  EXPECT_NE(dot.find("x<9>&\\\"q\\\""), std::string::npos);
}

}  // namespace
}  // namespace railtune::analysis::paths
