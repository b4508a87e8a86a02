// shellQuote (common/shell_quote.h): what a POSIX shell reads back is the word given, whatever its bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "common/shell_quote.h"

namespace railtune {
namespace {

TEST(ShellQuote, PlainWordsStayBare) {
  EXPECT_EQ(shellQuote("all_reduce_perf"), "all_reduce_perf");
  EXPECT_EQ(shellQuote("--ntasks-per-node=4"), "--ntasks-per-node=4");
  EXPECT_EQ(shellQuote("user@host:/a/b,c+d.e"), "user@host:/a/b,c+d.e");
  EXPECT_EQ(shellQuote("50%"), "50%");
}

TEST(ShellQuote, HostileWordsAreSingleQuoted) {
  EXPECT_EQ(shellQuote(""), "''");
  EXPECT_EQ(shellQuote("a b"), "'a b'");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(shellQuote("''"), "''\\'''\\'''");
  EXPECT_EQ(shellQuote("\"x\""), "'\"x\"'");
  EXPECT_EQ(shellQuote("$HOME"), "'$HOME'");
  EXPECT_EQ(shellQuote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shellQuote("`id`"), "'`id`'");
  EXPECT_EQ(shellQuote("a\\b"), "'a\\b'");
  EXPECT_EQ(shellQuote("line1\nline2"), "'line1\nline2'");
  EXPECT_EQ(shellQuote("*"), "'*'");
  EXPECT_EQ(shellQuote("a;b|c&d"), "'a;b|c&d'");
  EXPECT_EQ(shellQuote("~"), "'~'");
}

TEST(ShellQuote, SchedulerRulesQuotePercentAndLeadingEquals) {
  const ShellQuoteRules scripts{.percentBare = false, .quoteLeadingEquals = true};
  EXPECT_EQ(shellQuote("50%", scripts), "'50%'");
  EXPECT_EQ(shellQuote("=a", scripts), "'=a'");
  EXPECT_EQ(shellQuote("a=b", scripts), "a=b");
  EXPECT_EQ(shellQuote("=a"), "=a");
  EXPECT_EQ(shellQuote("", scripts), "''");
}

// The shell itself reads each quoted word back to the very bytes given.
TEST(ShellQuote, ShellReadsTheWordBack) {
  for (const std::string word : {"", "it's", "$HOME `id` \\n", "a\nb\tc", "'\"'\"", "=x%", "\\", "!!"}) {
    const std::string command = "printf '%s' " + shellQuote(word);
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string read;
    char buffer[256];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) read.append(buffer, n);
    EXPECT_EQ(pclose(pipe), 0) << command;
    EXPECT_EQ(read, word) << command;
  }
}

}  // namespace
}  // namespace railtune
