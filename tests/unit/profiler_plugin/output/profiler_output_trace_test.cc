// The Chrome trace (profiler_plugin/output/trace.h): the golden rendering of the example records,
// JSON validity when closed, the array form when cut off (a killed job), and lanes per communicator
// and channel.
// Regenerate the golden after an intended change:
//   RAILTUNE_UPDATE_GOLDEN=1 ctest --test-dir <build> -R '^unit\.ProfilerOutputTrace'
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profiler_plugin/output/trace.h"
#include "tests/unit/profiler_plugin/output/profiler_output_examples.h"
#include "tests/unit/profiler_plugin/output/profiler_output_golden.h"

namespace railtune::profiler::output {
namespace {

using nlohmann::json;
using railtune::profiler::testing::exampleIdentity;
using railtune::profiler::testing::exampleRecords;

std::string exampleTrace(bool close) {
  TraceRenderer renderer(exampleIdentity());
  std::string text = "[\n";  // the writer opens the array when it creates the file
  for (const OperationRecord& r : exampleRecords()) renderer.append(r, &text);
  return close ? text + TraceRenderer::kClose : text;
}

TEST(ProfilerOutputTrace, MatchesTheGoldenTrace) {
  railtune::profiler::testing::compareGolden(std::string(RAILTUNE_PROFILE_GOLDEN) + "/trace.json", exampleTrace(true));
}

TEST(ProfilerOutputTrace, ClosedTraceIsAJsonArrayOfEvents) {
  const json trace = json::parse(exampleTrace(true));
  ASSERT_TRUE(trace.is_array());
  std::map<std::string, int> phases;
  std::set<std::string> laneNames;
  for (const json& e : trace) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    EXPECT_EQ(e["pid"], 4121);
    ++phases[e["ph"].get<std::string>()];
    if (e["ph"] == "X") {
      EXPECT_TRUE(e["ts"].is_number_integer() && e["dur"].is_number() && e["tid"].is_number_integer()) << e.dump();
    }
    if (e["name"] == "thread_name") laneNames.insert(e["args"]["name"].get<std::string>());
  }
  EXPECT_EQ(phases["X"], 4 + 2 + 1 + 1) << "4 operations, AllReduce's 2 channels, AllGather's and Send's 1";
  EXPECT_EQ(phases["i"], 2) << "the hang and its stuck channel";
  EXPECT_TRUE(laneNames.contains("comm 5d3c0f1e2a4b6c7d rank 3"));
  EXPECT_TRUE(laneNames.contains("comm 5d3c0f1e2a4b6c7d rank 3 ch 1"));
  EXPECT_TRUE(laneNames.contains("comm unknown rank -1"));
}

// Profiler v7: the operation's args carry the tag, path and kernel; its timed phases are slices on the
// communicator's phases lane, back to back from the operation's start.
TEST(ProfilerOutputTrace, KernelPhasesAreSlicesOnTheirOwnLane) {
  TraceRenderer renderer(exampleIdentity());
  std::string text = "[\n";
  for (const OperationRecord& r : railtune::profiler::testing::exampleV7Records()) renderer.append(r, &text);
  const json trace = json::parse(text + TraceRenderer::kClose);
  std::vector<json> slices;
  std::set<std::string> laneNames;
  for (const json& e : trace) {
    if (e["name"] == "thread_name") laneNames.insert(e["args"]["name"].get<std::string>());
    if (e.value("cat", "") == "phase") slices.push_back(e);
    if (e.value("cat", "") == "collective") {
      EXPECT_EQ(e["args"]["user_tag"], 2);
      EXPECT_EQ(e["args"]["path"], "symmetric");
      EXPECT_EQ(e["args"]["kernel_variant"], "AGxLL_R");
    }
    if (e.value("cat", "") == "p2p") {
      EXPECT_EQ(e["args"]["user_tag"].get<uint64_t>(), UINT64_MAX);
    }
  }
  EXPECT_TRUE(laneNames.contains("comm 5d3c0f1e2a4b6c7d rank 3 phases"));
  ASSERT_EQ(slices.size(), 4u) << "the AllGather's three phases, the Recv's compute";
  EXPECT_EQ(slices[0]["name"], "initial_sync");
  EXPECT_EQ(slices[1]["name"], "compute");
  EXPECT_EQ(slices[1]["ts"].get<int64_t>() - slices[0]["ts"].get<int64_t>(), 12);  // after initial_sync's 12.5 us
  EXPECT_DOUBLE_EQ(slices[1]["dur"].get<double>(), 24.0);
  EXPECT_EQ(slices[3]["name"], "compute");
}

TEST(ProfilerOutputTrace, CutOffTraceIsStillTheArrayForm) {
  const std::string cut = exampleTrace(false);
  EXPECT_FALSE(json::accept(cut)) << "an unclosed array is not JSON";
  ASSERT_EQ(cut.substr(0, 2), "[\n");
  EXPECT_NE(cut.back(), ',') << "a separator only ever precedes an event";
  EXPECT_TRUE(json::parse(cut + "]").is_array()) << "what the viewers do with a missing bracket";
}

TEST(ProfilerOutputTrace, ContinuedTraceSeparatesItsFirstEvent) {
  TraceRenderer renderer(exampleIdentity());
  renderer.continueExisting();
  std::string text;
  renderer.append(exampleRecords()[3], &text);
  EXPECT_EQ(text.substr(0, 2), ",\n");
  const json trace = json::parse("[{}" + text + "]");
  EXPECT_EQ(trace.size(), 4u) << trace.dump();  // {}, lane name and order, Broadcast
}

}  // namespace
}  // namespace railtune::profiler::output
