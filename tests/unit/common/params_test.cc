#include "common/params.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/fake_env.h"

namespace railtune {
namespace {

using testing::fakeEnv;
using testing::fakeEnvVars;

class ParamsTest : public ::testing::Test {
 protected:
  void SetUp() override { fakeEnvVars().clear(); }
  void TearDown() override { fakeEnvVars().clear(); }
};

TEST_F(ParamsTest, EveryVariableIsDeclaredOnceWithDocAndRailtunePrefix) {
  std::set<std::string> names;
  for (const ParamSpec& spec : allParams()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " declared twice";
    EXPECT_EQ(std::string(spec.name).rfind("RAILTUNE_", 0), 0u) << spec.name;
    EXPECT_GT(std::string(spec.doc).size(), 40u) << spec.name << " needs a real doc string";
    EXPECT_EQ(findParam(spec.name), &spec);
  }
  for (const char* required :
       {"RAILTUNE_STRICT", "RAILTUNE_HOST", "RAILTUNE_JOB_ID", "RAILTUNE_K8S_JOB", "RAILTUNE_INJECT_FAULT"}) {
    EXPECT_TRUE(names.count(required)) << required;
  }
  EXPECT_EQ(findParam("RAILTUNE_NO_SUCH"), nullptr);
}

TEST_F(ParamsTest, AVariableSetToNothingMeansUnset) {
  fakeEnvVars()["RAILTUNE_STRICT"] = "";
  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "  ";
  const ParamValue<bool> strict = readBool("RAILTUNE_STRICT", fakeEnv);
  EXPECT_TRUE(strict.ok()) << strict.error;
  EXPECT_TRUE(strict.fromDefault);
  EXPECT_FALSE(strict.value);
  const ParamValue<std::vector<std::string>> sites = readList("RAILTUNE_INJECT_FAULT", fakeEnv);
  EXPECT_TRUE(sites.ok()) << sites.error;
  EXPECT_TRUE(sites.value.empty());
}

TEST_F(ParamsTest, BoolTextAcceptsTheUsualSpellingsOnly) {
  bool value = false;
  for (const char* yes : {"1", "true", "TRUE", "yes", "On", " 1 "}) {
    value = false;
    EXPECT_TRUE(parseBoolText(yes, &value)) << yes;
    EXPECT_TRUE(value) << yes;
  }
  for (const char* no : {"0", "false", "No", "off"}) {
    value = true;
    EXPECT_TRUE(parseBoolText(no, &value)) << no;
    EXPECT_FALSE(value) << no;
  }
  for (const char* bad : {"", "2", "maybe", "truee", "-1"}) EXPECT_FALSE(parseBoolText(bad, &value)) << bad;
}

TEST_F(ParamsTest, IntTextRejectsTrailingGarbageAndOverflow) {
  int64_t value = 0;
  EXPECT_TRUE(parseIntText("42", &value));
  EXPECT_EQ(value, 42);
  EXPECT_TRUE(parseIntText("-7", &value));
  EXPECT_EQ(value, -7);
  EXPECT_TRUE(parseIntText("0x10", &value));
  EXPECT_EQ(value, 16);
  for (const char* bad : {"", "4k", "1.5", "99999999999999999999999"}) EXPECT_FALSE(parseIntText(bad, &value)) << bad;
}

TEST_F(ParamsTest, SplitListTrimsAndDropsEmptyItems) {
  EXPECT_EQ(splitList(" a, b ,,c,"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(splitList("").empty());
  EXPECT_TRUE(splitList(" , ").empty());
}

TEST_F(ParamsTest, UnsetBoolGivesTheDefault) {
  const ParamValue<bool> strict = readBool("RAILTUNE_STRICT", fakeEnv);
  EXPECT_TRUE(strict.ok());
  EXPECT_TRUE(strict.fromDefault);
  EXPECT_FALSE(strict.value);
}

TEST_F(ParamsTest, SetBoolIsParsed) {
  fakeEnvVars()["RAILTUNE_STRICT"] = "true";
  const ParamValue<bool> strict = readBool("RAILTUNE_STRICT", fakeEnv);
  EXPECT_TRUE(strict.ok());
  EXPECT_FALSE(strict.fromDefault);
  EXPECT_TRUE(strict.value);
}

TEST_F(ParamsTest, BadBoolIsRejectedNamingVariableAndValueAndKeepsDefault) {
  fakeEnvVars()["RAILTUNE_STRICT"] = "maybe";
  const ParamValue<bool> strict = readBool("RAILTUNE_STRICT", fakeEnv);
  EXPECT_FALSE(strict.ok());
  EXPECT_FALSE(strict.value);
  EXPECT_NE(strict.error.find("RAILTUNE_STRICT"), std::string::npos) << strict.error;
  EXPECT_NE(strict.error.find("'maybe'"), std::string::npos) << strict.error;
}

TEST_F(ParamsTest, StringIsReturnedUnchanged) {
  fakeEnvVars()["RAILTUNE_HOST"] = "node-17";
  const ParamValue<std::string> host = readString("RAILTUNE_HOST", fakeEnv);
  EXPECT_TRUE(host.ok());
  EXPECT_EQ(host.value, "node-17");
  EXPECT_FALSE(host.fromDefault);
}

TEST_F(ParamsTest, ListItemsAreCheckedAgainstTheAllowedSet) {
  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "tuner.init, net.isend";
  ParamValue<std::vector<std::string>> sites = readList("RAILTUNE_INJECT_FAULT", fakeEnv);
  EXPECT_TRUE(sites.ok()) << sites.error;
  EXPECT_EQ(sites.value, (std::vector<std::string>{"tuner.init", "net.isend"}));

  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "tuner.init,tuner.bogus";
  sites = readList("RAILTUNE_INJECT_FAULT", fakeEnv);
  EXPECT_FALSE(sites.ok());
  EXPECT_TRUE(sites.value.empty()) << "a rejected list must not be half-applied";
  EXPECT_NE(sites.error.find("RAILTUNE_INJECT_FAULT"), std::string::npos);
  EXPECT_NE(sites.error.find("tuner.bogus"), std::string::npos) << sites.error;
}

// The ranges the plugins and `railtune config` share, named here so that changing one is deliberate.
TEST_F(ParamsTest, EveryIntegerVariableHasTheRangeItsReaderNeeds) {
  const std::map<std::string, std::pair<int64_t, int64_t>> expected = {
      {"RAILTUNE_HANG_TIMEOUT", {0, 86400}},      {"RAILTUNE_PROFILE_OPERATIONS", {16, 1 << 20}},
      {"RAILTUNE_PROFILE_EVENTS", {16, 1 << 20}}, {"RAILTUNE_NET_STREAMS", {1, 16}},
      {"RAILTUNE_NET_TIMEOUT", {1, 3600}},        {"RAILTUNE_NET_QPS", {0, 128}},
  };
  size_t integers = 0;
  for (const ParamSpec& spec : allParams()) {
    if (spec.type != ParamType::Int) {
      EXPECT_EQ(spec.low, 0) << spec.name;
      EXPECT_EQ(spec.high, 0) << spec.name;
      continue;
    }
    ++integers;
    const auto it = expected.find(spec.name);
    ASSERT_NE(it, expected.end()) << spec.name << " has no expected range here";
    EXPECT_EQ(std::pair(spec.low, spec.high), it->second) << spec.name;
    int64_t defaultValue = -1;
    ASSERT_TRUE(parseIntText(spec.defaultValue, &defaultValue)) << spec.name;
    EXPECT_GE(defaultValue, spec.low) << spec.name;
    EXPECT_LE(defaultValue, spec.high) << spec.name;
  }
  EXPECT_EQ(integers, expected.size());
}

// Below, at and above each end of every range: the ends are accepted, one past them is rejected with a
// message naming the variable, the value and the range, and the default is kept.
TEST_F(ParamsTest, IntegersOutsideTheirRangeAreRejectedAndKeepTheDefault) {
  for (const ParamSpec& spec : allParams()) {
    if (spec.type != ParamType::Int) continue;
    int64_t defaultValue = 0;
    ASSERT_TRUE(parseIntText(spec.defaultValue, &defaultValue));
    for (const int64_t value : {spec.low - 1, spec.low, spec.low + 1, spec.high - 1, spec.high, spec.high + 1}) {
      fakeEnvVars()[spec.name] = std::to_string(value);
      const ParamValue<int64_t> read = readInt(spec.name, fakeEnv);
      const bool inside = value >= spec.low && value <= spec.high;
      EXPECT_EQ(read.ok(), inside) << spec.name << "=" << value << ": " << read.error;
      EXPECT_EQ(read.value, inside ? value : defaultValue) << spec.name << "=" << value;
      EXPECT_EQ(read.fromDefault, !inside) << spec.name << "=" << value;
      if (!inside) {
        const std::string want = std::string(spec.name) + "='" + std::to_string(value) + "': outside " +
                                 std::to_string(spec.low) + ".." + std::to_string(spec.high);
        EXPECT_EQ(read.error, want);
      }
    }
    fakeEnvVars().erase(spec.name);
  }
}

TEST_F(ParamsTest, AnIntegerThatDoesNotParseNamesTheRange) {
  fakeEnvVars()["RAILTUNE_NET_STREAMS"] = "many";
  const ParamValue<int64_t> streams = readInt("RAILTUNE_NET_STREAMS", fakeEnv);
  EXPECT_EQ(streams.error, "RAILTUNE_NET_STREAMS='many': expected an integer from 1 to 16");
  EXPECT_EQ(streams.value, 2);
}

TEST_F(ParamsTest, ListItemsIgnoreCaseAndComeBackAsTheTableSpellsThem) {
  fakeEnvVars()["RAILTUNE_PROFILE_MASK"] = "Coll, PROXYSTEP";
  ParamValue<std::vector<std::string>> mask = readList("RAILTUNE_PROFILE_MASK", fakeEnv);
  EXPECT_TRUE(mask.ok()) << mask.error;
  EXPECT_EQ(mask.value, (std::vector<std::string>{"coll", "proxystep"}));

  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "TUNER.GETCOLLINFO";
  const ParamValue<std::vector<std::string>> sites = readList("RAILTUNE_INJECT_FAULT", fakeEnv);
  EXPECT_EQ(sites.value, (std::vector<std::string>{"tuner.getCollInfo"})) << sites.error;

  fakeEnvVars()["RAILTUNE_PROFILE_MASK"] = "garbage";
  mask = readList("RAILTUNE_PROFILE_MASK", fakeEnv);
  EXPECT_FALSE(mask.ok());
  EXPECT_EQ(mask.value, (std::vector<std::string>{"default"}));
  EXPECT_NE(mask.error.find("RAILTUNE_PROFILE_MASK='garbage': unknown item 'garbage'"), std::string::npos)
      << mask.error;
}

TEST_F(ParamsTest, ReadingWithTheWrongTypeOrAnUnknownNameIsAnError) {
  EXPECT_FALSE(readInt("RAILTUNE_STRICT", fakeEnv).ok());
  EXPECT_FALSE(readBool("RAILTUNE_HOST", fakeEnv).ok());
  EXPECT_FALSE(readBool("RAILTUNE_NO_SUCH", fakeEnv).ok());
  EXPECT_FALSE(readBool(nullptr, fakeEnv).ok());
}

TEST_F(ParamsTest, MarkdownDocumentsEveryVariableInTableOrder) {
  const std::string md = renderConfigMarkdown();
  size_t previous = 0;
  for (const ParamSpec& spec : allParams()) {
    const size_t at = md.find(std::string("## `") + spec.name + "`");
    ASSERT_NE(at, std::string::npos) << spec.name;
    EXPECT_GT(at, previous) << spec.name << " out of table order";
    previous = at;
  }
  EXPECT_NE(md.find("Testing only"), std::string::npos) << "RAILTUNE_INJECT_FAULT must be marked as testing-only";
  EXPECT_NE(md.find("`tuner.getCollInfo`"), std::string::npos) << "fault sites listed";
  EXPECT_EQ(md, renderConfigMarkdown()) << "deterministic";
}

}  // namespace
}  // namespace railtune
