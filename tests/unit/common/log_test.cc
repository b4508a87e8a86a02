#include "common/log.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/log_capture.h"

namespace railtune {
namespace {

using testing::captureLogger;
using testing::LogCapture;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { LogCapture::instance().clear(); }
};

TEST_F(LogTest, WarnGoesThroughNcclsLoggerWithPrefixFlagsAndCallSite) {
  const Log log("tuner", captureLogger);
  RT_WARN(log, NCCL_TUNING, "bad rule %d in %s", 7, "rules.csv");
  const auto lines = LogCapture::instance().lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].level, NCCL_LOG_WARN);
  EXPECT_EQ(lines[0].flags, static_cast<unsigned long>(NCCL_TUNING));
  EXPECT_EQ(lines[0].text, "railtune tuner: bad rule 7 in rules.csv");
  EXPECT_EQ(lines[0].file, "log_test.cc") << "the file name only, no build path";
  EXPECT_GT(lines[0].line, 0);
}

TEST_F(LogTest, InfoUsesTheInfoLevel) {
  const Log log("net", captureLogger);
  RT_INFO(log, NCCL_NET | NCCL_INIT, "%d devices", 8);
  const auto lines = LogCapture::instance().lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].level, NCCL_LOG_INFO);
  EXPECT_EQ(lines[0].flags, static_cast<unsigned long>(NCCL_NET | NCCL_INIT));
  EXPECT_EQ(lines[0].text, "railtune net: 8 devices");
}

TEST_F(LogTest, WithoutALoggerWarnGoesToStderrAndInfoIsDropped) {
  const Log log("profiler");
  ::testing::internal::CaptureStderr();
  RT_INFO(log, NCCL_PROFILE, "dropped line");
  RT_WARN(log, NCCL_PROFILE, "kept line %s", "here");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "WARN railtune profiler: kept line here\n");
  EXPECT_TRUE(LogCapture::instance().lines().empty());
}

TEST_F(LogTest, ConfigErrorNamesFileLineAndReasonAndNeverInterpretsItsText) {
  const Log log("tuner", captureLogger);
  log.configError("rules.csv", 12, "unknown algorithm '%s%n'", "x.cc", 1);
  const auto warnings = LogCapture::instance().warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].text, "railtune tuner: rules.csv:12: unknown algorithm '%s%n'");
  EXPECT_TRUE(warnings[0].flags & NCCL_INIT);
}

TEST_F(LogTest, LongMessagesAreTruncatedNotOverflowed) {
  const Log log("tuner", captureLogger);
  const std::string longText(5000, 'x');
  RT_WARN(log, NCCL_TUNING, "%s", longText.c_str());
  const auto lines = LogCapture::instance().lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_LT(lines[0].text.size(), 1024u);
  EXPECT_EQ(lines[0].text.rfind("railtune tuner: xxx", 0), 0u);
}

TEST_F(LogTest, LoggerCanBeSetLaterAndCopiesKeepIt) {
  Log log("net");
  log.setLogger(captureLogger);
  const Log copy(log);
  RT_WARN(copy, NCCL_NET, "via copy");
  EXPECT_EQ(LogCapture::instance().warnings().size(), 1u);
  EXPECT_STREQ(copy.component(), "net");
}

TEST(OnceFlagTest, LetsExactlyOneCallerThroughUntilReset) {
  OnceFlag flag;
  EXPECT_TRUE(flag.first());
  EXPECT_FALSE(flag.first());
  EXPECT_TRUE(flag.done());
  flag.reset();
  EXPECT_TRUE(flag.first());
}

TEST(SourceBaseNameTest, StripsDirectories) {
  static_assert(std::string_view(sourceBaseName("a/b/c.cc")) == "c.cc");
  EXPECT_STREQ(sourceBaseName("plain.cc"), "plain.cc");
  EXPECT_STREQ(sourceBaseName("dir/"), "");
}

}  // namespace
}  // namespace railtune
