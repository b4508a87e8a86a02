// What the text table and the HTML page of `railtune sweep compare` share (render_cells.cc): the columns
// with the text of each cell, the group's title, the summary under each group and the lines naming the
// report's sources, so that the terminal and the browser show the same numbers in the same words.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nccl-tests-integration/compare/report.h"

namespace railtune::sweep::render {

// One column of the comparison table.
struct Column {
  const char* header;  // "chosen GB/s"
  const char* name;    // "chosen-busbw": the HTML cell's class
  bool numeric;        // right-aligned
  std::string (*cell)(const ComparePoint&);
};

// size, default GB/s, chosen, chosen GB/s, [tuned GB/s when any point has one], gain, best, best GB/s,
// [model pick, model regret, default regret with the model].
std::vector<Column> compareColumns(const CompareGroup& group, bool withModel);

// "4 MiB"; "187.3"; "+20.0 %"; "12.3 %"; each "-" without a value.
std::string busbwText(const std::optional<double>& gbps);
std::string gainText(const std::optional<double>& fraction);
std::string regretText(const std::optional<double>& fraction);

// "allreduce, 8 ranks, 1 node, 1 NVLink domain of 8"
std::string groupTitle(const CompareGroup& group);

// A rule's choice stands at this size (NCCL decides where the choice is "default").
bool ruled(const ComparePoint& point);

// Under each group: where the rules choose and what they gain; with the model, its regret beside NCCL
// default's. One line each.
std::vector<std::string> summaryLines(const CompareGroup& group, bool withModel);

// The label, name and text of each line above the groups: inputs, where the choices come from, the model.
struct SourceLine {
  const char* name;  // "inputs", "choices", "busbw", "model"
  std::string text;
};
std::vector<SourceLine> sourceLines(const CompareReport& report);

// Which samples a GB/s figure is (rules/aggregate.cc): every valid row gives two, its out-of-place and in-place
// busbw, and each figure is the median of them all. Said in the default's column header, the source lines and
// the plot's legend.
inline constexpr const char* kDefaultBusbwHeader = "default GB/s (median, in- and out-of-place)";
inline constexpr const char* kBusbwMeaning =
    "every GB/s is the median of the runs' out-of-place and in-place busbw, pooled";
inline constexpr const char* kBusbwLegend[] = {"each point: median busbw over", "all runs, out-of-place and in-place"};

// What a report without groups says.
inline constexpr const char* kNothingToCompare = "no valid measurement in the dataset: nothing to compare";

}  // namespace railtune::sweep::render
