// A char iterator that publishes how far nlohmann's lexer has read, for readers that report a
// position with every error (the tuner's JSON rules, the rail map). The lexer pulls one character at a
// time and never looks back, so at each SAX event this is the end of the token just read (one
// character further after a number, whose end the lexer finds by reading past it). Header-only.
#pragma once

#include <cstddef>
#include <iterator>

namespace railtune::formats {

class JsonReadTracker {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  JsonReadTracker(const char* at, const char** readUpTo) : at_(at), readUpTo_(readUpTo) {}
  reference operator*() const { return *at_; }
  JsonReadTracker& operator++() {
    *readUpTo_ = ++at_;
    return *this;
  }
  JsonReadTracker operator++(int) {
    JsonReadTracker before = *this;
    ++*this;
    return before;
  }
  bool operator==(const JsonReadTracker& other) const { return at_ == other.at_; }
  bool operator!=(const JsonReadTracker& other) const { return at_ != other.at_; }

 private:
  const char* at_;
  const char** readUpTo_;
};

}  // namespace railtune::formats
