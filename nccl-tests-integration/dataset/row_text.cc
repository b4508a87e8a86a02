// The dataset lines of one output (row_text.h).
#include "nccl-tests-integration/dataset/row_text.h"

#include <utility>

namespace railtune::sweep {

RowText::RowText(size_t pieceBytes, std::function<void(std::string&)> flush)
    : pieceBytes_(pieceBytes), flush_(std::move(flush)) {}

RowText::~RowText() = default;  // a writer left unfinished (an error on the reading thread) drops its batches

void RowText::append(const RowValues& v, std::string& text) {
  DatasetRow row;  // only the fields that differ between rows of a run: the parts hold the rest
  row.line = v.line;
  row.size = v.size;
  row.count = v.count;
  row.type = v.type;
  row.redop = v.redop;
  row.root = v.root;
  row.outOfPlace = v.outOfPlace;
  row.inPlace = v.inPlace;
  row.valid = v.valid;
  appendDatasetRow(row, *v.parts, text);
}

void RowText::add(const DatasetRow& row, const DatasetLineParts& parts) {
  ++rows_;
  if (rows_ <= kRowsBeforeThread) {  // short outputs: written here
    appendDatasetRow(row, parts, text_);
    if (text_.size() >= pieceBytes_) flush_(text_);
    return;
  }
  if (!writer_) {
    if (!text_.empty()) flush_(text_);
    writer_.emplace(1, kQueuedBatches);
  }
  if (!parts_ || partsRun_ != row.run) {  // a new run: its parts, shared by the batches that hold its rows
    parts_ = std::make_shared<const DatasetLineParts>(parts);
    partsRun_ = row.run;
  }
  batch_.push_back(
      {row.line, row.root, row.size, row.count, row.type, row.redop, row.outOfPlace, row.inPlace, row.valid, parts_});
  if (batch_.size() == kBatchRows) hand(std::move(batch_));
}

// Waits while kQueuedBatches wait; after a failed flush the batch is dropped (finish() throws the error).
void RowText::hand(Batch&& batch) {
  auto shared = std::make_shared<const Batch>(std::move(batch));
  writer_->submit([this, shared] { writeBatch(*shared); });
  batch_ = Batch();
  batch_.reserve(kBatchRows);
}

void RowText::writeBatch(const Batch& batch) {
  for (const RowValues& v : batch) {
    append(v, writerText_);
    if (writerText_.size() >= pieceBytes_) flush_(writerText_);
  }
}

void RowText::finish() {
  if (!writer_) {
    if (!text_.empty()) flush_(text_);
    return;
  }
  if (!batch_.empty()) hand(std::move(batch_));
  writer_->finish();  // joined: the writing thread's piece is this thread's now
  if (!writerText_.empty()) flush_(writerText_);
}

}  // namespace railtune::sweep
