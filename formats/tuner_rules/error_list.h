// Collects a reader's errors up to kMaxErrorsReported, then one line saying that more were found, so a
// badly broken (or binary) file yields a readable report instead of thousands of lines.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "formats/tuner_rules/rule.h"

namespace railtune::formats::tuner_rules {

class ErrorList {
 public:
  explicit ErrorList(std::string source) : source_(std::move(source)) {}

  void add(size_t line, size_t column, std::string message) {
    if (errors_.size() < kMaxErrorsReported) {
      errors_.push_back({source_, line, column, std::move(message)});
    } else if (!truncated_) {
      errors_.push_back({source_, line, column, "further errors not reported"});
      truncated_ = true;
    }
  }
  // Readers stop early once nothing more would be reported.
  bool full() const { return truncated_; }
  bool empty() const { return errors_.empty(); }
  std::vector<RuleError> take() { return std::move(errors_); }

 private:
  std::string source_;
  std::vector<RuleError> errors_;
  bool truncated_ = false;
};

}  // namespace railtune::formats::tuner_rules
