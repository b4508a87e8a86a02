// The columns, cells and summaries both renderers of `railtune sweep compare` print (render_cells.h).
#include "nccl-tests-integration/compare/render_cells.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "nccl-tests-integration/rules/derive.h"

namespace railtune::sweep::render {
namespace {

std::string sizes(size_t n) {
  return std::to_string(n) + (n == 1 ? " size" : " sizes");
}

std::string orDash(const std::string& label) {
  return label.empty() ? "-" : label;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Where the rules choose, how often they beat the default, and the mean gain over the ruled sizes.
std::string gainSummary(const CompareGroup& group) {
  const size_t total = group.points.size();
  if (total == 0) return "no size measured";
  size_t ruledSizes = 0, beats = 0, withGain = 0;
  double sum = 0;
  bool tuned = false;
  for (const ComparePoint& p : group.points) {
    tuned = tuned || p.tunedBusbw.has_value();
    if (!ruled(p)) continue;
    ++ruledSizes;
    if (const std::optional<double> gain = p.gain()) {
      ++withGain;
      sum += *gain;
      if (*gain > 0) ++beats;
    }
  }
  if (ruledSizes == 0) return "no rule at any of the " + sizes(total) + ": NCCL decides at each";
  std::string out = "the rules choose at " + std::to_string(ruledSizes) + " of " + sizes(total) +
                    " and beat NCCL default at " + std::to_string(beats);
  if (withGain == 0) return out + "; no gain known at the ruled sizes (no default measured there)";
  out += "; mean gain " + gainText(sum / static_cast<double>(withGain)) + " over ";
  out += withGain == ruledSizes ? "the " + sizes(ruledSizes) + " ruled"
                                : std::to_string(withGain) + " of the " + sizes(ruledSizes) + " ruled";
  // The gain is what a run with the rules loaded measured when there was one, else the sweep's expectation.
  return out + (tuned ? " (measured with the rules loaded)" : " (expected from the sweep)");
}

// The cost model's regret beside NCCL default's, over the sizes where both were measured.
std::string regretSummary(const CompareGroup& group) {
  size_t both = 0, unmeasuredPicks = 0, alone = 0;
  double modelSum = 0, modelMax = 0, defaultSum = 0, defaultMax = 0;
  for (const ComparePoint& p : group.points) {
    if (p.measuredChoices == 1) {
      ++alone;  // nothing ranked there: neither regret has a value
      continue;
    }
    if (!p.modelPick.empty() && !p.modelRegret) ++unmeasuredPicks;
    if (!p.modelRegret || !p.defaultRegret) continue;
    ++both;
    modelSum += *p.modelRegret;
    modelMax = std::max(modelMax, *p.modelRegret);
    defaultSum += *p.defaultRegret;
    defaultMax = std::max(defaultMax, *p.defaultRegret);
  }
  std::string out;
  if (both == 0) {
    out = "model regret: no size where both the model's pick and NCCL's default were measured";
  } else {
    const double n = static_cast<double>(both);
    out = "model regret mean " + regretText(modelSum / n) + " (max " + regretText(modelMax) + ") vs NCCL default " +
          regretText(defaultSum / n) + " (max " + regretText(defaultMax) + ") over " + sizes(both);
  }
  if (unmeasuredPicks > 0) out += "; the model's pick was not measured at " + sizes(unmeasuredPicks);
  if (alone > 0) out += "; one choice alone was measured at " + sizes(alone) + ", nothing to rank there";
  return out;
}

std::string sizeCell(const ComparePoint& p) {
  return sizeText(p.size);
}
std::string defaultCell(const ComparePoint& p) {
  return busbwText(p.defaultBusbw);
}
std::string chosenCell(const ComparePoint& p) {
  return orDash(p.chosen);
}
std::string chosenBusbwCell(const ComparePoint& p) {
  return busbwText(p.chosenBusbw);
}
std::string tunedCell(const ComparePoint& p) {
  return busbwText(p.tunedBusbw);
}
std::string gainCell(const ComparePoint& p) {
  return gainText(p.gain());
}
// A choice is best only beside another: "only default measured" where it alone was.
std::string bestCell(const ComparePoint& p) {
  return p.measuredChoices == 1 && !p.best.empty() ? "only " + p.best + " measured" : orDash(p.best);
}
std::string bestBusbwCell(const ComparePoint& p) {
  return busbwText(p.bestBusbw);
}
std::string modelPickCell(const ComparePoint& p) {
  return orDash(p.modelPick);
}
std::string modelRegretCell(const ComparePoint& p) {
  return regretText(p.modelRegret);
}
std::string defaultRegretCell(const ComparePoint& p) {
  return regretText(p.defaultRegret);
}

}  // namespace

std::string busbwText(const std::optional<double>& gbps) {
  if (!gbps) return "-";
  return fixedText(*gbps, 1);
}

std::string gainText(const std::optional<double>& fraction) {
  if (!fraction || !std::isfinite(*fraction)) return "-";
  // Rounds to one decimal first, so that a gain of -0.04 % reads "+0.0 %", not "-0.0 %".
  const double percent = std::round(*fraction * 1000) / 10;
  return fixedText(percent == 0 ? 0.0 : percent, 1, true) + " %";
}

std::string regretText(const std::optional<double>& fraction) {
  if (!fraction || !std::isfinite(*fraction)) return "-";
  return fixedText(*fraction * 100, 1) + " %";
}

std::vector<Column> compareColumns(const CompareGroup& group, bool withModel) {
  std::vector<Column> columns = {
      {"size", "size", true, sizeCell},
      {kDefaultBusbwHeader, "default-busbw", true, defaultCell},
      {"chosen", "chosen", false, chosenCell},
      {"chosen GB/s", "chosen-busbw", true, chosenBusbwCell},
  };
  const bool tuned = std::any_of(group.points.begin(), group.points.end(),
                                 [](const ComparePoint& p) { return p.tunedBusbw.has_value(); });
  if (tuned) columns.push_back({"tuned GB/s", "tuned-busbw", true, tunedCell});
  columns.push_back({"gain", "gain", true, gainCell});
  columns.push_back({"best", "best", false, bestCell});
  columns.push_back({"best GB/s", "best-busbw", true, bestBusbwCell});
  if (withModel) {
    columns.push_back({"model pick", "model-pick", false, modelPickCell});
    columns.push_back({"model regret", "model-regret", true, modelRegretCell});
    columns.push_back({"default regret", "default-regret", true, defaultRegretCell});
  }
  return columns;
}

std::string groupTitle(const CompareGroup& group) {
  const std::string title = group.collective + ", " + group.shape.label();
  return group.netEnv.empty() ? title : title + ", under " + netEnvLabel(group.netEnv);
}

bool ruled(const ComparePoint& point) {
  return !point.chosen.empty() && point.chosen != "default";
}

std::vector<std::string> summaryLines(const CompareGroup& group, bool withModel) {
  std::vector<std::string> lines = {gainSummary(group)};
  if (withModel) lines.push_back(regretSummary(group));
  return lines;
}

std::vector<SourceLine> sourceLines(const CompareReport& report) {
  std::vector<SourceLine> lines;
  lines.push_back({"inputs", report.inputs.empty() ? "-" : joined(report.inputs)});
  lines.push_back({"choices", report.rulesSource.empty() ? "the dataset's own winners" : report.rulesSource});
  lines.push_back({"busbw", kBusbwMeaning});
  if (report.withModel) lines.push_back({"model", report.modelNote.empty() ? "-" : report.modelNote});
  return lines;
}

}  // namespace railtune::sweep::render
