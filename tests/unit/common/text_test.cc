// trimmed (common/text.h).
#include <gtest/gtest.h>

#include "common/text.h"

namespace railtune {
namespace {

TEST(Text, TrimmedDropsBlanksAtBothEnds) {
  EXPECT_EQ(trimmed("  a b \t\r\n"), "a b");
  EXPECT_EQ(trimmed("\v\fx"), "x");
  EXPECT_EQ(trimmed(""), "");
  EXPECT_EQ(trimmed(" \t "), "");
  EXPECT_EQ(trimmed("x"), "x");
}

}  // namespace
}  // namespace railtune
