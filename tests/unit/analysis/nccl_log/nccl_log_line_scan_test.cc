// The scanning steps the NCCL line readers share (analysis/nccl_log/line_scan.h): each takes what it reads off
// the front of the text, and leaves the text as it was when what it reads is not there.
#include <gtest/gtest.h>

#include <string_view>

#include "analysis/nccl_log/line_scan.h"

namespace railtune::analysis::nccl_log::line_scan {
namespace {

TEST(NcclLogLineScan, TakeIntReadsADecimalWithinItsBound) {
  std::string_view text = "42[0]";
  int value = -1;
  ASSERT_TRUE(takeInt(text, &value));
  EXPECT_EQ(value, 42);
  EXPECT_EQ(text, "[0]");

  text = "65536 rest";  // kMaxNumber itself is accepted, one more is not
  ASSERT_TRUE(takeInt(text, &value));
  EXPECT_EQ(value, kMaxNumber);
  text = "65537 rest";
  value = -1;
  EXPECT_FALSE(takeInt(text, &value));
  EXPECT_EQ(text, "65537 rest");
  EXPECT_EQ(value, -1);
  EXPECT_TRUE(takeInt(text, &value, kMaxRank));
  EXPECT_EQ(value, 65537);

  for (std::string_view bad : {"-1", "", "x1", " 1", "99999999999999999999"}) {
    text = bad;
    EXPECT_FALSE(takeInt(text, &value, kMaxId)) << bad;
    EXPECT_EQ(text, bad);
  }
}

TEST(NcclLogLineScan, TakeHexReadsWithOrWithoutItsPrefix) {
  uint64_t value = 0;
  std::string_view text = "0x55a223a946d0 rank";
  ASSERT_TRUE(takeHex(text, &value));
  EXPECT_EQ(value, 0x55a223a946d0u);
  EXPECT_EQ(text, " rank");
  text = "1b000";
  ASSERT_TRUE(takeHex(text, &value));
  EXPECT_EQ(value, 0x1b000u);
  EXPECT_TRUE(text.empty());
  text = "zz";
  EXPECT_FALSE(takeHex(text, &value));
  EXPECT_EQ(text, "zz");
}

TEST(NcclLogLineScan, TakeSkipAndWords) {
  std::string_view text = "Channel 00/0 : 1[1]";
  EXPECT_FALSE(take(text, "channel"));
  EXPECT_EQ(text, "Channel 00/0 : 1[1]");
  EXPECT_TRUE(take(text, "Channel "));
  EXPECT_EQ(takeWord(text), "00/0");
  skipSpaces(text);
  EXPECT_EQ(text, ": 1[1]");
  EXPECT_EQ(takeWord(text), ":");
  EXPECT_EQ(takeWord(text), "");  // at a space: the empty word before it
  skipSpaces(text);
  EXPECT_EQ(takeWord(text), "1[1]");
  EXPECT_TRUE(text.empty());
  EXPECT_TRUE(isDigit('0') && isDigit('9') && !isDigit('a') && !isDigit('/'));
}

}  // namespace
}  // namespace railtune::analysis::nccl_log::line_scan
