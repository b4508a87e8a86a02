// Golden-file comparison for the profiler output tests: RAILTUNE_UPDATE_GOLDEN=1 rewrites the file
// with what the test produced, otherwise the two must be equal byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/file_text.h"

namespace railtune::profiler::testing {

using railtune::testing::readFile;

inline void compareGolden(const std::string& path, const std::string& actual) {
  const char* update = std::getenv("RAILTUNE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") std::ofstream(path, std::ios::binary) << actual;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing; run with RAILTUNE_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(readFile(path), actual) << "differs from " << path << " (RAILTUNE_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace railtune::profiler::testing
