// A whole file's bytes, or "" when it cannot be read (the test then fails on the content).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace railtune::testing {

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace railtune::testing
