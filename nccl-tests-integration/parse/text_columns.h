// The words of nccl-tests' text lines and the columns of its table headers, for the text reader
// (nccl_tests_text.cc): a launcher's prefix stripped, a line split into words, a measurement's token read, and
// what each column of a header holds. Inline: the reader calls them for every word of every row.
#pragma once

#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::sweep::text_columns {

using std::string_view;

inline string_view trim(string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The words of s, into out (cleared first): one vector reused for every row.
inline void tokens(string_view s, std::vector<string_view>& out) {
  out.clear();
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
}

inline std::vector<string_view> tokens(string_view s) {
  std::vector<string_view> out;
  tokens(s, out);
  return out;
}

template <typename T>
inline bool parseNumber(string_view s, T* out) {
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return error == std::errc() && end == s.data() + s.size();
}

// mpirun --tag-output "[1,0]<stdout>:", srun --label "3: ": a launcher's prefix before nccl-tests' text.
inline string_view stripLauncher(string_view line) {
  if (line.starts_with("[")) {
    const size_t close = line.find("]<std");
    if (close != string_view::npos) {
      const size_t colon = line.find(">:", close);
      if (colon != string_view::npos) return line.substr(colon + 2);
    }
  }
  size_t digits = 0;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits > 0 && line.substr(digits).starts_with(": ")) return line.substr(digits + 2);
  return line;
}

// A measurement column's token: N/A (absent), a number, or neither (the row is bad).
struct Value {
  std::optional<double> number;
  bool readable = true;
};

inline Value measure(string_view token) {
  if (token == "N/A") return {};
  double value = 0;
  // from_chars for double: available in gcc 11+. It reads "inf" and "nan": the row's bounds judge them.
  if (!parseNumber(token, &value)) return {std::nullopt, false};
  return {value, true};
}

// -?[0-9]+: how a row's size column starts (a negative or overflowing size is a bad row, not another program's line).
inline bool integerWord(string_view w) {
  if (w.starts_with('-')) w.remove_prefix(1);
  if (w.empty()) return false;
  for (char c : w)
    if (c < '0' || c > '9') return false;
  return true;
}

inline bool wordStartsWithLetter(string_view w) {
  return !w.empty() && std::isalpha(static_cast<unsigned char>(w.front()));
}

inline const std::vector<std::string>& defaultColumns() {
  static const std::vector<std::string> columns = {"size",  "count",  "type", "redop", "root",  "time",  "algbw",
                                                   "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
  return columns;
}

inline size_t keyCount(const std::vector<std::string>& columns) {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == "time" || columns[i] == "cputime") return i;
  return columns.size();
}

// What each column of a header holds, worked out once per header rather than by name for every value of every row.
enum class Column : uint8_t { Other, Count, Type, Redop, Root, Time, Algbw, Busbw, Wrong };

struct Layout {
  std::vector<Column> kinds;
  size_t keys = 0;
  bool countColumn = true;  // #wrong counts elements (2.13+), not the largest error of the "error" column
};

inline Layout layoutOf(const std::vector<std::string>& columns) {
  Layout layout;
  layout.keys = keyCount(columns);
  for (size_t k = 0; k < columns.size(); ++k) {
    const std::string& name = columns[k];
    Column kind = Column::Other;
    if (k < layout.keys) {
      if (name == "count") kind = Column::Count;
      if (name == "type") kind = Column::Type;
      if (name == "redop" || name == "op") kind = Column::Redop;
      if (name == "root") kind = Column::Root;
    } else {
      if (name == "time" || name == "cputime") kind = Column::Time;
      if (name == "algbw") kind = Column::Algbw;
      if (name == "busbw") kind = Column::Busbw;
      if (name == "#wrong" || name == "error") kind = Column::Wrong;
    }
    layout.countColumn = layout.countColumn && name != "error";
    layout.kinds.push_back(kind);
  }
  return layout;
}

inline std::string quoted(string_view s) {
  return "'" + std::string(s.substr(0, 40)) + (s.size() > 40 ? "...'" : "'");
}

}  // namespace railtune::sweep::text_columns
