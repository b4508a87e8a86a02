// getEnv from many threads at once, as NCCL calls it (its proxy, bootstrap and user threads all read variables):
// every answer whole and right, and a finalize or re-init beside the readers never tears a string. Part of the TSan
// set (RAILTUNE_TESTS=threads).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/env_plugin_fixture.h"

namespace railtune::testing {
namespace {

#ifdef RAILTUNE_TESTS_UNDER_EMULATOR
constexpr int kRounds = 500;
#else
constexpr int kRounds = 5000;
#endif
constexpr int kThreads = 8;
const std::string kHca = "=mlx5_0:1:0,mlx5_1:1:1,mlx5_2:1:2,mlx5_3:1:3,mlx5_4:1:4,mlx5_5:1:5,mlx5_6:1:6,mlx5_7:1:7";

class EnvPluginThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(lib_.loaded()) << dlerror();
    setCaseInputs(vars_,
                  {std::string(RAILTUNE_SOURCE_DIR) + "/docs/formats/rail-map.example.json", "dgx-h100-01", "", ""});
    vars_.set("NCCL_DEBUG", "WARN");
    // The user's environment is part of the case: a name set there answers the user's value, table or none.
    hca_ = expectedAnswer("NCCL_IB_HCA", kHca);
    merge_ = expectedAnswer("NCCL_NET_MERGE_POLICY", "RAIL");
    ASSERT_EQ(lib_.v2()->init(2, 31, 2, "", captureLogger), ncclSuccess);
  }
  void TearDown() override { lib_.v2()->finalize(); }

  // A table name's answer: the expected one, or, while a finalize runs beside the reader (`tableMayBeGone`), the
  // environment's own (NULL where the user does not set it).
  static bool right(const char* answer, const std::string& expected, const char* name, bool tableMayBeGone) {
    if (answer != nullptr && expected == answer) return true;
    return tableMayBeGone && answer == std::getenv(name);
  }
  // One reader's rounds.
  int wrongAnswers(bool tableMayBeGone) const {
    const auto getEnv = lib_.v2()->getEnv;
    int wrong = 0;
    for (int i = 0; i < kRounds; ++i) {
      if (!right(getEnv("NCCL_IB_HCA"), hca_, "NCCL_IB_HCA", tableMayBeGone)) ++wrong;
      if (!right(getEnv("NCCL_NET_MERGE_POLICY"), merge_, "NCCL_NET_MERGE_POLICY", tableMayBeGone)) ++wrong;
      const char* debug = getEnv("NCCL_DEBUG");
      if (debug == nullptr || std::strcmp(debug, "WARN") != 0) ++wrong;
      if (getEnv("NCCL_NOT_SET_BY_ANYONE") != nullptr || getEnv(nullptr) != nullptr) ++wrong;
    }
    return wrong;
  }

  EnvPluginLibrary lib_;
  ScopedVars vars_;
  std::string hca_, merge_;  // what getEnv answers for them while the table is there
};

TEST_F(EnvPluginThreadsTest, ManyThreadsGetWholeRightAnswers) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&] { wrong += wrongAnswers(false); });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(EnvPluginThreadsTest, FinalizeAndReinitBesideReadersNeverTearAString) {
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&] { wrong += wrongAnswers(true); });
  for (int i = 0; i < 20; ++i) {
    lib_.v2()->finalize();
    lib_.v2()->init(2, 31, 2, "", captureLogger);
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(LogCapture::instance().warnings().size(), 0u) << LogCapture::instance().dump();
}

}  // namespace
}  // namespace railtune::testing
