// The dataset lines of one output (row_text.h).
#include "cli/sweep/row_text.h"

#include <utility>

namespace railtune::cli {

RowText::RowText(size_t pieceBytes, std::function<void(std::string&)> flush)
    : pieceBytes_(pieceBytes), flush_(std::move(flush)) {}

RowText::~RowText() {
  if (writer_.joinable()) finish();
}

void RowText::append(const RowValues& v, std::string& text) {
  sweep::DatasetRow row;  // only the fields that differ between rows of a run: the parts hold the rest
  row.line = v.line;
  row.size = v.size;
  row.count = v.count;
  row.type = v.type;
  row.redop = v.redop;
  row.root = v.root;
  row.outOfPlace = v.outOfPlace;
  row.inPlace = v.inPlace;
  row.valid = v.valid;
  sweep::appendDatasetRow(row, *v.parts, text);
}

void RowText::add(const sweep::DatasetRow& row, const sweep::DatasetLineParts& parts) {
  ++rows_;
  if (rows_ <= kRowsBeforeThread) {  // short outputs: written here
    sweep::appendDatasetRow(row, parts, text_);
    if (text_.size() >= pieceBytes_) flush_(text_);
    return;
  }
  if (!writer_.joinable()) {
    if (!text_.empty()) flush_(text_);
    writer_ = std::thread([this] { writeBatches(); });
  }
  if (!parts_ || partsRun_ != row.run) {  // a new run: its parts, shared by the batches that hold its rows
    parts_ = std::make_shared<const sweep::DatasetLineParts>(parts);
    partsRun_ = row.run;
  }
  batch_.push_back(
      {row.line, row.root, row.size, row.count, row.type, row.redop, row.outOfPlace, row.inPlace, row.valid, parts_});
  if (batch_.size() == kBatchRows) hand(std::move(batch_));
}

void RowText::hand(Batch&& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kQueuedBatches; });
  queue_.push_back(std::move(batch));
  changed_.notify_all();
  batch_ = Batch();
  batch_.reserve(kBatchRows);
}

void RowText::writeBatches() {
  std::string text;
  for (;;) {
    Batch batch;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return closed_ || !queue_.empty(); });
      if (queue_.empty()) break;
      batch = std::move(queue_.front());
      queue_.pop_front();
      changed_.notify_all();
    }
    for (const RowValues& v : batch) {
      append(v, text);
      if (text.size() >= pieceBytes_) flush_(text);
    }
  }
  if (!text.empty()) flush_(text);
}

void RowText::finish() {
  if (!writer_.joinable()) {
    if (!text_.empty()) flush_(text_);
    return;
  }
  if (!batch_.empty()) hand(std::move(batch_));
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  writer_.join();
}

}  // namespace railtune::cli
