// What `railtune profile` takes from its folders: a duplicate key refused (never a false hang), the
// shared folder walk (links, FIFOs, unreadable files counted as files, not bad lines) and the line cap.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/profile/hangs.h"
#include "analysis/profile/logs.h"
#include "formats/profile_logs.h"
#include "tests/support/unprivileged.h"
#include "tests/unit/analysis/profile/profile_analysis_ring.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

using testing::TempDir;

bool noteHas(const ProfileLogs& logs, const std::string& part) {
  for (const std::string& note : logs.inputNotes)
    if (note.find(part) != std::string::npos) return true;
  return false;
}

// A healthy ring (seqs 0..9 everywhere) but rank 0's record of seq 1 also says "seq":17.
TEST(ProfileInput, ADuplicateSeqIsABadLineNotAFalseHang) {
  TempDir dir;
  std::string doubledFile;
  size_t column = 0;
  for (int rank = 0; rank < testing::kRanks; ++rank) {
    std::vector<std::string> lines = testing::ringLines(rank, 0, 9);
    if (rank == 0) {
      const size_t seq = lines[1].find("\"seq\":1,");
      ASSERT_NE(seq, std::string::npos) << lines[1];
      lines[1].insert(seq + 8, "\"seq\":17,");
      column = seq + 9;
    }
    const std::string file =
        dir.write("ring-" + std::to_string(rank) + ".collectives.jsonl", testing::joinLines(lines));
    if (rank == 0) doubledFile = file;
  }
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, true, 2, 20});
  ASSERT_EQ(logs.problems.count, 1u);
  EXPECT_EQ(logs.problems.first[0],
            doubledFile + ":2:" + std::to_string(column) + ": duplicate key \"seq\"; line skipped");
  const HangReport report = analyseHangs(logs, nullptr, std::nullopt);
  ASSERT_EQ(report.jobs.size(), 1u);
  EXPECT_TRUE(report.jobs[0].hung.empty());
}

TEST(ProfileInput, TheStrictReadersRefuseDuplicateKeysWithFileLineColumn) {
  const std::string good = testing::ringLines(3, 0, 0)[0];
  const size_t rank = good.find("\"rank\":3");
  ASSERT_NE(rank, std::string::npos);
  const std::string doubled = good.substr(0, rank) + "\"rank\":3,\"rank\":4," + good.substr(rank + 9);
  const formats::profile::CollectiveLineResult result = formats::profile::parseCollectiveLine(doubled, "c.jsonl", 4);
  EXPECT_FALSE(result.parsed);
  EXPECT_EQ(result.error, "c.jsonl:4:" + std::to_string(rank + 10) + ": duplicate key \"rank\"");
  const formats::profile::NetLineResult net =
      formats::profile::parseNetLine(R"({"schema":"railtune.profile.net.v1","schema":"x"})", "n.jsonl", 1);
  EXPECT_EQ(net.error, "n.jsonl:1:37: duplicate key \"schema\"");
}

TEST(ProfileInput, AFolderHoldingOnlyALinkToTheLogsIsRead) {
  TempDir logs, dir;
  for (int rank = 0; rank < testing::kRanks; ++rank)
    logs.write("ring-" + std::to_string(rank) + ".collectives.jsonl",
               testing::joinLines(testing::ringLines(rank, 0, 2)));
  std::filesystem::create_directory_symlink(logs.path(), dir.path() + "/logs");
  const ProfileLogs read = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(read.collectiveFiles, 8u);
  EXPECT_EQ(read.samples.size(), 24u);
  EXPECT_TRUE(read.inputNotes.empty());
}

TEST(ProfileInput, FifosDevicesAndLoopsAreNotedAndNeverOpened) {
  TempDir dir;
  dir.write("ring-0.collectives.jsonl", testing::joinLines(testing::ringLines(0, 0, 2)));
  ASSERT_EQ(::mkfifo((dir.path() + "/pipe.collectives.jsonl").c_str(), 0600), 0);
  std::filesystem::create_symlink("/dev/zero", dir.path() + "/zero.collectives.jsonl");
  std::filesystem::create_directory_symlink(dir.path(), dir.path() + "/loop");
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.collectiveFiles, 1u);
  EXPECT_EQ(logs.samples.size(), 3u);
  EXPECT_EQ(logs.problems.count, 0u);
  EXPECT_TRUE(noteHas(logs, dir.path() + "/pipe.collectives.jsonl: a FIFO, not a log file; skipped"));
  EXPECT_TRUE(noteHas(logs, "/zero.collectives.jsonl: a character device (through a symbolic link)"));
  EXPECT_TRUE(noteHas(logs, dir.path() + "/loop: leads to a folder already read"));
}

TEST(ProfileInput, AnUnreadableFileIsAFileLostNotABadLine) {
  TempDir dir;
  dir.write("ring-0.collectives.jsonl", testing::joinLines(testing::ringLines(0, 0, 2)));
  const std::string locked = dir.write("ring-1.collectives.jsonl", testing::joinLines(testing::ringLines(1, 0, 2)));
  ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  railtune::testing::openToNobody(dir.path());  // as root, the reading runs as nobody (tests/support/unprivileged.h)
  std::string why;
  const auto seen = railtune::testing::runUnprivileged(
      [&] {
        const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
        std::string text = "unreadable " + std::to_string(logs.unreadableFiles) + ", bad lines " +
                           std::to_string(logs.problems.count) + ", skipped " + std::to_string(logs.skippedFiles);
        if (noteHas(logs, locked + ": cannot open: Permission denied")) text += ", the note names it";
        return text;
      },
      &why);
  ASSERT_TRUE(seen.has_value()) << why;
  EXPECT_EQ(*seen, "unreadable 1, bad lines 0, skipped 0, the note names it");
}

TEST(ProfileInput, ALineOverTheCapIsOneBadLineAndTheRestIsRead) {
  TempDir dir;
  std::vector<std::string> lines = testing::ringLines(0, 0, 3);
  lines.insert(lines.begin() + 2, std::string(3u << 20, '{'));
  const std::string file = dir.write("ring-0.collectives.jsonl", testing::joinLines(lines));
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  ASSERT_EQ(logs.problems.count, 1u);
  EXPECT_EQ(logs.problems.first[0], file + ":3:1: line longer than 1 MiB (3145728 bytes); skipped");
  EXPECT_EQ(logs.samples.size(), 4u);
}

}  // namespace
}  // namespace railtune::analysis::profile
