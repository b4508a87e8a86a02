// The Prometheus textfile (profiler_plugin/output/prometheus.h): the golden rendering of the example
// records, checked by a reader of the text exposition format's rules (names, labels and their
// escapes, values, one TYPE per family before its samples, no duplicate series, histogram buckets
// cumulative and ending at +Inf = _count), size buckets, and the atomic write.
// Regenerate the golden after an intended change:
//   RAILTUNE_UPDATE_GOLDEN=1 ctest --test-dir <build> -R '^unit\.ProfilerOutputPrometheus'
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "profiler_plugin/output/prometheus.h"
#include "tests/unit/profiler_plugin/output/profiler_output_examples.h"
#include "tests/unit/profiler_plugin/output/profiler_output_golden.h"

namespace railtune::profiler::output {
namespace {

using railtune::profiler::testing::exampleIdentity;
using railtune::profiler::testing::exampleRecords;

struct Sample {
  std::string name, labels;  // labels without "le"
  std::string le;
  double value = 0;
};

// The family a sample belongs to: histograms own name_bucket, name_sum and name_count.
std::string familyOf(const std::string& name, const std::map<std::string, std::string>& types) {
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      const std::string base = name.substr(0, name.size() - s.size());
      if (types.contains(base) && types.at(base) == "histogram") return base;
    }
  }
  return name;
}

// A sample line's name, labels and value; "" or what is wrong with it.
std::string readSample(const std::string& line, Sample* s) {
  static const std::regex kSample(R"(([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+))");
  static const std::regex kLabel(R"(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)\"(,|$))");
  std::smatch m;
  if (!std::regex_match(line, m, kSample)) return "not a sample: " + line;
  s->name = m[1];
  std::string labels = m[2];
  for (std::smatch l; !labels.empty(); labels = l.suffix()) {
    if (!std::regex_search(labels, l, kLabel) || l.position(0) != 0) return "bad labels: " + m[2].str();
    if (l[1] == "le")
      s->le = l[2];
    else
      s->labels += l[1].str() + "=" + l[2].str() + ";";
  }
  const std::string value = m[3];
  char* end = nullptr;
  s->value = std::strtod(value.c_str(), &end);
  return *end == '\0' ? "" : "bad value " + value;
}

// Buckets cumulative, each with "le", and _count equal to the +Inf bucket.
std::string checkHistogram(const std::string& family, const Sample& s,
                           std::map<std::string, std::pair<double, double>>* histograms) {
  auto& [last, inf] = (*histograms)[family + s.labels];  // (last bucket, +Inf bucket)
  if (s.name == family + "_bucket") {
    if (s.le.empty()) return "bucket without le";
    if (s.value < last) return "buckets not cumulative";
    last = s.value;
    if (s.le == "+Inf") inf = s.value;
  }
  if (s.name == family + "_count" && s.value != inf) return "_count differs from the +Inf bucket";
  return "";
}

// Returns "" or the first rule the text breaks, with its line number.
std::string checkExposition(const std::string& text) {
  static const std::regex kComment(R"(# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+))");
  static const std::regex kType("counter|gauge|histogram|summary|untyped");
  if (text.empty() || text.back() != '\n') return "the text must end with a newline";
  std::map<std::string, std::string> types;
  std::set<std::string> series, finished;
  std::string current;
  std::map<std::string, std::pair<double, double>> histograms;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    const std::string at = "line " + std::to_string(++number) + ": ";
    std::smatch m;
    if (std::regex_match(line, m, kComment)) {
      if (m[1] == "TYPE" && (types.contains(m[2]) || !std::regex_match(m[3].str(), kType))) return at + "TYPE " + line;
      if (m[1] == "TYPE") types[m[2]] = m[3];
      continue;
    }
    Sample s;
    if (const std::string error = readSample(line, &s); !error.empty()) return at + error;
    const std::string family = familyOf(s.name, types);
    if (!types.contains(family)) return at + "sample before its TYPE: " + s.name;
    if (family != current && finished.contains(family)) return at + "family " + family + " is not contiguous";
    if (family != current) finished.insert(std::exchange(current, family));
    if (!series.insert(s.name + "{" + s.labels + "le=" + s.le + "}").second) return at + "duplicate series";
    if (types[family] == "counter" && s.value < 0) return at + "negative counter";
    const std::string error = types[family] == "histogram" ? checkHistogram(family, s, &histograms) : "";
    if (!error.empty()) return at + error;
  }
  return "";
}

std::string exampleMetrics() {
  PrometheusMetrics metrics(exampleIdentity());
  for (const OperationRecord& r : exampleRecords()) metrics.add(r);
  metrics.add(exampleRecords()[0]);  // a second 1 GiB AllReduce: counts add up
  for (const OperationRecord& r : railtune::profiler::testing::exampleV7Records()) metrics.add(r);  // one symmetric
  metrics.add(railtune::profiler::testing::exampleLost());  // 2 operations, 40 events
  metrics.addRecordsDropped(4);
  return metrics.render();
}

TEST(ProfilerOutputPrometheus, MatchesTheGoldenTextfile) {
  railtune::profiler::testing::compareGolden(std::string(RAILTUNE_PROFILE_GOLDEN) + "/metrics.prom", exampleMetrics());
}

TEST(ProfilerOutputPrometheus, FollowsTheExpositionFormat) {
  const std::string text = exampleMetrics();
  EXPECT_EQ(checkExposition(text), "") << text;
  EXPECT_NE(text.find("railtune_profile_operations_total{job_id=\"48213\",host=\"gb300-r01-t05\",pid=\"4121\","
                      "op=\"AllReduce\",size=\"1GiB\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("railtune_profile_hangs_total{job_id=\"48213\",host=\"gb300-r01-t05\",pid=\"4121\","
                      "op=\"ReduceScatter\"} 1\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("railtune_profile_records_dropped_total{job_id=\"48213\",host=\"gb300-r01-t05\",pid=\"4121\"} 4\n"),
      std::string::npos);
  EXPECT_NE(
      text.find("railtune_profile_events_dropped_total{job_id=\"48213\",host=\"gb300-r01-t05\",pid=\"4121\"} 42\n"),
      std::string::npos);
  EXPECT_NE(
      text.find("railtune_profile_operations_dropped_total{job_id=\"48213\",host=\"gb300-r01-t05\",pid=\"4121\"} 2\n"),
      std::string::npos);
  EXPECT_EQ(text.find("op=\"\""), std::string::npos) << "a loss notice is no operation";
}

TEST(ProfilerOutputPrometheus, TheCheckerCatchesBrokenText) {
  EXPECT_NE(checkExposition("x{a=\"1\"} 1"), "");                                    // no final newline
  EXPECT_NE(checkExposition("x{a=\"1\"} 1\n"), "");                                  // no TYPE
  EXPECT_NE(checkExposition("# TYPE x counter\nx{a=\"1\"} one\n"), "");              // value
  EXPECT_NE(checkExposition("# TYPE x counter\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n"), "");  // duplicate
  EXPECT_NE(checkExposition("# TYPE x counter\nx{a=\"q\"q\"} 1\n"), "");             // unescaped quote
  EXPECT_NE(checkExposition("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"), "");
  EXPECT_NE(checkExposition("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count{} 3\n"), "");
  EXPECT_EQ(checkExposition("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count{} 2\n"), "");
}

TEST(ProfilerOutputPrometheus, LabelValuesAreEscaped) {
  PrometheusMetrics metrics(Identity{"host \"a\"\\b", "job\nline", 7});
  metrics.add(exampleRecords()[3]);
  const std::string text = metrics.render();
  EXPECT_EQ(checkExposition(text), "") << text;
  EXPECT_NE(text.find("job_id=\"job\\nline\",host=\"host \\\"a\\\"\\\\b\""), std::string::npos) << text;
}

TEST(ProfilerOutputPrometheus, SizeBucketsArePowersOfFourFromOneKiB) {
  EXPECT_EQ(sizeBucketLabel(0), "1KiB");
  EXPECT_EQ(sizeBucketLabel(1024), "1KiB");
  EXPECT_EQ(sizeBucketLabel(1025), "4KiB");
  EXPECT_EQ(sizeBucketLabel(262144), "256KiB");
  EXPECT_EQ(sizeBucketLabel(262145), "1MiB");
  EXPECT_EQ(sizeBucketLabel(1ULL << 30), "1GiB");
  EXPECT_EQ(sizeBucketLabel(1ULL << 34), "16GiB");
  EXPECT_EQ(sizeBucketLabel((1ULL << 34) + 1), "larger");
}

TEST(ProfilerOutputPrometheus, WritesAtomicallyAndSaysWhyNot) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("railtune-prom-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "railtune.prom").string();
  EXPECT_EQ(writeFileAtomically(path, "first\n"), "");
  EXPECT_EQ(writeFileAtomically(path, "second\n"), "");
  EXPECT_EQ(railtune::profiler::testing::readFile(path), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "temporary file left";
  const std::string error = writeFileAtomically((dir / "missing" / "x.prom").string(), "x\n");
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace railtune::profiler::output
