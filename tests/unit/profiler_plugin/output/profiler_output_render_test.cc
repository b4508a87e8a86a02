// The allocation-free renderers (formats/json_append.h, records_render.cc, trace.cc)
// against the nlohmann::json renderers they replaced (profiler_output_oracle.h), byte for byte, over
// random records: names with control characters and invalid UTF-8, extreme integers, every kind and
// close reason, 0..64 flows; and the string and double spellings on their own over random input.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/json_append.h"
#include "profiler_plugin/output/trace.h"
#include "profiler_plugin/profile_format.h"
#include "tests/unit/profiler_plugin/output/profiler_output_oracle.h"

namespace railtune::profiler::output {
namespace {

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}

  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(engine_); }
  bool chance(int percent) { return below(100) < static_cast<uint64_t>(percent); }

  // Mostly small, sometimes the type's extremes.
  template <typename T>
  T integer() {
    switch (below(5)) {
      case 0:
        return std::numeric_limits<T>::min();
      case 1:
        return std::numeric_limits<T>::max();
      case 2:
        return static_cast<T>(engine_());
      default:
        return static_cast<T>(below(100000));
    }
  }

  // Bytes from a mix of plain text, JSON's special characters, valid and broken UTF-8.
  std::string text(size_t maxLength) {
    static const std::string kPieces[] = {"a",
                                          "Z9",
                                          "\"",
                                          "\\",
                                          "\n",
                                          "\t",
                                          "\b",
                                          "\f",
                                          "\r",
                                          "\x01",
                                          "\x1f",
                                          "\x7f",
                                          "\xc3\xa9",
                                          "\xe2\x82",
                                          "\xe2\x82\xac",
                                          "\xf0\x9f\x98\x80",
                                          "\xf0\x9f",
                                          "\xed\xa0\x80",
                                          "\xc0\xaf",
                                          "\x80",
                                          "\xff",
                                          "\xf4\x90\x80\x80",
                                          "\xe0\x80\xaf",
                                          " ",
                                          "/"};
    std::string out;
    const size_t length = below(maxLength + 1);
    while (out.size() < length) {
      if (chance(20)) {
        out += static_cast<char>(below(256));
      } else {
        out += kPieces[below(std::size(kPieces))];
      }
    }
    return out;
  }

  double number() {
    switch (below(4)) {
      case 0:
        return std::bit_cast<double>(engine_());
      case 1:
        return static_cast<double>(integer<int64_t>()) / 1000.0;
      case 2:
        return std::round(static_cast<double>(below(1u << 30)) / 7.0 * 1000.0) / 1000.0;
      default:
        return static_cast<double>(below(1000)) * std::pow(10.0, static_cast<double>(below(40)) - 20.0);
    }
  }

  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

NetFlow randomFlow(Random& random) {
  NetFlow f;
  f.channel = random.chance(80) ? static_cast<int>(random.below(8)) : random.integer<int>();
  f.peer = random.chance(80) ? static_cast<int>(random.below(4)) : random.integer<int>();
  f.send = random.chance(50);
  f.bytes = random.integer<uint64_t>();
  f.steps = random.integer<uint32_t>();
  f.waitNs = random.integer<uint64_t>();
  f.outstanding = random.integer<uint32_t>();
  f.device = random.chance(50) ? -1 : random.integer<int>();
  if (random.chance(50)) f.hca.assign(random.chance(70) ? "mlx5_" + std::to_string(random.below(4)) : random.text(40));
  f.rail = random.chance(50) ? -1 : random.integer<int>();
  f.plane = random.chance(50) ? -1 : random.integer<int>();
  return f;
}

// Profiler v7's fields, each present or not; the tag's extremes (0 and 2^64-1) as often as any value.
void randomV7Fields(Random& random, OperationRecord& r) {
  if (random.chance(60))
    r.userTag = random.chance(30) ? (random.chance(50) ? 0 : UINT64_MAX) : random.integer<uint64_t>();
  if (random.chance(50)) r.symColl = random.chance(50);
  if (random.chance(30)) r.kernelVariant.assign(random.text(20));
  r.path = static_cast<OperationPath>(random.below(3));
  if (random.chance(50)) {
    r.phases.channels = random.integer<uint32_t>() % 65;
    for (size_t i = 0; i < kKernelPhases; ++i) {
      r.phases.timed[i] = random.chance(70);
      r.phases.longestNs[i] = random.integer<uint64_t>() % 100000000000ULL;
    }
    r.phases.unknown = random.chance(20) ? random.integer<uint32_t>() : 0;
    r.phases.incomplete = random.chance(20);
  }
}

OperationRecord randomRecord(Random& random) {
  OperationRecord r;
  r.kind = static_cast<RecordKind>(random.below(4));
  if (random.chance(70)) r.comm = random.integer<uint64_t>();
  r.rank = random.chance(20) ? -1 : random.integer<int>();
  r.nRanks = random.integer<int>();
  r.seq = random.integer<uint64_t>();
  r.operation.assign(random.chance(50) ? std::string("AllReduce") : random.text(30));
  r.bytes = random.integer<uint64_t>();
  r.datatype.assign(random.text(20));
  r.algorithm.assign(random.text(20));
  r.protocol.assign(random.chance(50) ? std::string("LL128") : random.text(20));
  r.channels = random.integer<int>();
  r.peer = random.chance(50) ? -1 : random.integer<int>();
  // Monotonic times within half the range: their difference (the duration) must not overflow.
  r.start = Timestamp{random.integer<int64_t>(), random.integer<int64_t>() / 2};
  r.end = Timestamp{random.integer<int64_t>(), random.chance(50) ? r.start.monotonicNs + random.integer<int32_t>()
                                                                 : random.integer<int64_t>() / 2};
  r.timing = static_cast<TimingSource>(random.below(3));
  r.nFlows = static_cast<uint32_t>(random.below(kMaxFlowsPerRecord + 1));
  for (uint32_t i = 0; i < r.nFlows; ++i) r.flows[i] = randomFlow(random);
  r.flowsDropped = random.integer<uint32_t>();
  r.stuckForNs = random.integer<uint64_t>();
  r.eventsDropped = random.integer<uint64_t>();
  r.closedBy = static_cast<CloseReason>(random.below(6));
  r.operationsDropped = random.integer<uint64_t>();
  randomV7Fields(random, r);
  return r;
}

Identity randomIdentity(Random& random) {
  return Identity{random.text(30), random.text(30), random.integer<int>()};
}

TEST(ProfilerOutputRender, StringsAreEscapedAsNlohmannDoes) {
  Random random(1);
  for (int i = 0; i < 200000; ++i) {
    const std::string text = random.text(i % 100 == 0 ? 300 : 12);
    std::string ours;
    appendJsonString(&ours, text);
    ASSERT_EQ(ours, oracle::jsonString(text))
        << "input: " << nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
}

TEST(ProfilerOutputRender, EveryByteAloneAndInPairs) {
  for (int a = 0; a < 256; ++a) {
    for (int b = -1; b < 256; ++b) {
      std::string text(1, static_cast<char>(a));
      if (b >= 0) text += static_cast<char>(b);
      std::string ours;
      appendJsonString(&ours, text);
      ASSERT_EQ(ours, oracle::jsonString(text)) << a << " " << b;
    }
  }
}

TEST(ProfilerOutputRender, DoublesAreSpelledAsNlohmannDoes) {
  Random random(2);
  for (int i = 0; i < 300000; ++i) {
    const double value = random.number();
    std::string ours;
    appendJsonDouble(&ours, value);
    ASSERT_EQ(ours, nlohmann::json(value).dump()) << value;
  }
  for (const double value : {0.0, -0.0, 1.0, -1.5, 1e300, 5e-324, 1e16, 1e15, 123456789012345680.0,
                             std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    std::string ours;
    appendJsonDouble(&ours, value);
    EXPECT_EQ(ours, nlohmann::json(value).dump()) << value;
  }
}

// The writer's fast path for whole thousandths (json_append.cc): every value below 200 exactly, then
// thousandths of every magnitude up to 10^12 at random, their neighbours one ulp away (not thousandths:
// Grisu2's path), and the bounds.
TEST(ProfilerOutputRender, ThousandthsAreSpelledAsNlohmannDoes) {
  const auto check = [](double value) {
    std::string ours;
    appendJsonDouble(&ours, value);
    return ours == nlohmann::json(value).dump() ? std::string() : ours + " != " + nlohmann::json(value).dump();
  };
  for (int64_t m = -200000; m <= 200000; ++m) {
    const std::string error = check(static_cast<double>(m) / 1000.0);
    ASSERT_TRUE(error.empty()) << m << ": " << error;
  }
  std::mt19937_64 random(11);
  for (int i = 0; i < 1000000; ++i) {
    const int64_t limit = int64_t{1} << (random() % 50);  // up to 1.1e15 thousandths
    const auto m = static_cast<int64_t>(random() % static_cast<uint64_t>(limit)) * (random() % 2 == 0 ? 1 : -1);
    const double value = static_cast<double>(m) / 1000.0;
    for (const double v : {value, std::nextafter(value, 1e300), std::nextafter(value, -1e300)}) {
      const std::string error = check(v);
      ASSERT_TRUE(error.empty()) << m << ": " << error;
    }
  }
  for (const double value : {999999999999.999, 1e12, -1e12, 1e12 - 0.001, 0.001, -0.001, -0.0}) {
    EXPECT_EQ(check(value), "") << value;
  }
}

TEST(ProfilerOutputRender, IntegersAtTheirExtremes) {
  for (const int64_t value :
       {std::numeric_limits<int64_t>::min(), int64_t{-1}, int64_t{0}, std::numeric_limits<int64_t>::max()}) {
    std::string ours;
    appendJsonInt(&ours, value);
    EXPECT_EQ(ours, nlohmann::json(value).dump());
  }
  std::string ours;
  appendJsonUint(&ours, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ours, nlohmann::json(std::numeric_limits<uint64_t>::max()).dump());
}

TEST(ProfilerOutputRender, RandomRecordsRenderAsTheNlohmannRenderersDid) {
  Random random(3);
  for (int i = 0; i < 5000; ++i) {
    const Identity identity = randomIdentity(random);
    const OperationRecord r = randomRecord(random);
    const uint64_t recordsDropped = random.chance(20) ? random.integer<uint64_t>() : 0;
    ASSERT_EQ(renderCollectiveLine(identity, r, recordsDropped), oracle::collectiveLine(identity, r, recordsDropped))
        << "record " << i;
    if (r.kind != RecordKind::Lost) {
      ASSERT_EQ(renderNetLine(identity, r), oracle::netLine(identity, r)) << "record " << i;
    }
    DroppedNotice notice = lostNotice(r);
    notice.records = random.chance(50) ? random.integer<uint64_t>() : 0;
    ASSERT_EQ(renderDroppedLine(identity, notice), oracle::droppedLine(identity, notice)) << "record " << i;
  }
}

TEST(ProfilerOutputRender, RandomRecordsGiveTheTraceTheNlohmannRendererGave) {
  Random random(4);
  for (int run = 0; run < 50; ++run) {
    const Identity identity = randomIdentity(random);
    TraceRenderer ours(identity);
    oracle::Trace theirs(identity);
    std::string a, b;
    for (int i = 0; i < 60; ++i) {
      OperationRecord r = randomRecord(random);
      if (random.chance(50)) r.comm = 7;  // lanes named before, and new ones
      ours.append(r, &a);
      theirs.append(r, &b);
      ASSERT_EQ(a, b) << "run " << run << " record " << i;
    }
  }
}

}  // namespace
}  // namespace railtune::profiler::output
