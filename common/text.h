// Small text helpers every floor uses, written once: trimming blanks off a field read from a file or an
// option (cells of a table, items of a list), with the C locale's idea of a blank.
#pragma once

#include <cctype>
#include <string_view>

namespace railtune {

// `text` without the blanks (space, \t, \n, \v, \f, \r) at either end; a view into the same bytes.
inline std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace railtune
