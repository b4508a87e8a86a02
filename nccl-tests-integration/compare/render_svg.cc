// The plot of one group of `railtune sweep compare` (report.h, renderCompareSvg): busbw against log2 of the
// size, one polyline per series (NCCL's default dark and thick, the tuned run dashed, every forced choice
// in its own colour), the rules' choice at each size ringed on the series it names, and the legend to the
// right. Standalone XML; render_html.cc embeds the same element. Presentation attributes rather than a
// style sheet, so that several plots on one page share nothing and the file looks the same on its own.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nccl-tests-integration/compare/render_cells.h"
#include "nccl-tests-integration/compare/render_markup.h"
#include "nccl-tests-integration/compare/report.h"
#include "nccl-tests-integration/rules/derive.h"

namespace railtune::sweep {
namespace {

using render::attr;
using render::markup;
using render::px;

constexpr int kWidth = 900;
constexpr int kMinHeight = 420;
constexpr double kPlotLeft = 72, kPlotRight = 650, kPlotTop = 44, kBottomMargin = 52;
constexpr double kInset = 14;  // keeps the first and last size off the axes
constexpr double kLegendX = 672, kLegendRow = 18;
constexpr size_t kMaxSizeTicks = 12;
constexpr size_t kLegendChars = 26, kHeadingChars = 110;

constexpr const char* kDefaultColour = "#1a1a1a";
constexpr const char* kTunedColour = "#d62728";
constexpr const char* kGridColour = "#e3e3e3";
constexpr const char* kAxisColour = "#6e6e6e";
// Forced choices, in series order; chosen to stay apart from the default's black and the tuned run's red.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                                    "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#ad494a"};
constexpr size_t kPaletteSize = sizeof kPalette / sizeof kPalette[0];

struct Stroke {
  const char* colour;
  double width;
  const char* dash;  // "" for a solid line
};

// The default first, the tuned run dashed red, the other series round the palette (dotted on the second
// round, so that two series never look the same).
std::vector<Stroke> strokesOf(const std::vector<Series>& series) {
  std::vector<Stroke> out;
  size_t forced = 0;
  for (const Series& s : series) {
    if (s.isDefault) {
      out.push_back({kDefaultColour, 3, ""});
    } else if (s.isTuned) {
      out.push_back({kTunedColour, 2.5, "7 4"});
    } else {
      const size_t round = forced / kPaletteSize;
      out.push_back({kPalette[forced % kPaletteSize], 1.8, round == 0 ? "" : round == 1 ? "2 3" : "8 3 2 3"});
      ++forced;
    }
  }
  return out;
}

std::string strokeAttributes(const Stroke& stroke) {
  std::string out = attr("stroke", stroke.colour) + attr("stroke-width", px(stroke.width));
  if (*stroke.dash != '\0') out += attr("stroke-dasharray", stroke.dash);
  return out;
}

// What a busbw plots as: nothing negative or not finite, and nothing so large that the axis overflows.
double finiteOrZero(double v) {
  return std::isfinite(v) && v > 0 ? std::min(v, 1e15) : 0;
}

// A step of 1, 2, 2.5 or 5 times a power of ten that cuts [0, top] into at most five intervals.
double niceStep(double top) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(top / 5)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (std::ceil(top / (m * magnitude) - 1e-9) <= 5) return m * magnitude;
  }
  return 10 * magnitude;
}

// Decimals enough to print every multiple of step exactly (0 for 20, 1 for 2.5, 2 for 0.05).
int decimalsOf(double step) {
  for (int d = 0; d < 6; ++d) {
    const double scaled = step * std::pow(10.0, d);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6 * scaled) return d;
  }
  return 6;
}

// The y axis: busbw from 0 to a nice value above 1.1 times the largest one.
struct YAxis {
  double top = 1, step = 0.2;
  int decimals = 1;
};

YAxis yAxisOf(const CompareGroup& group) {
  double largest = 0;
  for (const Series& s : group.series)
    for (const SeriesPoint& p : s.points) largest = std::max(largest, finiteOrZero(p.busbw));
  for (const ComparePoint& p : group.points)
    for (const auto& v : {p.defaultBusbw, p.chosenBusbw, p.tunedBusbw, p.bestBusbw})
      if (v) largest = std::max(largest, finiteOrZero(*v));
  YAxis axis;
  if (largest <= 0) return axis;  // nothing measured above zero: 0 to 1 GB/s
  axis.step = niceStep(largest * 1.1);
  axis.top = std::ceil(largest * 1.1 / axis.step - 1e-9) * axis.step;
  axis.decimals = decimalsOf(axis.step);
  return axis;
}

// The x axis: log2 of the sizes every series and the table hold.
struct XAxis {
  std::set<uint64_t> sizes;
  double low = 0, span = 0;  // log2 of the smallest size, and the distance to the largest
};

double log2Of(uint64_t size) {
  return std::log2(static_cast<double>(std::max<uint64_t>(size, 1)));
}

XAxis xAxisOf(const CompareGroup& group) {
  XAxis axis;
  for (const Series& s : group.series)
    for (const SeriesPoint& p : s.points) axis.sizes.insert(p.size);
  for (const ComparePoint& p : group.points) axis.sizes.insert(p.size);
  if (!axis.sizes.empty()) {
    axis.low = log2Of(*axis.sizes.begin());
    axis.span = log2Of(*axis.sizes.rbegin()) - axis.low;
  }
  return axis;
}

// The sizes that get a label: the powers of two among them (every size when none is one), thinned to at
// most kMaxSizeTicks by keeping every k-th.
std::vector<uint64_t> sizeTicks(const std::set<uint64_t>& sizes) {
  std::vector<uint64_t> candidates;
  for (const uint64_t s : sizes)
    if (s != 0 && (s & (s - 1)) == 0) candidates.push_back(s);
  if (candidates.empty()) candidates.assign(sizes.begin(), sizes.end());
  const size_t every = (candidates.size() + kMaxSizeTicks - 1) / kMaxSizeTicks;
  std::vector<uint64_t> out;
  for (size_t i = 0; i < candidates.size(); i += std::max<size_t>(every, 1)) out.push_back(candidates[i]);
  return out;
}

class Plot {
 public:
  explicit Plot(const CompareGroup& group)
      : group_(group), x_(xAxisOf(group)), y_(yAxisOf(group)), strokes_(strokesOf(group.series)) {
    // Many series: the legend grows downwards and the picture with it.
    const double legendBottom =
        kPlotTop + kLegendRow * static_cast<double>(group.series.size() + 2 + std::size(render::kBusbwLegend)) + 24;
    height_ = std::max(kMinHeight, static_cast<int>(std::ceil(legendBottom)));
    bottom_ = height_ - kBottomMargin;
  }

  std::string render() const {
    const std::string title = render::groupTitle(group_);
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"compare-plot\"" +
                      attr("width", std::to_string(kWidth)) + attr("height", std::to_string(height_)) +
                      attr("viewBox", "0 0 " + std::to_string(kWidth) + " " + std::to_string(height_)) +
                      attr("font-family", "sans-serif") + attr("role", "img") +
                      attr("aria-label", title + ": busbw against message size") + ">\n";
    out += "<title>" + markup(title + ": busbw against message size") + "</title>\n";
    out += "<rect x=\"0\" y=\"0\"" + attr("width", std::to_string(kWidth)) + attr("height", std::to_string(height_)) +
           " fill=\"#ffffff\"/>\n";
    out += "<text class=\"heading\"" + attr("x", px(kPlotLeft)) + " y=\"24\" font-size=\"14\" font-weight=\"bold\"" +
           attr("fill", kDefaultColour) + ">" + markup(render::shortened(title, kHeadingChars)) + "</text>\n";
    out += yAxis() + xAxis() + series() + chosen() + legend();
    out += "</svg>\n";
    return out;
  }

 private:
  double xOf(uint64_t size) const {
    if (x_.span <= 0) return (kPlotLeft + kPlotRight) / 2;  // one size: in the middle
    return kPlotLeft + kInset + (log2Of(size) - x_.low) / x_.span * (kPlotRight - kPlotLeft - 2 * kInset);
  }

  double yOf(double busbw) const { return bottom_ - finiteOrZero(busbw) / y_.top * (bottom_ - kPlotTop); }

  std::string yAxis() const {
    std::string out = "<g class=\"y-axis\" font-size=\"11\"" + attr("fill", kAxisColour) + ">\n";
    const int ticks = static_cast<int>(std::lround(y_.top / y_.step));
    for (int i = 0; i <= ticks; ++i) {
      const double value = i * y_.step;
      const std::string y = px(yOf(value));
      out += "<line" + attr("x1", px(kPlotLeft)) + attr("x2", px(kPlotRight)) + attr("y1", y) + attr("y2", y) +
             attr("stroke", i == 0 ? kAxisColour : kGridColour) + " stroke-width=\"1\"/>\n";
      const std::string label = fixedText(value, y_.decimals);
      out += "<text" + attr("x", px(kPlotLeft - 6)) + attr("y", px(yOf(value) + 4)) + " text-anchor=\"end\">" + label +
             "</text>\n";
    }
    const std::string middle = px((kPlotTop + bottom_) / 2);
    out += "<text" + attr("x", "18") + attr("y", middle) + attr("transform", "rotate(-90 18 " + middle + ")") +
           " text-anchor=\"middle\" font-size=\"12\">busbw (GB/s)</text>\n";
    return out + "</g>\n";
  }

  std::string xAxis() const {
    std::string out = "<g class=\"x-axis\" font-size=\"11\"" + attr("fill", kAxisColour) + ">\n";
    out += "<line" + attr("x1", px(kPlotLeft)) + attr("x2", px(kPlotLeft)) + attr("y1", px(kPlotTop)) +
           attr("y2", px(bottom_)) + attr("stroke", kAxisColour) + " stroke-width=\"1\"/>\n";
    for (const uint64_t size : sizeTicks(x_.sizes)) {
      const std::string x = px(xOf(size));
      out += "<line" + attr("x1", x) + attr("x2", x) + attr("y1", px(bottom_)) + attr("y2", px(bottom_ + 5)) +
             attr("stroke", kAxisColour) + " stroke-width=\"1\"/>\n";
      out += "<text" + attr("x", x) + attr("y", px(bottom_ + 18)) + " text-anchor=\"middle\">" +
             markup(sizeText(size)) + "</text>\n";
    }
    out += "<text" + attr("x", px((kPlotLeft + kPlotRight) / 2)) + attr("y", px(bottom_ + 40)) +
           " text-anchor=\"middle\" font-size=\"12\">message size (log scale)</text>\n";
    return out + "</g>\n";
  }

  // One polyline per series, even an empty one, and a small dot at each measured size, so that a series of
  // one size still shows.
  std::string series() const {
    std::string out = "<g class=\"series-lines\" fill=\"none\" stroke-linejoin=\"round\">\n";
    for (size_t i = 0; i < group_.series.size(); ++i) {
      const Series& s = group_.series[i];
      std::string points;
      for (const SeriesPoint& p : s.points)
        points += (points.empty() ? "" : " ") + px(xOf(p.size)) + "," + px(yOf(p.busbw));
      out += "<polyline class=\"series\"" + attr("data-label", s.label) + attr("points", points) +
             strokeAttributes(strokes_[i]) + "><title>" + markup(s.label) + "</title></polyline>\n";
      for (const SeriesPoint& p : s.points)
        out += "<circle class=\"dot\"" + attr("cx", px(xOf(p.size))) + attr("cy", px(yOf(p.busbw))) + " r=\"2.5\"" +
               attr("fill", strokes_[i].colour) + "/>\n";
    }
    return out + "</g>\n";
  }

  // The series a point's choice names: the default's where NCCL decides, else the forced choice's.
  const Series* seriesOf(const ComparePoint& point, size_t* index) const {
    for (size_t i = 0; i < group_.series.size(); ++i) {
      const Series& s = group_.series[i];
      const bool match = render::ruled(point) ? (!s.isTuned && s.label == point.chosen) : s.isDefault;
      if (match) {
        *index = i;
        return &s;
      }
    }
    return nullptr;
  }

  // A ring on the chosen series at every size of the table; where that choice was not measured at the size,
  // a dashed ring on the axis says so.
  std::string chosen() const {
    std::string out = "<g class=\"chosen-marks\" fill=\"none\" stroke-width=\"2\">\n";
    for (const ComparePoint& point : group_.points) {
      size_t index = 0;
      const Series* s = seriesOf(point, &index);
      std::optional<double> busbw;
      if (s != nullptr)
        for (const SeriesPoint& p : s->points)
          if (p.size == point.size) busbw = p.busbw;
      if (!busbw) busbw = render::ruled(point) ? point.chosenBusbw : point.defaultBusbw;
      const char* colour = s != nullptr ? strokes_[index].colour : kDefaultColour;
      const std::string label = point.chosen.empty() ? "default" : point.chosen;
      out += std::string("<circle class=\"chosen") + (busbw ? "" : " unmeasured") + "\"" +
             attr("data-size", std::to_string(point.size)) + attr("data-label", label) +
             attr("cx", px(xOf(point.size))) + attr("cy", px(yOf(busbw.value_or(0)))) + " r=\"6\"" +
             attr("stroke", colour) + (busbw ? "" : " stroke-dasharray=\"2 2\"") + "><title>" +
             markup(sizeText(point.size) + ": " + label + ", " + render::busbwText(busbw) + " GB/s") +
             "</title></circle>\n";
    }
    return out + "</g>\n";
  }

  std::string legend() const {
    std::string out = "<g class=\"legend\" font-size=\"12\"" + attr("fill", kDefaultColour) + ">\n";
    double y = kPlotTop;
    for (size_t i = 0; i < group_.series.size(); ++i, y += kLegendRow) {
      const Series& s = group_.series[i];
      out += "<g class=\"entry\"" + attr("data-label", s.label) + "><title>" + markup(s.label) + "</title><line" +
             attr("x1", px(kLegendX)) + attr("x2", px(kLegendX + 26)) + attr("y1", px(y)) + attr("y2", px(y)) +
             strokeAttributes(strokes_[i]) + "/><text" + attr("x", px(kLegendX + 34)) + attr("y", px(y + 4)) + ">" +
             markup(render::shortened(s.label, kLegendChars)) + "</text></g>\n";
    }
    out += "</g>\n";
    // What the rings mean, under the legend and apart from its entries.
    y += kLegendRow / 2;
    out += "<g class=\"key\" font-size=\"12\"" + attr("fill", kDefaultColour) + "><circle" +
           attr("cx", px(kLegendX + 13)) + attr("cy", px(y)) + " r=\"6\" fill=\"none\" stroke-width=\"2\"" +
           attr("stroke", kDefaultColour) + "/><text" + attr("x", px(kLegendX + 34)) + attr("y", px(y + 4)) +
           ">chosen at that size</text></g>\n";
    // Which samples a point is: NCCL's default and every choice alike (render_cells.h).
    out += "<g class=\"samples\" font-size=\"11\"" + attr("fill", kAxisColour) + ">";
    for (const char* line : render::kBusbwLegend) {
      y += kLegendRow;
      out += "<text" + attr("x", px(kLegendX)) + attr("y", px(y + 4)) + ">" + markup(line) + "</text>";
    }
    return out + "</g>\n";
  }

  const CompareGroup& group_;
  XAxis x_;
  YAxis y_;
  std::vector<Stroke> strokes_;
  int height_ = kMinHeight;
  double bottom_ = kMinHeight - kBottomMargin;
};

}  // namespace

std::string renderCompareSvg(const CompareGroup& group) {
  return Plot(group).render();
}

}  // namespace railtune::sweep
