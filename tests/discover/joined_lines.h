// The text a probe's reader sees: lines joined, each ending in a newline.
#pragma once

#include <string>
#include <vector>

inline std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}
