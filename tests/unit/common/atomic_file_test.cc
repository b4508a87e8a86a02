// AtomicFile / writeFileAtomically (common/atomic_file.h): a file is replaced whole or not at all, through
// a temporary file beside it that never outlives the writer, and what is not a regular file is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/atomic_file.h"

namespace railtune {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("railtune-atomic-file-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string text(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir_)) out.push_back(entry.path().filename().string());
    return out;
  }
  static AtomicFileError::Stage stageOf(const std::function<void()>& write) {
    try {
      write();
    } catch (const AtomicFileError& e) {
      return e.stage;
    }
    ADD_FAILURE() << "no AtomicFileError";
    return AtomicFileError::Stage::kWrite;
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplacesWhole) {
  writeFileAtomically(path("a.json"), std::string("first\n"));
  EXPECT_EQ(text(path("a.json")), "first\n");
  writeFileAtomically(path("a.json"), std::vector<std::string>{"sec", "", "ond\n"});
  EXPECT_EQ(text(path("a.json")), "second\n");
  writeFileAtomically(path("empty"), std::string());
  EXPECT_EQ(text(path("empty")), "");
  EXPECT_EQ(names().size(), 2u) << "a temporary file was left behind";
}

TEST_F(AtomicFileTest, UncommittedLeavesTheEarlierFile) {
  writeFileAtomically(path("a.json"), std::string("kept\n"));
  {
    AtomicFile file(path("a.json"));
    file.write("half of a new");
    EXPECT_TRUE(fs::exists(file.temporary()));
    EXPECT_EQ(fs::path(file.temporary()).parent_path(), dir_) << "the temporary file is beside the path";
  }
  EXPECT_EQ(text(path("a.json")), "kept\n");
  EXPECT_EQ(names(), std::vector<std::string>{"a.json"});
}

TEST_F(AtomicFileTest, RefusesWhatIsNotARegularFile) {
  fs::create_directories(dir_ / "folder");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  for (const std::string name : {"folder", "fifo"}) {
    try {
      writeFileAtomically(path(name), std::string("x"));
      ADD_FAILURE() << name << " was replaced";
    } catch (const AtomicFileError& e) {
      EXPECT_EQ(e.stage, AtomicFileError::Stage::kRefused);
      EXPECT_EQ(std::string(e.what()), "cannot write " + path(name) + ": it exists and is not a regular file");
    }
  }
  EXPECT_TRUE(fs::is_directory(dir_ / "folder"));
  EXPECT_TRUE(fs::is_fifo(dir_ / "fifo"));
  EXPECT_EQ(names().size(), 2u);
}

TEST_F(AtomicFileTest, MissingFolderIsACreateError) {
  const std::string file = path("no/such/folder.json");
  EXPECT_EQ(stageOf([&] { writeFileAtomically(file, std::string("x")); }), AtomicFileError::Stage::kCreate);
  try {
    writeFileAtomically(file, std::string("x"));
  } catch (const AtomicFileError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + file + ": No such file or directory");
    EXPECT_EQ(e.temporary, file + ".tmp." + std::to_string(::getpid()));
  }
}

TEST_F(AtomicFileTest, WriteAfterCommitIsRefused) {
  AtomicFile file(path("a"));
  file.write("x");
  file.commit();
  EXPECT_EQ(stageOf([&] { file.write("y"); }), AtomicFileError::Stage::kWrite);
  EXPECT_EQ(text(path("a")), "x");
}

}  // namespace
}  // namespace railtune
