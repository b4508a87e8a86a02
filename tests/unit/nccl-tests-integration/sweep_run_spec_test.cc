// railtune_sweep_run's request checks (nccl-tests-integration/run/spec.h): what `railtune sweep run` refuses
// and resolves before its first run, called without the command line, on the stand-in nccl-tests binary of
// tests/data/sweep.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "nccl-tests-integration/run/spec.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

const std::string kBinary = std::string(RAILTUNE_SWEEP_DATA) + "/fake_all_reduce_perf";

SweepRequest request() {
  SweepRequest r;
  r.output = "unused";
  r.command = {kBinary, "-b", "8", "-e", "1M"};
  return r;
}

// The message makeSpec throws, or "" when it accepts the request.
std::string refusal(const SweepRequest& r) {
  std::vector<std::string> notes;
  try {
    makeSpec(r, notes);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

class SweepRunSpecFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("railtune_sweep_spec_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(SweepRunSpec, ResolvesTheBinaryTheTestAndTheMatrix) {
  SweepRequest r = request();
  r.algos = "Ring, any,nvls";
  r.protos = "LL128,simple";
  r.channels = "0,16";
  r.repeats = 2;
  std::vector<std::string> notes;
  const SweepSpec spec = makeSpec(r, notes);
  EXPECT_EQ(spec.binary, fs::absolute(kBinary).lexically_normal().string());
  EXPECT_EQ(spec.test, "all_reduce_perf");  // from the name: fake_all_reduce_perf
  EXPECT_EQ(spec.args, (std::vector<std::string>{"-b", "8", "-e", "1M"}));
  EXPECT_EQ(spec.algorithms, (std::vector<std::string>{"ring", "", "nvls"}));
  EXPECT_EQ(spec.protocols, (std::vector<std::string>{"ll128", "simple"}));
  EXPECT_EQ(spec.channels, (std::vector<int>{0, 16}));
  EXPECT_EQ(spec.repeats, 2);
  EXPECT_TRUE(notes.empty());
}

TEST(SweepRunSpec, RefusesEachBadOptionNamingIt) {
  SweepRequest r = request();
  r.command.clear();
  EXPECT_EQ(refusal(r), "the nccl-tests binary is missing: ... -- all_reduce_perf -b 8 -e 16G");
  r = request();
  r.repeats = 0;
  EXPECT_EQ(refusal(r), "--repeats must be at least 1");
  r = request();
  r.timeout = -1;
  EXPECT_EQ(refusal(r), "--timeout must not be negative");
  r = request();
  r.algos = "ring,,tree";
  EXPECT_EQ(refusal(r), "--algos ring,,tree: an empty item");
  r = request();
  r.algos = "rings";
  EXPECT_EQ(refusal(r),
            "--algos: unknown algorithm 'rings' (ring, tree, nvls, nvls_tree, pat, collnet_direct, collnet_chain, "
            "or any)");
  r = request();
  r.protos = "ll64";
  EXPECT_EQ(refusal(r), "--protos: unknown protocol 'll64' (ll, ll128, simple, or any)");
  r = request();
  r.channels = "65";
  EXPECT_EQ(refusal(r), "--channels: '65' is not a channel count from 1 to 64 (or 0: NCCL's own)");
  r = request();
  r.chunkSizes = "2G";
  EXPECT_EQ(refusal(r), "--chunk-sizes: '2G' is not a size from 1 to 1G (e.g. 128K, 512K, 1M)");
  r = request();
  r.command.push_back("-J");
  EXPECT_EQ(refusal(r), "-J: the sweep gives each run its own -J file (--json on|off|auto)");
  r = request();
  r.launcher = "srun 'unclosed";
  EXPECT_EQ(refusal(r), "--launcher: a ' is not closed");
  r = request();
  r.launcher = "railtune-no-such-launcher -N 2";
  EXPECT_EQ(refusal(r), "--launcher: railtune-no-such-launcher not found in PATH");
}

TEST(SweepRunSpec, TheTestFromTheOptionOrTheName) {
  SweepRequest r = request();
  r.test = "all_gather";
  std::vector<std::string> notes;
  EXPECT_EQ(makeSpec(r, notes).test, "all_gather_perf");
  r.test = "all_things";
  EXPECT_EQ(refusal(r), "--test all_things: not an nccl-tests program (all_reduce_perf, all_gather_perf, ...)");
  r = request();
  r.command.front() = std::string(RAILTUNE_SWEEP_DATA) + "/fake_launcher";
  EXPECT_EQ(refusal(r),
            r.command.front() + ": cannot tell the nccl-tests program from the name; pass --test all_reduce_perf");
}

TEST(SweepRunSpec, ABinaryOrPluginOnlyTheLaunchersHostsHaveIsANote) {
  SweepRequest r = request();
  r.command.front() = "railtune_no_such_all_reduce_perf";
  EXPECT_EQ(refusal(r), "railtune_no_such_all_reduce_perf: not found in PATH");
  r.launcher = std::string(RAILTUNE_SWEEP_DATA) + "/fake_launcher -n 2";
  r.chunkSizes = "512K";
  r.tunerPlugin = "/nowhere/libnccl-tuner-railtune.so";
  std::vector<std::string> notes;
  const SweepSpec spec = makeSpec(r, notes);
  EXPECT_EQ(spec.binary, "railtune_no_such_all_reduce_perf");  // as given: the launcher finds it
  EXPECT_EQ(spec.launcher.back(), "2");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "railtune_no_such_all_reduce_perf is not found here: the launcher must find it where it runs");
  EXPECT_EQ(notes[1],
            "the tuner plugin /nowhere/libnccl-tuner-railtune.so is not found here: the ranks must find it there");
  r.launcher.clear();
  r.command.front() = kBinary;
  r.tunerPlugin.clear();
  r.defaultTunerPlugin = "/nowhere/lib/libnccl-tuner-railtune.so";
  EXPECT_EQ(refusal(r),
            "--chunk-sizes needs the railtune tuner plugin: /nowhere/lib/libnccl-tuner-railtune.so does not exist "
            "(--tuner-plugin PATH)");
}

TEST_F(SweepRunSpecFolder, ADryRunMakesNoFolderAndAsksNothing) {
  SweepRequest r = request();
  r.output = dir_.string() + "/";
  r.dryRun = true;
  r.protos = "simple";
  const PreparedSweep sweep = prepareSweep(r);
  EXPECT_FALSE(fs::exists(dir_));
  EXPECT_EQ(sweep.spec.dir, fs::absolute(dir_).lexically_normal().string());
  EXPECT_FALSE(sweep.spec.json);
  EXPECT_EQ(sweep.jsonNote,
            "--json auto: -J is added when `" + sweep.spec.binary + " -h` lists it (not probed in a dry run)");
  EXPECT_EQ(sweep.plan.runs.front().id, "allreduce.default.r0");
  EXPECT_TRUE(runsDoneBefore(sweep, false).empty());  // no manifest yet
}

TEST_F(SweepRunSpecFolder, ARealRunMakesTheFolderAndRemovesForcingVariables) {
  SweepRequest r = request();
  r.output = dir_.string();
  r.json = "off";
  ::setenv("NCCL_PROTO", "LL", 1);
  const PreparedSweep sweep = prepareSweep(r);
  ::unsetenv("NCCL_PROTO");
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_EQ(sweep.unset, (std::vector<std::string>{"NCCL_PROTO"}));
  ASSERT_FALSE(sweep.notes.empty());
  EXPECT_EQ(sweep.notes.front(), "NCCL_PROTO=LL is removed from every run's environment (the sweep forces it per run)");
  EXPECT_TRUE(sweep.jsonNote.empty());
}

TEST_F(SweepRunSpecFolder, AnOutputThatIsAFileIsRefused) {
  std::ofstream(dir_.string()) << "x";
  try {
    prepareOutputFolder(dir_.string(), true);
    ADD_FAILURE() << "a file taken for the folder";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "-o " + dir_.string() + " exists and is not a folder");
  }
  fs::remove(dir_);
}

}  // namespace
}  // namespace railtune::sweep
