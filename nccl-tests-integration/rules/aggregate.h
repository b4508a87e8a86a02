// A dataset gathered for the rules: busbw samples per collective × communicator shape × size × choice. Each
// valid row gives up to two samples (out-of-place and in-place busbw), both of one run: the runs behind the
// samples are counted apart (Samples::runs), so that one run's two halves never pass for two repeats. Rows
// flagged for #wrong, rows whose forcing names no single choice, and rows of unknown shape are counted, never used.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"

namespace railtune::sweep {

// What samples are pooled by: the collective, the communicator's shape and the network setting the rows were
// measured under (net_env.h), so that two settings' measurements never pool.
struct GroupKey {
  std::string collective;
  Shape shape;
  NetEnv netEnv;
  GroupKey() = default;
  GroupKey(std::string c, Shape s, NetEnv e = {})
      : collective(std::move(c)), shape(std::move(s)), netEnv(std::move(e)) {}
  auto operator<=>(const GroupKey&) const = default;
  bool operator==(const GroupKey&) const = default;
};

// Whether a row gives samples, and if not why: the one filter of the rules, the report and the fit
// (fit/points.h). Usable: valid, its forcing names one choice, its shape known, a size and a busbw measured.
enum class RowUse { Usable, Impossible, Wrong, Unusable, NoShape, NoMeasurement };
RowUse rowUse(const DatasetRow& row);

// The samples of one choice at one size, and the distinct runs they came from: a hash of (source, run,
// repeat) each, sorted. A row's out-of-place and in-place busbw are two samples of one run.
struct Samples {
  std::vector<double> busbw;
  std::vector<uint64_t> runs;
  void addRun(uint64_t run);           // keeps runs sorted and distinct
  void addRuns(const Samples& other);  // every run of other
};
// The run a row belongs to: its output file, the run in it and the manifest's repeat.
uint64_t runOf(const DatasetRow& row);

// size -> choice -> samples
using SizeTable = std::map<uint64_t, std::map<Choice, Samples>>;

struct Aggregate {
  std::map<GroupKey, SizeTable> groups;
  // Groups with rows whose NVLink domains were only assumed on trays that may share NVL72 racks, with the warning
  // (dataset/shape_of.h unsureDomainsWarning). The GPU and the fabric are in the key: clusters never pool.
  std::map<GroupKey, std::string> unsureDomains;
  size_t rowsRead = 0, rowsUsed = 0;
  std::map<NetEnv, size_t> rowsOfNetEnv;  // rows used, by the network setting they were measured under
  size_t rowsWrong = 0;                   // a non-zero #wrong
  size_t rowsUnusable = 0;                // forcing that names no single choice
  size_t rowsNoShape = 0;                 // ranks unknown
  size_t rowsNoMeasurement = 0;           // N/A busbw in both halves, or size 0
  size_t rowsImpossible = 0;              // a value outside row_bounds.h (the dataset reader refuses those lines first)

  // Rows of the nccl-tests outputs that never reached the dataset (its railtune.sweep-dataset-source/1 lines).
  size_t rowsBadInOutputs = 0;      // dropped by sweep parse: impossible values, wrong columns, cut short
  size_t rowsSkippedInOutputs = 0;  // runs whose collective was unknown

  void add(const DatasetRow& row);
  void addSource(const DatasetSource& source) {
    rowsBadInOutputs += source.badRows;
    rowsSkippedInOutputs += source.skippedRows;
  }
};

// The median busbw of some samples and their spread: (max - min) / median, the run-to-run noise the rules
// must beat. samples: how many; runs: the distinct runs they came from (one run gives two samples).
struct ChoiceStats {
  double median = 0, spread = 0;
  int samples = 0;
  int runs = 0;
};
ChoiceStats statsOf(const Samples& samples);

}  // namespace railtune::sweep
