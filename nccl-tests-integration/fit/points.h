// Stage 0 of `sweep fit` (issue 30): the datasets streamed into points. A point is one size of one group
// (fit/group_key.h) with, per cell of NCCL's cost table (an algorithm and a protocol, both forced, channels and
// chunk left to NCCL), the median time and busbw of its samples and the number of distinct runs behind them, and
// NCCL default's median busbw beside. Only rows `sweep rules` would use enter (rowUse), and of those only NCCL's
// default and forced cells: NCCL's model does not cover forced channels or chunk sizes, and a forcing of the
// algorithm or the protocol alone is no cell. Every row left out is counted by why.
//
// Memory: while reading, two doubles per measured half (busbw and time) and one hash per distinct run of each
// (group, size, choice); the points keep only medians. A million rows stay in tens of megabytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/nccl_enums.h"
#include "nccl-tests-integration/dataset/net_env.h"
#include "nccl-tests-integration/fit/group_key.h"

namespace railtune::sweep {

// One cell of NCCL's cost table.
struct Cell {
  formats::Algorithm algorithm = formats::Algorithm::Ring;
  formats::Protocol protocol = formats::Protocol::Simple;
  auto operator<=>(const Cell&) const = default;
  bool operator==(const Cell&) const = default;
};
std::string cellLabel(Cell cell);  // "ring/ll128", the rules' spelling
// The cell a forcing names: algorithm and protocol both forced, channels and chunk size not. nullopt otherwise
// (NCCL's default too).
std::optional<Cell> cellOf(const Choice& choice);
// Whether NCCL's model as the emulator reproduces it covers the cell: CollNet is not emulated (never fitted).
bool modelledCell(Cell cell);

struct CellPoint {
  Cell cell;
  double timeUs = 0;  // median over the samples (both halves of each row)
  double busbw = 0;   // GB/s, median
  uint32_t samples = 0, runs = 0;
};

struct SizePoint {
  uint64_t bytes = 0;
  std::vector<CellPoint> cells;        // by cell; may be empty (only NCCL's default measured)
  std::optional<double> defaultBusbw;  // NCCL's own choice, median
  uint32_t defaultRuns = 0;
  const CellPoint* find(Cell cell) const;
};

struct GroupPoints {
  FitGroupKey key;
  std::optional<formats::Collective> collective;  // nullopt: one NCCL's model does not cost (alltoall)
  std::vector<SizePoint> sizes;                   // by bytes
};

// Why rows were left out, beside the rules' own counts (RowUse).
struct PointCounts {
  size_t rowsRead = 0, rowsUsed = 0;
  size_t rowsImpossible = 0, rowsWrong = 0, rowsUnusable = 0, rowsNoShape = 0, rowsNoMeasurement = 0;
  size_t rowsForcedChannelsOrChunk = 0;                   // NCCL's model has no term for them
  size_t rowsPartialChoice = 0;                           // the algorithm or the protocol forced alone
  size_t rowsNotModelled = 0;                             // a CollNet cell
  size_t rowsNoTime = 0;                                  // a cell with a busbw but no time in either half
  size_t rowsBadInOutputs = 0, rowsSkippedInOutputs = 0;  // as the datasets' source lines record them
  size_t rowsOtherNetEnv = 0;  // measured under another network setting than the one fitted (net_env.h)
};
// "N rows used; left out: 3 forced channels or chunk, ..." (only the nonzero reasons), for `sweep fit`'s report.
std::string pointCountsText(const PointCounts& counts);

struct FitPoints {
  std::vector<GroupPoints> groups;  // by key
  PointCounts counts;
  // The groups of each fit key, by key: one fit is made per entry.
  std::map<FitKey, std::vector<size_t>> groupsByFitKey() const;
};

// Which points a refit may use: keep[group][size] of a FitPoints.
struct PointMask {
  std::vector<std::vector<uint8_t>> keep;
  bool keeps(size_t group, size_t size) const { return keep[group][size] != 0; }
  static PointMask all(const FitPoints& points);
  static PointMask none(const FitPoints& points);
};

// Gathers rows into points.
class PointsBuilder {
 public:
  // setting: the network setting whose rows are fitted (none: the rows measured under no `sweep run --env`
  // setting), as `sweep rules` makes algorithm rules from one setting's rows: NCCL's model has no term for them.
  explicit PointsBuilder(NetEnv setting = {}) : setting_(std::move(setting)) {}
  void add(const DatasetRow& row);
  void addSource(const DatasetSource& source);
  FitPoints finish();                                    // the medians; the builder is empty afterwards
  const PointCounts& counts() const { return counts_; }  // so far

 private:
  struct TimedSamples {
    Samples samples;  // busbw and the distinct runs, as the rules keep them
    std::vector<double> timeUs;
  };
  struct SizeSamples {
    TimedSamples ncclDefault;
    std::map<Cell, TimedSamples> cells;
  };
  using Group = std::map<uint64_t, SizeSamples>;
  static void addSamples(const DatasetRow& row, TimedSamples& samples);
  std::map<FitGroupKey, Group> groups_;
  std::pair<const FitGroupKey, Group>* last_ = nullptr;  // the group of the previous row
  PointCounts counts_;
  NetEnv setting_;
};

// The datasets read as `sweep rules` reads them (readDatasetRows: the same warnings and errors) into points.
FitPoints readFitPoints(const std::vector<std::string>& paths, size_t maxWarnings,
                        const std::function<void(std::string_view)>& warn, const NetEnv& setting = {});

}  // namespace railtune::sweep
