// The fast path log reader (analysis/paths/path_fast_parse.h) against the strict one: it takes the writer's
// lines, and on unusual ones it either agrees with the strict reader or leaves the line to it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "analysis/paths/path_fast_parse.h"
#include "analysis/paths/path_file.h"

namespace railtune::analysis::paths {
namespace {

namespace pl = formats::path_log;

struct Outcome {
  bool fast = false;
  bool strict = false;
  bool same = false;  // both accepted and the records agree
};

Outcome both(const std::string& line) {
  std::string padded = line + std::string(detail::kLinePadding, '\0');
  pl::ParsedRecord fast;
  Outcome out;
  out.fast = detail::fastParseRecord(padded.data(), line.size(), padded.size(), &fast);
  const pl::ParseResult strict = pl::parseRecord(line, "t.jsonl", 1);
  out.strict = strict.parsed.has_value();
  out.same = out.fast && out.strict && detail::sameRecord(fast, *strict.parsed);
  return out;
}

std::vector<std::string> exampleLines() {
  std::ifstream in(RAILTUNE_PATH_LOG_EXAMPLE);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every line of the example but the verbs transport's: its "verbs" and "bytes_per_qp" keys go to the strict reader.
TEST(PathsFastParse, TakesEveryLineOfTheWritersExample) {
  const std::vector<std::string> lines = exampleLines();
  ASSERT_EQ(lines.size(), 9u);
  for (const std::string& line : lines) {
    const bool verbs =
        line.find("\"verbs\"") != std::string::npos || line.find("\"bytes_per_qp\"") != std::string::npos;
    const Outcome o = both(line);
    EXPECT_TRUE(o.strict) << line;
    EXPECT_EQ(o.fast, !verbs) << line;
    if (o.fast) {
      EXPECT_TRUE(o.same) << line;
    }
  }
}

// Each variant of the example's first line either goes to the strict reader or is read identically.
TEST(PathsFastParse, UnusualLinesAreLeftToTheStrictReaderOrAgree) {
  const std::string connect = exampleLines().at(0);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string line = connect;
    line.replace(line.find(from), from.size(), to);
    return line;
  };
  const std::vector<std::string> variants = {
      replaced("\"conn\":1", "\"conn\":-0"),                   // signed zero
      replaced("\"streams\":4", "\"streams\":4.0"),            // a float
      replaced("\"streams\":4", "\"streams\":1e1"),            // an exponent
      replaced("\"pid\":4121", "\"pid\":4121,\"pid\":4121"),   // a repeated key
      replaced("\"job\":\"48213\"", "\"job\":\"48\\u0032\""),  // an escape
      replaced("\"rank\":3,", ""),                             // an optional field left out: still valid
      replaced("\"rail_match\":true", "\"rail_match\":1"),
      replaced("\"rail_match\":true", "\"rail_match\":null"),
      replaced("\"expected_rail\":3", "\"expected_rail\":null"),
      replaced("\"time_us\":1764480000001000", "\"time_us\":18446744073709551615"),
      replaced("\"conn\":1", "\"conn\":18446744073709551615"),
      replaced("\"conn\":1", "\"conn\":18446744073709551616"),
      replaced("\"hca\":\"mlx5_3\"", "\"hca\":\"" + std::string(64, 'x') + "\""),
      replaced("\"host\":\"gb300-r01-t05\"", "\"host\":\"\""),
      replaced("\"record\":\"connect\"", "\"record\":\"snapshot\""),
      replaced("\"local\":{", "\"local\":{\"extra\":1,"),
      replaced("\"streams\":4", "\"streams\":04"),  // a leading zero
      replaced("\"streams\":4", "\"streams\":+4"),
      replaced("\"streams\":4", "\"streams\":4."),
      replaced("\"rail_match\":true", "\"rail_match\":tru"),
      replaced("\"expected_rail\":3", "\"expected_rail\":nul"),
      replaced("\"hca\":\"mlx5_3\",", "\"hca\":\"mlx5_3\",\"hca\":\"mlx5_3\","),  // repeated inside an object
      replaced("\"digest\":{", "\"digest\":{\"local\":\"9f2c4e1a7b3d5c60\","),
      replaced(",\"direction\"", ",,\"direction\""),
      replaced(",\"direction\"", " \"direction\""),
      replaced(":\"send\"", ":\"send\" "),
      connect + " {}",
      connect + "   ",
      "  " + connect,
      connect.substr(0, connect.size() - 1),
      "[" + connect + "]",
      "{}",
  };
  for (const std::string& line : variants) {
    const Outcome o = both(line);
    EXPECT_TRUE(!o.fast || o.same) << "fast reader accepted what the strict one "
                                   << (o.strict ? "reads otherwise" : "rejects") << ": " << line;
  }
  // The plain variants the fast reader should still take itself (speed on real logs).
  EXPECT_TRUE(both(replaced("\"rank\":3,", "")).fast);
  EXPECT_TRUE(both(connect + "   ").fast);
}

}  // namespace
}  // namespace railtune::analysis::paths
