// Jobs writing one output in order (ordered_output.h).
#include "nccl-tests-integration/dataset/ordered_output.h"

#include <exception>

namespace railtune::sweep {

OrderedOutput::OrderedOutput(size_t jobs, size_t maxBuffered, std::function<void(std::string_view)> write)
    : write_(std::move(write)), pending_(jobs), done_(jobs, false), maxBuffered_(maxBuffered) {}

void OrderedOutput::put(std::string_view bytes) {
  if (!error_.empty() || bytes.empty()) return;
  try {
    write_(bytes);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

void OrderedOutput::write(size_t job, std::string& text) {
  std::unique_lock lock(mutex_);
  // The head never waits: it is the job every waiting one waits for.
  moved_.wait(lock, [&] { return job == head_ || buffered_ + text.size() <= maxBuffered_ || buffered_ == 0; });
  if (job == head_) {
    put(text);
  } else {
    buffered_ += text.size();
    pending_[job] += text;
  }
  text.clear();
}

void OrderedOutput::done(size_t job) {
  std::lock_guard lock(mutex_);
  done_[job] = true;
  while (head_ < done_.size() && done_[head_]) {
    ++head_;
    if (head_ == done_.size()) break;
    buffered_ -= pending_[head_].size();
    put(pending_[head_]);
    std::string().swap(pending_[head_]);
  }
  moved_.notify_all();
}

}  // namespace railtune::sweep
