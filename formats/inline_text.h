// Text of at most N-1 characters kept inline in a record, so that a record holds no heap memory and
// the data path can queue one without allocating. Longer text is cut: these are names and labels
// (hosts, HCAs, transports), not data, and every reader treats them as such.
#pragma once

#include <cstddef>
#include <string_view>

namespace railtune::formats {

template <size_t N>
struct InlineText {
  static_assert(N >= 2, "room for one character and the NUL");
  char chars[N] = {};
  void assign(std::string_view text) {
    const size_t n = text.size() < N - 1 ? text.size() : N - 1;
    for (size_t i = 0; i < n; ++i) chars[i] = text[i];
    chars[n] = '\0';
  }
  std::string_view view() const { return std::string_view(chars); }
};

}  // namespace railtune::formats
