// Configuration files that are not regular files, through the real .so files and the emulator: a FIFO
// named by RAILTUNE_TUNER_CONFIG, NCCL_TUNER_CONFIG_FILE, RAILTUNE_RAIL_MAP or RAILTUNE_NET_ADDRESS_FILE
// returns from init at once (a watchdog ends the test should it stall); a directory is the documented
// bad configuration (one WARN, NCCL decides; an init error under RAILTUNE_STRICT=1); and a bad rules
// file is one WARN per process however many communicators meet it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "emulator/net_driver.h"
#include "emulator/tuner_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing {
namespace {

const char* gConfigFileWatchdogWhat = "";

void configFileWatchdogFired(int) {
  const char prefix[] = "\nwatchdog: did not return (a configuration file blocked it): ";
  (void)!write(STDERR_FILENO, prefix, sizeof(prefix) - 1);
  (void)!write(STDERR_FILENO, gConfigFileWatchdogWhat, std::strlen(gConfigFileWatchdogWhat));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(1);
}

// Ends the test process with a message if the guarded call has not returned within `seconds`: a
// regression fails instead of hanging the suite.
class ConfigFileWatchdog {
 public:
  ConfigFileWatchdog(unsigned seconds, const char* what) {
    gConfigFileWatchdogWhat = what;
    struct sigaction action {};
    action.sa_handler = configFileWatchdogFired;
    sigemptyset(&action.sa_mask);
    sigaction(SIGALRM, &action, &previous_);
    alarm(seconds);
  }
  ~ConfigFileWatchdog() {
    alarm(0);
    sigaction(SIGALRM, &previous_, nullptr);
  }
  ConfigFileWatchdog(const ConfigFileWatchdog&) = delete;
  ConfigFileWatchdog& operator=(const ConfigFileWatchdog&) = delete;

 private:
  struct sigaction previous_ {};
};

constexpr ncclNvlDomainInfo_v5_t kConfigFileDomains{2, 4, 4};

class ConfigFileFixture : public EmulatedTest {
 protected:
  void SetUp() override {
    EmulatedTest::SetUp();
    for (const char* v : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE", "RAILTUNE_TUNER_MODEL",
                          "RAILTUNE_RAIL_MAP", "RAILTUNE_NET_ADDRESS_FILE", "RAILTUNE_NET_TRANSPORT"})
      env.unset(v);
    dir = std::filesystem::temp_directory_path() / ("railtune-e2e-config-file-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string fifo(const std::string& name) {
    const std::string path = (dir / name).string();
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path << ": " << std::strerror(errno);
    return path;
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  size_t countLogged(const std::string& text) {
    const std::string log = pluginLogText();
    size_t count = 0;
    for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++count;
    return count;
  }
  std::filesystem::path dir;
};

class ConfigFileTunerTest : public ConfigFileFixture {
 protected:
  void SetUp() override {
    ConfigFileFixture::SetUp();
    binding = emu::Loader::bindVersion(emu::PluginKind::Tuner, pluginPath("tuner"), 6);
    ASSERT_TRUE(binding);
    constants = emu::defaultTunerConstants(emu::NcclBehaviour::V2_30);
  }
  ncclResult_t init(emu::TunerDriver& driver, uint64_t commId) {
    ConfigFileWatchdog watchdog(20, "the tuner's init");
    return driver.init(commId, 8, 2, kConfigFileDomains, &constants);
  }
  // NCCL's table comes back untouched: the tuner leaves the decision to NCCL.
  static bool leavesItToNccl(emu::TunerDriver& driver) {
    emu::CostTable table, before;
    for (int a = 0; a < NCCL_NUM_ALGORITHMS; ++a)
      for (int p = 0; p < NCCL_NUM_PROTOCOLS; ++p) table[a][p] = 3.0f + static_cast<float>(a * 3 + p);
    std::memcpy(before, table, sizeof(table));
    int nChannels = 0;
    EXPECT_EQ(driver.getCollInfo(ncclFuncAllReduce, 4096, 1, table, 0, &nChannels), ncclSuccess);
    return std::memcmp(before, table, sizeof(table)) == 0 && nChannels == 0;
  }
  emu::Binding binding;
  ncclTunerConstants_v5_t constants;
};

TEST_F(ConfigFileTunerTest, AFifoAsRulesReturnsFromInitWithOneWarning) {
  const std::string path = fifo("rules.fifo");
  for (const char* variable : {"RAILTUNE_TUNER_CONFIG", "NCCL_TUNER_CONFIG_FILE"}) {
    SCOPED_TRACE(variable);
    env.unset("RAILTUNE_TUNER_CONFIG");
    env.set(variable, path);
    emu::TunerDriver driver(binding);
    ASSERT_EQ(init(driver, 0xf1f0), ncclSuccess) << pluginLogText();
    EXPECT_TRUE(leavesItToNccl(driver));
    EXPECT_EQ(countLogged(std::string(variable) + "=" + path + ": is a FIFO, not a regular file"), 1u)
        << pluginLogText();
  }
  EXPECT_EQ(pluginWarnings().size(), 2u) << "one per variable\n" << pluginLogText();
}

TEST_F(ConfigFileTunerTest, AFifoAsRailMapReturnsFromInitWithOneWarning) {
  const std::string path = fifo("rail-map.fifo");
  env.set("RAILTUNE_RAIL_MAP", path);
  emu::TunerDriver driver(binding);
  ASSERT_EQ(init(driver, 0xf1f1), ncclSuccess) << pluginLogText();
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("RAILTUNE_RAIL_MAP: " + path + ": is a FIFO, not a regular file"), std::string::npos)
      << warnings[0];
}

TEST_F(ConfigFileTunerTest, ADirectoryAsRulesIsOneWarningAndNoRules) {
  env.set("RAILTUNE_TUNER_CONFIG", dir.string());
  emu::TunerDriver driver(binding);
  ASSERT_EQ(init(driver, 0xd1), ncclSuccess) << pluginLogText();
  EXPECT_TRUE(leavesItToNccl(driver));
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("RAILTUNE_TUNER_CONFIG=" + dir.string() + ": is a directory, not a regular file"),
            std::string::npos)
      << warnings[0];
  EXPECT_EQ(countLogged("0 rules"), 0u) << "a directory is not an empty rules file\n" << pluginLogText();
}

TEST_F(ConfigFileTunerTest, ADirectoryAsRulesFailsInitUnderStrict) {
  env.set("RAILTUNE_TUNER_CONFIG", dir.string());
  env.set("RAILTUNE_STRICT", "1");
  emu::TunerDriver driver(binding);
  EXPECT_NE(init(driver, 0xd2), ncclSuccess);
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find("is a directory, not a regular file"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("RAILTUNE_STRICT=1"), std::string::npos) << warnings[0];
}

TEST_F(ConfigFileTunerTest, ABadRulesFileIsOneWarningPerProcess) {
  env.set("RAILTUNE_TUNER_CONFIG", write("bad.conf", "allreduce,0,1,ring,simpel,-1,-1,-1\n"));
  std::vector<std::unique_ptr<emu::TunerDriver>> communicators;
  for (uint64_t comm = 1; comm <= 5; ++comm) {
    communicators.push_back(std::make_unique<emu::TunerDriver>(binding));
    ASSERT_EQ(init(*communicators.back(), comm), ncclSuccess) << pluginLogText();
    EXPECT_TRUE(leavesItToNccl(*communicators.back())) << "communicator " << comm;
  }
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << "five communicators, one WARN\n" << pluginLogText();
  EXPECT_NE(warnings[0].find("bad.conf:1:"), std::string::npos) << warnings[0];
  EXPECT_EQ(countLogged("(reported at WARN once per process)"), 4u) << pluginLogText();
}

TEST_F(ConfigFileTunerTest, UnderStrictEveryFailingInitSaysWhy) {
  env.set("RAILTUNE_TUNER_CONFIG", write("bad.conf", "allreduce,0,1,ring,simpel,-1,-1,-1\n"));
  env.set("RAILTUNE_STRICT", "1");
  for (uint64_t comm = 1; comm <= 3; ++comm) {
    emu::TunerDriver driver(binding);
    EXPECT_NE(init(driver, comm), ncclSuccess);
  }
  EXPECT_EQ(pluginWarnings().size(), 3u) << pluginLogText();
}

// The net plugin on a host without RDMA, where it would otherwise carry the traffic (loopback).
class ConfigFileNetTest : public ConfigFileFixture {
 protected:
  void SetUp() override {
    ConfigFileFixture::SetUp();
    env.set("NCCL_SOCKET_IFNAME", "lo");
    const std::filesystem::path root = dir / "sysfs";
    std::filesystem::create_directories(root / "sys/class/net/lo");
    std::ofstream(root / "sys/class/net/lo/operstate") << "unknown\n";
    env.set("RAILTUNE_NET_SYSFS_ROOT", root.string());
  }
  emu::NetSelection select() {
    ConfigFileWatchdog watchdog(20, "the net plugin's init");
    emu::Loader loader(emu::NcclBehaviour::V2_30, emu::EnvSource::fromMap({{"NCCL_NET_PLUGIN", pluginPath("net")}}));
    std::vector<emu::NetCandidate> candidates = loader.openNetList();
    return emu::selectNet(loader, candidates, 0x5e1);
  }
};

TEST_F(ConfigFileNetTest, AFifoAsRailMapStepsAsideInsteadOfStalling) {
  const std::string path = fifo("rail-map.fifo");
  env.set("RAILTUNE_RAIL_MAP", path);
  const emu::NetSelection selection = select();
  EXPECT_NE(selection.chosenName, "railtune");
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find(path + ": is a FIFO, not a regular file"), std::string::npos) << warnings[0];
}

TEST_F(ConfigFileNetTest, AFifoAsAddressFileStepsAsideInsteadOfStalling) {
  const std::string path = fifo("addresses.fifo");
  env.set("RAILTUNE_NET_ADDRESS_FILE", path);
  const emu::NetSelection selection = select();
  EXPECT_NE(selection.chosenName, "railtune");
  const std::vector<std::string> warnings = pluginWarnings();
  ASSERT_EQ(warnings.size(), 1u) << pluginLogText();
  EXPECT_NE(warnings[0].find(path + ": cannot use the address file: is a FIFO"), std::string::npos) << warnings[0];
}

// The net plugin digests the tuner's rules too (its handshake): a FIFO there counts as no rules.
TEST_F(ConfigFileNetTest, AFifoAsTunerRulesDoesNotStallTheNetPlugin) {
  env.set("RAILTUNE_TUNER_CONFIG", fifo("rules.fifo"));
  emu::NetSelection selection = select();
  EXPECT_EQ(selection.chosenName, "railtune") << pluginLogText();
  ASSERT_NE(selection.driver, nullptr);
  EXPECT_EQ(selection.driver->finalize(), ncclSuccess);
}

}  // namespace
}  // namespace railtune::testing
