// Golden-file comparison for the NCCL XML and rail-map tests. Set RAILTUNE_UPDATE_GOLDEN=1 to rewrite the
// golden files from the current output instead of comparing (then review the diff before committing).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace railtune::topo::testing {

inline std::string sourcePath(const std::string& relative) {
  return std::string(RAILTUNE_SOURCE_DIR) + "/" + relative;
}

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void expectGolden(const std::string& relative, const std::string& actual) {
  const std::string path = sourcePath(relative);
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << actual;
    return;
  }
  std::ifstream probe(path);
  ASSERT_TRUE(probe.good()) << path << " is missing; run with RAILTUNE_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(readText(path), actual) << "differs from " << path << " (RAILTUNE_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace railtune::topo::testing
