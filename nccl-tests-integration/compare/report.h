// What `railtune sweep compare` shows: for each collective and communicator shape of a dataset, every
// choice's busbw against size (the median of its valid samples), NCCL's default, the choice the rules make
// at each size, and how that choice did: expected gain from the dataset, or the measured gain of a second
// run made with the rules loaded ("tuned"), and with --model the cost model's regret beside NCCL default's.
// compare/report.cc builds it; render_table.cc and render_html.cc print it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/rules/derive.h"

namespace railtune::sweep {

struct SeriesPoint {
  uint64_t size = 0;
  double busbw = 0;  // GB/s, median of the samples
  int samples = 0;
};

// One line of the plot: one choice's busbw against size.
struct Series {
  std::string label;  // Choice::label(): "default", "ring/ll128", "tuned" for the run made with the rules
  bool isDefault = false;
  bool isTuned = false;
  std::vector<SeriesPoint> points;  // by size
};

// One size of the table.
struct ComparePoint {
  uint64_t size = 0;
  std::optional<double> defaultBusbw;  // NCCL's default, measured
  std::string chosen;                  // the label of the choice the rules make here ("default" where NCCL decides)
  std::optional<double> chosenBusbw;   // the chosen choice's measured busbw in the sweep
  std::optional<double> tunedBusbw;    // measured with the rules loaded (a "tuned" dataset), when given
  std::string best;                    // the label of the best measured choice at this size
  std::optional<double> bestBusbw;
  // The choices measured at this size, NCCL's default among them. With one alone, nothing was ranked: the best
  // column says "only default measured", and neither regret has a value.
  int measuredChoices = 0;
  // With --model: the cost model's pick at this size and its regret (best busbw / pick busbw - 1), and NCCL
  // default's regret beside it. No value where the pick was not measured.
  std::string modelPick;
  std::optional<double> modelRegret, defaultRegret;
  // gain = (tuned or chosen) / default - 1
  std::optional<double> gain() const;
};

struct CompareGroup {
  std::string collective;  // "allreduce"
  Shape shape;
  NetEnv netEnv;                     // the network setting of its rows (sweep run --env); empty: none
  std::vector<Series> series;        // default first, tuned (when given) second, then by label
  std::vector<ComparePoint> points;  // by size
};

struct CompareReport {
  std::vector<std::string> inputs;  // the dataset files, the rules file
  std::string rulesSource;          // "" when the choices are the dataset's own winners (sweep rules' logic)
  bool withModel = false;
  std::string
      modelNote;  // what scored the model ("cost model of the railtune tuner, advise mode, profile gb300-nvl72")
  std::vector<CompareGroup> groups;
};

// Which choice something makes at a size of a group: the rules (the CLI asks the tuner's rules library), or
// the cost model. nullopt: it leaves the size to NCCL (the default).
using Chooser = std::function<std::optional<Choice>(const GroupKey& group, uint64_t size)>;

struct CompareRequest {
  const Aggregate* sweep = nullptr;  // the sweep's samples
  const Aggregate* tuned = nullptr;  // a run made with the rules loaded (its rows are the "tuned" series), or null
  Chooser rules;                     // empty: the dataset's own winners (deriveRules with options)
  RulesOptions options;
  Chooser model;  // empty: no model columns
};

CompareReport buildCompareReport(const CompareRequest& request);

// "size  default  chosen  chosen GB/s  tuned GB/s  gain  [model pick  model regret  default regret]" per group.
std::string renderCompareTable(const CompareReport& report);
// One self-contained HTML page: per group an inline SVG plot (busbw against log2 size, one polyline per
// series, the chosen choice's point at each size marked) and the table. No script, no external resource.
std::string renderCompareHtml(const CompareReport& report);
// The SVG of one group alone (`-o REPORT.svg` with a single group).
std::string renderCompareSvg(const CompareGroup& group);

// What `sweep compare -o` names: an HTML page (.html, .htm), one group's SVG (.svg) or the table (.txt, .md).
// Throws std::invalid_argument naming -o for another extension.
enum class CompareFile { Html, Svg, Text };
CompareFile compareFileOf(const std::string& path);
// The file's bytes. Throws std::invalid_argument naming -o for an SVG of other than one group.
std::string renderCompareFile(const CompareReport& report, CompareFile kind, const std::string& path);

}  // namespace railtune::sweep
