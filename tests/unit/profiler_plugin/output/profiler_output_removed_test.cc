// ProfileWriter when its files go away or the disk is full at exit (docs/profiler.md, "Nothing
// unaccounted"): every record pushed is in a file that still exists or counted lost in one, exactly,
// also when a write stopped midway through a line just before the folder was removed; a folder that
// cannot be made again loses everything, counted; at exit a full disk's records are counted in the
// last line when it fits.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "formats/profile_logs.h"
#include "profiler_plugin/output/writer.h"
#include "tests/support/file_text.h"
#include "tests/unit/profiler_plugin/output/profiler_output_examples.h"

namespace railtune::profiler::output {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using railtune::profiler::testing::exampleRecords;
using railtune::testing::readFile;

// A disk whose writes are short (a few bytes to 4 KiB) and, while full, fail four times in five.
struct ShortDisk {
  std::atomic<bool> full{false};
  std::atomic<size_t> fitsWhenFull{0};  // writes this small still succeed while full
  std::atomic<uint64_t> calls{0};
  ssize_t write(int fd, const void* data, size_t size) {
    const uint64_t call = calls++;
    if (full && size > fitsWhenFull && call % 5 != 0) {
      errno = ENOSPC;
      return -1;
    }
    return ::write(fd, data, full && size > fitsWhenFull ? std::min<size_t>(size, 1 + call % 13) : size);
  }
};

struct Count {
  uint64_t records = 0, lost = 0;  // record lines; records_dropped of dropped lines and headers
  int badLines = 0;                // lines that do not parse (a line a failed write cut short)
  std::string firstError;
};

// Line by line, so that a line cut short does not hide the ones after it.
Count countLog(const std::string& path) {
  std::ifstream in(path);
  Count count;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    const CollectiveLineResult read = parseCollectiveLine(line, path, ++number);
    if (!read.parsed) {
      if (count.badLines++ == 0) count.firstError = read.error;
      continue;
    }
    count.lost += read.parsed->recordsDropped;
    if (!read.parsed->header && !read.parsed->droppedNotice) ++count.records;
  }
  return count;
}

class ProfilerOutputRemoved : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("railtune-removed-test-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    disk_ = std::make_shared<ShortDisk>();
  }
  void TearDown() override { fs::remove_all(base_); }

  ProfileOptions options(const fs::path& dir) const {
    ProfileOptions o;
    o.directory = dir.string();
    o.identity = Identity{"node-a", "job-1", 4242};
    o.capacity = 256;
    o.flushInterval = 5ms;
    o.drainInterval = 1ms;
    o.retryInitial = 5ms;
    o.retryMax = 20ms;
    o.write = [disk = disk_](int fd, const void* data, size_t size) { return disk->write(fd, data, size); };
    return o;
  }

  // Pushes n records, retrying refused pushes (each refusal is counted lost by the writer too).
  void push(ProfileWriter& writer, int n) {
    OperationRecord record = exampleRecords()[0];
    for (int i = 0; i < n; ++i, ++pushed_) {
      record.seq = pushed_;
      while (!writer.push(record)) std::this_thread::sleep_for(100us);
    }
  }

  fs::path base_;
  std::shared_ptr<ShortDisk> disk_;
  uint64_t pushed_ = 0;
};

// A write stopped midway through a line (a full disk), then the folder removed: the new file starts with
// a whole line, its header counts what the removed one held, and nothing is counted twice or missed.
TEST_F(ProfilerOutputRemoved, AFolderRemovedAfterAWriteStoppedMidLineCountsExactly) {
  const fs::path dir = base_ / "profile";
  ProfileWriter writer(options(dir));
  push(writer, 300);
  ASSERT_TRUE(writer.flushNow(5s));
  disk_->full = true;
  push(writer, 300);
  std::this_thread::sleep_for(50ms);  // a few failed writes, each stopping at some byte
  fs::remove_all(dir);
  disk_->full = false;
  push(writer, 300);
  writer.shutdown();
  const std::string log = writer.path(ProfileFile::Collectives);
  const Count count = countLog(log);
  ASSERT_EQ(count.badLines, 0) << "the new file holds a torn line: " << count.firstError;
  EXPECT_EQ(count.records + count.lost, pushed_ + writer.droppedTotal());
  EXPECT_EQ(count.lost, writer.lostTotal()) << "the writer counts what its file says";
  EXPECT_GT(count.lost, 0u);
  const std::string text = readFile(log);
  EXPECT_NE(text.substr(0, text.find('\n')).find("\"dropped_reason\":\"the file was removed while the job ran\""),
            std::string::npos)
      << text.substr(0, 400);
  EXPECT_EQ(parseNetRecords(readFile(writer.path(ProfileFile::Net)), "net").error, "");
  EXPECT_TRUE(nlohmann::json::accept(readFile(writer.path(ProfileFile::Trace))));
}

// The folder removed and a file put where it was: nothing can be written again, everything is counted.
TEST_F(ProfilerOutputRemoved, AFolderThatCannotBeMadeAgainCountsEveryRecordLost) {
  const fs::path dir = base_ / "a" / "profile";
  ProfileWriter writer(options(dir));
  push(writer, 50);
  ASSERT_TRUE(writer.flushNow(5s));
  fs::remove_all(base_ / "a");
  std::ofstream(base_ / "a") << "not a folder\n";
  push(writer, 100);
  writer.shutdown();
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(writer.lostTotal(), pushed_ + writer.droppedTotal()) << "the 50 written to the removed files too";
}

// A full disk at exit, with room for one small write: the records it kept out are counted in the file's last
// line, and the file's counts are the writer's.
TEST_F(ProfilerOutputRemoved, AFullDiskAtExitIsCountedInTheLastLineWhenItFits) {
  const fs::path dir = base_ / "profile";
  ProfileWriter writer(options(dir));
  push(writer, 100);
  ASSERT_TRUE(writer.flushNow(5s));
  disk_->fitsWhenFull = 400;
  disk_->full = true;
  push(writer, 200);
  writer.shutdown();
  const std::string text = readFile(writer.path(ProfileFile::Collectives));
  const size_t last = text.rfind('\n', text.size() - 2);
  EXPECT_NE(text.find("\"record\":\"dropped\"", last), std::string::npos) << text.substr(last);
  const Count count = countLog(writer.path(ProfileFile::Collectives));
  EXPECT_LE(count.badLines, 1) << "only the line a failed write cut short: " << count.firstError;
  EXPECT_EQ(count.records + count.lost, pushed_ + writer.droppedTotal());
  EXPECT_EQ(count.lost, writer.lostTotal());
  EXPECT_GT(count.lost, 0u);
}

}  // namespace
}  // namespace railtune::profiler::output
