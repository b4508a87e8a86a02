// Stage A: measured lines per cell (lines.h).
#include "nccl-tests-integration/fit/lines.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace railtune::sweep {
namespace {

struct Line {
  double alpha = 0, beta = 0;
  bool ok = false;
};

// Weighted least squares of t = α + β·n, centred on the weighted means so that sizes of 2^34 bytes and times
// of a few µs keep their digits.
Line weightedLine(const std::vector<double>& n, const std::vector<double>& t, const std::vector<double>& w) {
  double sw = 0, sn = 0, st = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    sw += w[i];
    sn += w[i] * n[i];
    st += w[i] * t[i];
  }
  if (!(sw > 0)) return {};
  const double nMean = sn / sw, tMean = st / sw;
  double snn = 0, snt = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const double d = n[i] - nMean;
    snn += w[i] * d * d;
    snt += w[i] * d * (t[i] - tMean);
  }
  if (!(snn > 0)) return {};
  Line line{0, snt / snn, true};
  line.alpha = tMean - line.beta * nMean;
  return line;
}

// The residuals' robust scale: the median absolute residual over 0.6745 (σ for normal errors), floored.
double robustScale(std::vector<double> absResiduals, double floor) {
  const auto mid = absResiduals.begin() + static_cast<std::ptrdiff_t>(absResiduals.size() / 2);
  std::nth_element(absResiduals.begin(), mid, absResiduals.end());
  return std::max(*mid / 0.6745, floor);
}

// Huber's weights for the line's relative residuals.
void huberWeights(const Line& line, const std::vector<double>& n, const std::vector<double>& t,
                  const LineOptions& options, std::vector<double>& huber) {
  std::vector<double> r(n.size());
  for (size_t i = 0; i < n.size(); ++i) r[i] = std::fabs((line.alpha + line.beta * n[i] - t[i]) / t[i]);
  const double c = options.huberK * robustScale(r, options.minScale);
  for (size_t i = 0; i < n.size(); ++i) huber[i] = r[i] <= c ? 1 : c / r[i];
}

}  // namespace

double LineFit::algBwGBps() const {
  return usPerByte > 0 ? 1 / (1000 * usPerByte) : 0;
}

LineFit fitLine(std::span<const double> bytes, std::span<const double> timeUs, const LineOptions& options) {
  std::vector<double> n, t;
  for (size_t i = 0; i < bytes.size() && i < timeUs.size(); ++i)
    if (timeUs[i] > 0 && std::isfinite(timeUs[i]) && std::isfinite(bytes[i])) {
      n.push_back(bytes[i]);
      t.push_back(timeUs[i]);
    }
  LineFit fit;
  fit.points = n.size();
  std::vector<double> relative(n.size()), huber(n.size(), 1), w(n.size());
  for (size_t i = 0; i < n.size(); ++i) relative[i] = 1 / (t[i] * t[i]);
  Line line = weightedLine(n, t, relative);
  if (!line.ok) return fit;  // fewer than two distinct sizes
  for (int pass = 0; pass < options.huberPasses; ++pass) {
    huberWeights(line, n, t, options, huber);
    for (size_t i = 0; i < n.size(); ++i) w[i] = relative[i] * huber[i];
    const Line next = weightedLine(n, t, w);
    if (!next.ok) break;
    line = next;
  }
  fit.fitted = true;
  fit.latencyUs = line.alpha;
  fit.usPerByte = line.beta;
  for (size_t i = 0; i < n.size(); ++i)
    fit.maxRelResidual = std::max(fit.maxRelResidual, std::fabs((fit.timeUs(n[i]) - t[i]) / t[i]));
  fit.poor = fit.maxRelResidual > options.poorResidual;
  return fit;
}

std::vector<CellLine> fitCellLines(const FitPoints& points, const PointMask* mask, const LineOptions& options) {
  std::vector<CellLine> out;
  for (size_t g = 0; g < points.groups.size(); ++g) {
    std::map<Cell, std::pair<std::vector<double>, std::vector<double>>> byCell;  // bytes, time
    const std::vector<SizePoint>& sizes = points.groups[g].sizes;
    for (size_t s = 0; s < sizes.size(); ++s) {
      if (mask != nullptr && !mask->keeps(g, s)) continue;
      for (const CellPoint& p : sizes[s].cells) {
        auto& [bytes, times] = byCell[p.cell];
        bytes.push_back(static_cast<double>(sizes[s].bytes));
        times.push_back(p.timeUs);
      }
    }
    for (const auto& [cell, data] : byCell) {
      const LineFit line = fitLine(data.first, data.second, options);
      if (line.fitted) out.push_back({g, cell, line});
    }
  }
  return out;
}

}  // namespace railtune::sweep
