// The one reader of user-named files (common/regular_file.h): a regular file is read whole up to its
// cap; a directory, a FIFO, a device or a socket is refused, naming the path and what it is, and a
// FIFO without a writer never blocks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "common/config_digest.h"
#include "common/regular_file.h"
#include "formats/rail_map.h"
#include "formats/tuner_rules/rules_file.h"
#include "tests/support/fake_env.h"
#include "tests/support/unprivileged.h"

namespace railtune {
namespace {

namespace fs = std::filesystem;

class RegularFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-regular-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_ / "unreadable", fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string fifo(const std::string& name) {
    const std::string path = (dir_ / name).string();
    EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path << ": " << std::strerror(errno);
    return path;
  }
  fs::path dir_;
};

// Runs `read` on another thread; a reader that blocks on the FIFO (the bug this guards against) is
// released by opening the FIFO for writing, so that a regression fails the test instead of hanging it.
template <typename Result>
Result withoutBlockingOn(const std::string& fifoPath, std::future<Result> pending) {
  if (pending.wait_for(std::chrono::seconds(10)) == std::future_status::ready) return pending.get();
  ADD_FAILURE() << "reading " << fifoPath << " blocked: a FIFO without a writer must be refused at once";
  const int writer = ::open(fifoPath.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (writer >= 0) ::close(writer);
  return pending.get();
}

TEST_F(RegularFileTest, ARegularFileIsReadWhole) {
  const std::string path = write("rules.csv", "allreduce,0,-1,ring,simple,-1,-1,-1\n");
  const RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  ASSERT_TRUE(file.ok()) << file.describe();
  EXPECT_EQ(file.bytes, "allreduce,0,-1,ring,simple,-1,-1,-1\n");
  EXPECT_EQ(file.path, path);
}

TEST_F(RegularFileTest, AnEmptyFileIsEmptyNotAnError) {
  const RegularFile file = readRegularFile(write("empty", ""), kMaxConfigFileBytes);
  ASSERT_TRUE(file.ok()) << file.describe();
  EXPECT_TRUE(file.bytes.empty());
}

TEST_F(RegularFileTest, AMissingFileNamesTheSystemError) {
  const std::string path = (dir_ / "missing.json").string();
  const RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.describe(), path + ": cannot open: No such file or directory");
  EXPECT_TRUE(file.bytes.empty());
}

TEST_F(RegularFileTest, ADirectoryIsRefused) {
  const RegularFile file = readRegularFile(dir_.string(), kMaxConfigFileBytes);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.describe(), dir_.string() + ": is a directory, not a regular file");
  fs::create_directory_symlink(dir_, dir_ / "link");
  EXPECT_EQ(readRegularFile((dir_ / "link").string(), kMaxConfigFileBytes).reason, "is a directory, not a regular file")
      << "a link is judged by what it points to";
}

TEST_F(RegularFileTest, AFifoWithoutAWriterIsRefusedAtOnce) {
  const std::string path = fifo("rules.fifo");
  const RegularFile file =
      withoutBlockingOn(path, std::async(std::launch::async, [&] { return readRegularFile(path, 1024); }));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.describe(), path + ": is a FIFO, not a regular file");
}

TEST_F(RegularFileTest, ACharacterDeviceIsRefused) {
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null here";
  const RegularFile file = readRegularFile("/dev/null", kMaxConfigFileBytes);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.describe(), "/dev/null: is a character device, not a regular file");
}

TEST_F(RegularFileTest, ASocketIsRefused) {
  const std::string path = (dir_ / "sock").string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof(address.sun_path));
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0) << std::strerror(errno);
  const RegularFile file = readRegularFile(path, kMaxConfigFileBytes);
  ::close(fd);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.reason, "is a socket, not a regular file");
}

TEST_F(RegularFileTest, OverTheCapIsRefusedAtTheCapIsRead) {
  const std::string path = write("big", std::string(11, 'x'));
  EXPECT_EQ(readRegularFile(path, 10).reason, "larger than 10 bytes");
  EXPECT_TRUE(readRegularFile(path, 11).ok());
  const std::string mib = write("mib", std::string((size_t{1} << 20) + 1, 'x'));
  const RegularFile file = readRegularFile(mib, kMaxAddressFileBytes);
  EXPECT_EQ(file.describe(), mib + ": larger than 1 MiB");
  EXPECT_TRUE(file.bytes.empty());
}

TEST_F(RegularFileTest, AnUnreadableFileNamesTheSystemError) {
  const std::string path = write("unreadable", "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  testing::openToNobody(dir_.string());  // as root, the read runs as nobody (tests/support/unprivileged.h)
  std::string why;
  const auto reason = testing::runUnprivileged([&] { return readRegularFile(path, kMaxConfigFileBytes).reason; }, &why);
  ASSERT_TRUE(reason.has_value()) << why;
  EXPECT_EQ(*reason, "cannot open: Permission denied");
}

TEST(RegularFileNames, EveryKindOfFileHasItsName) {
  EXPECT_STREQ(fileTypeName(S_IFREG | 0644), "a regular file");
  EXPECT_STREQ(fileTypeName(S_IFDIR), "a directory");
  EXPECT_STREQ(fileTypeName(S_IFIFO), "a FIFO");
  EXPECT_STREQ(fileTypeName(S_IFCHR), "a character device");
  EXPECT_STREQ(fileTypeName(S_IFBLK), "a block device");
  EXPECT_STREQ(fileTypeName(S_IFSOCK), "a socket");
  EXPECT_STREQ(fileTypeName(S_IFLNK), "a symbolic link");
}

// The net plugin computes the digest from the same files as the tuner: a FIFO there must not block
// its init either; it counts as a file that cannot be read (empty).
TEST_F(RegularFileTest, TheDigestDoesNotBlockOnAFifo) {
  const std::string path = fifo("digest.fifo");
  testing::fakeEnvVars() = {{"RAILTUNE_TUNER_CONFIG", path}, {"RAILTUNE_RAIL_MAP", path}};
  const DigestInputs inputs = withoutBlockingOn(
      path, std::async(std::launch::async, [] { return digestInputsFromEnvironment(testing::fakeEnv); }));
  testing::fakeEnvVars().clear();
  EXPECT_TRUE(inputs.rules.empty());
  EXPECT_TRUE(inputs.railMap.empty());
}

// The rules reader (the plugin's and `railtune tuner decisions`') and the rail map reader (the net
// plugin's, the tuner model's and the CLI's) judge a file through it.
TEST_F(RegularFileTest, TheRulesAndRailMapReadersUseIt) {
  const formats::tuner_rules::RulesResult rules = formats::tuner_rules::readRulesFile(dir_.string());
  ASSERT_EQ(rules.errors.size(), 1u);
  EXPECT_EQ(rules.errors[0].describe(), dir_.string() + ": is a directory, not a regular file");
  EXPECT_TRUE(rules.ruleSet.rules.empty());
  const std::string path = fifo("map.fifo");
  const auto readMap = [path] {
    try {
      formats::readRailMapFile(path);
    } catch (const formats::RailMapError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  const std::string error = withoutBlockingOn(path, std::async(std::launch::async, readMap));
  EXPECT_EQ(error, path + ": is a FIFO, not a regular file");
}

}  // namespace
}  // namespace railtune
