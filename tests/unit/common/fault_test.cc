#include "common/fault.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/fake_env.h"

namespace railtune {
namespace {

using testing::fakeEnv;
using testing::fakeEnvVars;

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fakeEnvVars().clear();
    disarmAllFaults();
  }
  void TearDown() override {
    fakeEnvVars().clear();
    disarmAllFaults();
  }
};

std::vector<std::string> allowedFaultItems() {
  std::vector<std::string> items;
  std::string item;
  for (const char* p = findParam("RAILTUNE_INJECT_FAULT")->allowed; *p; ++p) {
    if (*p == '|') {
      items.push_back(item);
      item.clear();
    } else {
      item += *p;
    }
  }
  items.push_back(item);
  return items;
}

TEST_F(FaultTest, NamesRoundTripAndMatchTheParameterTable) {
  const std::vector<std::string> allowed = allowedFaultItems();
  ASSERT_EQ(allowed.size(), static_cast<size_t>(FaultSite::Count));
  for (uint32_t i = 0; i < static_cast<uint32_t>(FaultSite::Count); ++i) {
    const auto site = static_cast<FaultSite>(i);
    EXPECT_EQ(allowed[i], faultSiteName(site));
    EXPECT_EQ(parseFaultSite(faultSiteName(site)), site);
  }
  EXPECT_FALSE(parseFaultSite("tuner.nope").has_value());
  EXPECT_FALSE(parseFaultSite("").has_value());
}

TEST_F(FaultTest, NothingIsArmedWithoutTheVariable) {
  EXPECT_EQ(armFaultsFromEnvironment(fakeEnv), "");
  for (uint32_t i = 0; i < static_cast<uint32_t>(FaultSite::Count); ++i) {
    EXPECT_FALSE(faultArmed(static_cast<FaultSite>(i)));
    EXPECT_NO_THROW(injectFaultAt(static_cast<FaultSite>(i)));
  }
}

TEST_F(FaultTest, ArmsExactlyTheNamedSites) {
  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "tuner.getCollInfo,net.isend";
  EXPECT_EQ(armFaultsFromEnvironment(fakeEnv), "");
  EXPECT_TRUE(faultArmed(FaultSite::TunerGetCollInfo));
  EXPECT_TRUE(faultArmed(FaultSite::NetIsend));
  EXPECT_FALSE(faultArmed(FaultSite::TunerInit));
  EXPECT_FALSE(faultArmed(FaultSite::NetIrecv));
  try {
    injectFaultAt(FaultSite::NetIsend);
    FAIL() << "armed site did not throw";
  } catch (const InjectedFault& fault) {
    EXPECT_EQ(fault.site(), FaultSite::NetIsend);
    EXPECT_NE(std::string(fault.what()).find("net.isend"), std::string::npos);
  }
}

TEST_F(FaultTest, RearmingReplacesThePreviousSet) {
  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "tuner.init";
  armFaultsFromEnvironment(fakeEnv);
  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "profiler.init";
  armFaultsFromEnvironment(fakeEnv);
  EXPECT_FALSE(faultArmed(FaultSite::TunerInit));
  EXPECT_TRUE(faultArmed(FaultSite::ProfilerInit));
  fakeEnvVars().clear();
  armFaultsFromEnvironment(fakeEnv);
  EXPECT_FALSE(faultArmed(FaultSite::ProfilerInit));
}

TEST_F(FaultTest, AnUnknownSiteIsReportedAndArmsNothing) {
  fakeEnvVars()["RAILTUNE_INJECT_FAULT"] = "tuner.init,tuner.sometimes";
  const std::string error = armFaultsFromEnvironment(fakeEnv);
  EXPECT_NE(error.find("RAILTUNE_INJECT_FAULT"), std::string::npos) << error;
  EXPECT_NE(error.find("tuner.sometimes"), std::string::npos) << error;
  EXPECT_FALSE(faultArmed(FaultSite::TunerInit));
}

}  // namespace
}  // namespace railtune
