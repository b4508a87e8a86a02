// The writers' shared file opening (common/record_files.h): the output folder made with every missing
// parent (mode 0755), a symlink another user planted in a sticky world-writable folder refused, one
// clear message for a file where a folder belongs; the process's start-time tag; a file claimed by one
// writer alone, continued by a later load of the plugin in the same process.
#include "common/record_files.h"
#include "tests/support/file_text.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>

namespace railtune {
namespace {

namespace fs = std::filesystem;

class RecordFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-record-files-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    mask_ = umask(022);
  }
  void TearDown() override {
    umask(mask_);
    fs::remove_all(dir_);
  }

  // openRecordFolder's message, or "" when the folder opened.
  static std::string folderError(const std::string& folder) {
    try {
      close(openRecordFolder(folder));
      return "";
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }

  fs::path dir_;
  mode_t mask_ = 0;
};

TEST_F(RecordFiles, EveryMissingComponentIsCreatedWithMode0755) {
  const fs::path folder = dir_ / "var" / "log" / "railtune" / "profile";
  EXPECT_EQ(folderError(folder.string()), "");
  for (fs::path p = folder; p != dir_; p = p.parent_path()) {
    ASSERT_TRUE(fs::is_directory(p)) << p;
    EXPECT_EQ(fs::status(p).permissions(), fs::perms(0755)) << p;
  }
  EXPECT_EQ(folderError(folder.string() + "/"), "") << "an existing folder, written with a trailing slash";
  EXPECT_EQ(folderError((dir_ / "var" / "." / "log//railtune").string()), "");
}

TEST_F(RecordFiles, TheUmaskStillApplies) {
  umask(077);
  EXPECT_EQ(folderError((dir_ / "private" / "logs").string()), "");
  EXPECT_EQ(fs::status(dir_ / "private").permissions(), fs::perms(0700));
  EXPECT_EQ(fs::status(dir_ / "private" / "logs").permissions(), fs::perms(0700));
}

TEST_F(RecordFiles, AFileWhereAFolderBelongsIsNamed) {
  std::ofstream(dir_ / "file") << "in the way";
  const std::string folder = (dir_ / "file" / "logs").string();
  EXPECT_EQ(folderError(folder),
            "cannot create folder " + folder + ": " + (dir_ / "file").string() + ": " + std::strerror(ENOTDIR));
  EXPECT_FALSE(fs::exists(dir_ / "file" / "logs"));
  EXPECT_NE(folderError(""), "");
}

TEST_F(RecordFiles, ASymlinkOfThisUserIsFollowed) {
  fs::create_directories(dir_ / "real");
  fs::create_directory_symlink(dir_ / "real", dir_ / "link");
  EXPECT_EQ(folderError((dir_ / "link" / "logs" / "paths").string()), "");
  EXPECT_TRUE(fs::is_directory(dir_ / "real" / "logs" / "paths"));
}

// A sticky, world-writable folder like /tmp, and in it a symlink of another user towards a folder of
// that user's choosing: not followed, nothing made at its target. The same symlink owned by this user
// is followed. Making a file of another uid takes root.
TEST_F(RecordFiles, AForeignSymlinkInAStickyWorldWritableFolderIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to give the planted symlink another user's uid";
  const fs::path shared = dir_ / "shared";
  fs::create_directories(shared);
  ASSERT_EQ(chmod(shared.c_str(), 01777), 0);
  fs::create_directories(dir_ / "chosen");
  fs::create_directory_symlink(dir_ / "chosen", shared / "planted");
  ASSERT_EQ(lchown((shared / "planted").c_str(), 54321, 54321), 0);
  const std::string folder = (shared / "planted" / "profile").string();
  const std::string error = folderError(folder);
  EXPECT_EQ(
      error.rfind(
          "cannot create folder " + folder + ": " + (shared / "planted").string() + " is a symlink of uid 54321", 0),
      0u)
      << error;
  EXPECT_FALSE(fs::exists(dir_ / "chosen" / "profile"));

  ASSERT_EQ(lchown((shared / "planted").c_str(), geteuid(), getegid()), 0);
  EXPECT_EQ(folderError(folder), "");
  EXPECT_TRUE(fs::is_directory(dir_ / "chosen" / "profile"));
}

TEST_F(RecordFiles, TheStartTagIsThisProcessStartTimeInHex) {
  const std::string text = railtune::testing::readFile("/proc/self/stat");
  if (text.empty()) GTEST_SKIP() << "no /proc/self/stat";
  std::istringstream fields(text.substr(text.rfind(')') + 2));  // from field 3, the state, on
  std::string field;
  for (int number = 3; number <= 22; ++number) fields >> field;
  const std::string tag = processStartTag();
  EXPECT_EQ(tag, processStartTag()) << "the same for every writer of the process";
  EXPECT_EQ(std::stoull(tag, nullptr, 16), std::stoull(field)) << tag;
  EXPECT_EQ(recordFileStem(Identity{"tray-07", "48213", 99}, tag), "48213-tray-07-99." + tag);
}

TEST_F(RecordFiles, AClaimedFileIsOneWritersAndALaterLoadContinuesIt) {
  const int folder = openRecordFolder(dir_.string());
  const Identity identity{"node-a", "job-1", 4242};
  const std::string start = processStartTag();
  const ClaimedFile first = claimRecordFile(folder, dir_.string(), identity, ".jsonl");
  EXPECT_EQ(first.tag, start);
  EXPECT_FALSE(first.continued);
  // Another writer of the same job, host, pid and start time while the first writes: a name of its own.
  const ClaimedFile second = claimRecordFile(folder, dir_.string(), identity, ".jsonl");
  EXPECT_EQ(second.tag.rfind(start + "_", 0), 0u) << second.tag;
  EXPECT_EQ(second.tag.size(), start.size() + 5) << second.tag;
  EXPECT_FALSE(second.continued);
  EXPECT_TRUE(fs::exists(dir_ / ("job-1-node-a-4242." + second.tag + ".jsonl")));
  ASSERT_TRUE(writeAll(first.fd, "{}\n"));
  close(first.fd);
  close(second.fd);
  // The plugin loaded again by the same process: the file it wrote is nobody's now, and is continued.
  const ClaimedFile again = claimRecordFile(folder, dir_.string(), identity, ".jsonl");
  EXPECT_EQ(again.tag, start);
  EXPECT_TRUE(again.continued);
  close(again.fd);
  // An empty file of that name is left alone: its writer may be about to start.
  const ClaimedFile other = claimRecordFile(folder, dir_.string(), Identity{"node-a", "job-2", 1}, ".jsonl");
  close(other.fd);
  const ClaimedFile beside = claimRecordFile(folder, dir_.string(), Identity{"node-a", "job-2", 1}, ".jsonl");
  EXPECT_NE(beside.tag, other.tag);
  EXPECT_FALSE(beside.continued);
  close(beside.fd);
  close(folder);
}

}  // namespace
}  // namespace railtune
