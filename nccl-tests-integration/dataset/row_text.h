// The dataset lines of one nccl-tests output, written as its rows are read. For a long output a second thread
// (a one-worker common/work_pool.h, so batches are written in order) writes the JSON while the reading thread
// parses the text (the two cost about the same per row), so a 500 MB output takes about the time of the slower
// half; a short one is written on the reading thread, with no thread started for it. A flush that throws on the
// writing thread stops it, and finish() throws that error.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/work_pool.h"
#include "nccl-tests-integration/dataset/dataset.h"

namespace railtune::sweep {

class RowText {
 public:
  // flush: the next piece of the dataset, in order (at least pieceBytes, except the last); called on the reading
  // thread before the writing thread starts, on the writing thread after.
  RowText(size_t pieceBytes, std::function<void(std::string&)> flush);
  ~RowText();
  RowText(const RowText&) = delete;
  RowText& operator=(const RowText&) = delete;
  void add(const DatasetRow& row, const DatasetLineParts& parts);
  void finish();  // every line handed to flush; the writing thread joined (its first error rethrown)

  // Rows written on the reading thread before the second one starts.
  static constexpr size_t kRowsBeforeThread = 65536;

 private:
  // What differs between the rows of a run, and the run's parts.
  struct RowValues {
    int line = 0, root = -1;
    uint64_t size = 0, count = 0;
    std::string type, redop;
    Measurement outOfPlace, inPlace;
    bool valid = true;
    std::shared_ptr<const DatasetLineParts> parts;
  };
  using Batch = std::vector<RowValues>;
  static constexpr size_t kBatchRows = 8192, kQueuedBatches = 4;

  void append(const RowValues& values, std::string& text);
  void hand(Batch&& batch);
  void writeBatch(const Batch& batch);

  size_t pieceBytes_;
  std::function<void(std::string&)> flush_;
  std::string text_;  // the reading thread's piece until the writing thread starts
  size_t rows_ = 0;
  int partsRun_ = -1;
  std::shared_ptr<const DatasetLineParts> parts_;
  Batch batch_;
  std::string writerText_;          // the writing thread's piece
  std::optional<WorkPool> writer_;  // last: its worker uses the members above
};

}  // namespace railtune::sweep
