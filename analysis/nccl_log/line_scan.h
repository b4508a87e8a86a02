// The scanning steps the NCCL line readers share (log_line.cc, device_list.cc): each takes what it reads off
// the front of a string_view and leaves the text untouched when it is not there. Not part of the interface.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <string_view>
#include <system_error>

namespace railtune::analysis::nccl_log::line_scan {

inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// The largest channel, device or port a line may name, and the largest rank: far above any NCCL job's, and
// within what the path log's readers accept.
constexpr int kMaxNumber = 1 << 16;
constexpr int kMaxRank = 1 << 24;
constexpr int kMaxId = std::numeric_limits<int>::max();  // pids and thread ids

// Reads a decimal in [0, max] at the front of `text` and removes it; false (text untouched) when there is none.
// NCCL prints no negative number in the fields read with it.
inline bool takeInt(std::string_view& text, int* out, int max = kMaxNumber) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  int value = 0;
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || stop == begin || value < 0 || value > max) return false;
  *out = value;
  text.remove_prefix(static_cast<size_t>(stop - begin));
  return true;
}

inline bool takeHex(std::string_view& text, uint64_t* out) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  const char* begin = text.data();
  const auto [stop, error] = std::from_chars(begin, begin + text.size(), *out, 16);
  if (error != std::errc() || stop == begin) return false;
  text.remove_prefix(static_cast<size_t>(stop - begin));
  return true;
}

inline bool take(std::string_view& text, std::string_view word) {
  if (!text.starts_with(word)) return false;
  text.remove_prefix(word.size());
  return true;
}

inline void skipSpaces(std::string_view& text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
}

// The word up to the next space (or the end), removed from `text`.
inline std::string_view takeWord(std::string_view& text) {
  const size_t space = text.find(' ');
  const std::string_view word = text.substr(0, space);
  text.remove_prefix(space == std::string_view::npos ? text.size() : space);
  return word;
}

}  // namespace railtune::analysis::nccl_log::line_scan
