// What the path-log readers take from a folder: duplicate keys refused by the strict reader (and so
// never a phantom connection), the shared folder walk (links followed once, loops, FIFOs, devices,
// unreadable folders and files named), and the line cap of the streaming reader (analysis/ingest/folder_walk.h,
// line_reader.h, formats/json_duplicate_keys.h).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/ingest/folder_walk.h"
#include "analysis/ingest/line_reader.h"
#include "analysis/paths/path_load.h"
#include "formats/json_duplicate_keys.h"
#include "tests/support/unprivileged.h"
#include "tests/unit/analysis/paths/paths_test_support.h"

namespace railtune::analysis::paths {
namespace {

using testing::connectOf;
using testing::fileName;
using testing::line;
using testing::TempFolder;
using testing::TestEnd;
using testing::trafficOf;
namespace fs = std::filesystem;

const TestEnd& kHostA = testing::kRack1Tray1;
const TestEnd& kHostB = testing::kRack2Tray1;

// A sends to B: both ends log connect and close.
void writeClosedJob(const TempFolder& dir, const std::string& under = "") {
  dir.write(under + fileName("j", kHostA), line("j", kHostA, connectOf(kHostA, kHostB, true, 1, 0)) +
                                               line("j", kHostA, trafficOf(1, true, 20, 2000, 0)));
  dir.write(under + fileName("j", kHostB), line("j", kHostB, connectOf(kHostB, kHostA, false, 1, 0)) +
                                               line("j", kHostB, trafficOf(1, true, 20, 0, 2000)));
}

std::vector<std::string> diagnosticTexts(const std::vector<InputDiagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const InputDiagnostic& d : diagnostics) out.push_back(d.where + ": " + d.message);
  return out;
}

bool anyLineHas(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

TEST(DuplicateKeys, TheSecondOccurrenceIsFoundWhereverItIs) {
  using formats::strict_json::firstDuplicateKey;
  auto at = [](std::string_view text) {
    const auto d = firstDuplicateKey(text);
    return d ? std::to_string(d->column) + " " + d->key : std::string("none");
  };
  EXPECT_EQ(at(R"({"schema": 1, "schema": 2})"), "15 schema");
  EXPECT_EQ(at(R"({"seq":1,"seq":7})"), "10 seq");
  EXPECT_EQ(at(R"({"a":{"b":1,"b":2}})"), "13 b");
  EXPECT_EQ(at(R"({"a":{"b":1},"a":2})"), "14 a");
  EXPECT_EQ(at(R"({"a":1,"\u0061":2})"), "8 a");                // the same key, escaped
  EXPECT_EQ(at(R"({"a":"a","b":"a","c":["a","a"]})"), "none");  // values are no keys
  EXPECT_EQ(at(R"([{"a":1},{"a":1}])"), "none");                // one key per object
  EXPECT_EQ(at(R"({"a":{"a":1}})"), "none");
  EXPECT_EQ(at(R"({"a":1 "a":2})"), "none");  // not JSON: left to the parser's message
  EXPECT_EQ(at(R"({"a":"\"a\"","a":1})"), "14 a");
}

TEST(DuplicateKeys, TheStrictPathLogReaderRefusesThemWithFileLineColumn) {
  const std::string good = line("j", kHostA, connectOf(kHostA, kHostB, true, 1, 0));
  std::string doubled = good.substr(0, good.size() - 1);
  const size_t pid = doubled.find("\"pid\":100");
  ASSERT_NE(pid, std::string::npos);
  doubled.insert(pid + 9, ",\"pid\":999");
  const formats::path_log::ParseResult result = formats::path_log::parseRecord(doubled, "f.jsonl", 3);
  EXPECT_FALSE(result.parsed);
  EXPECT_EQ(result.error, "f.jsonl:3:" + std::to_string(pid + 11) + ": duplicate key \"pid\"");
}

// A repeated "pid" once made a connection of a process that never existed.
TEST(DuplicateKeys, ARepeatedPidMakesNoPhantomConnection) {
  const TempFolder dir("dup-pid");
  writeClosedJob(dir);
  std::string doubled = line("j", kHostA, connectOf(kHostA, kHostB, true, 2, 0));
  const size_t pid = doubled.find("\"pid\":100");
  ASSERT_NE(pid, std::string::npos);
  doubled.insert(pid + 9, ",\"pid\":999");
  const std::string file = fileName("j", kHostA);
  dir.write(file, line("j", kHostA, connectOf(kHostA, kHostB, true, 1, 0)) + doubled +
                      line("j", kHostA, trafficOf(1, true, 20, 2000, 0)));
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u);
  const JobPaths& job = loaded.jobs[0];
  EXPECT_EQ(job.connections.size(), 2u);  // A's connection 1 and B's end of it; no pid 999
  for (const Connection& c : job.connections) EXPECT_NE(c.local.pid, 999);
  const std::vector<std::string> got = diagnosticTexts(job.diagnostics);
  EXPECT_TRUE(anyLineHas(got, dir.str() + "/" + file + ":2:" + std::to_string(pid + 11) + ": duplicate key \"pid\""))
      << ::testing::PrintToString(got);
}

TEST(LogFolder, AFolderHoldingOnlyALinkToTheLogsIsRead) {
  const TempFolder logs("linked-logs"), dir("link-only");
  writeClosedJob(logs);
  fs::create_directory_symlink(logs.path(), dir.path() / "logs");
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u) << ::testing::PrintToString(diagnosticTexts(loaded.diagnostics));
  EXPECT_EQ(loaded.jobs[0].connections.size(), 2u);
  EXPECT_EQ(loaded.jobs[0].connections[0].source.rfind(dir.str() + "/logs/", 0), 0u)
      << loaded.jobs[0].connections[0].source;
  EXPECT_TRUE(loaded.diagnostics.empty()) << ::testing::PrintToString(diagnosticTexts(loaded.diagnostics));
}

TEST(LogFolder, ALinkLoopEndsWithANoteAndEachFileIsReadOnce) {
  const TempFolder dir("loop");
  writeClosedJob(dir, "sub/");
  fs::create_directory_symlink(dir.path(), dir.path() / "sub" / "back");  // back to the top
  fs::create_symlink(dir.path() / "sub" / fileName("j", kHostA), dir.path() / "again.jsonl");
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].connections.size(), 2u);  // not four: a file reached twice is read once
  const std::vector<std::string> got = diagnosticTexts(loaded.diagnostics);
  EXPECT_TRUE(anyLineHas(got, dir.str() + "/sub/back: leads to a folder already read (" + dir.str() + ")"))
      << ::testing::PrintToString(got);
  EXPECT_TRUE(anyLineHas(got, "; read once")) << ::testing::PrintToString(got);
}

TEST(LogFolder, SpecialFilesAndDanglingLinksAreNamedAndNeverOpened) {
  const TempFolder dir("specials");
  writeClosedJob(dir);
  const std::string fifo = dir.str() + "/fifo.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", dir.path() / "zero.jsonl");
  fs::create_symlink(dir.path() / "nowhere", dir.path() / "dangling.jsonl");
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});  // a FIFO opened for reading would block here
  ASSERT_EQ(loaded.jobs.size(), 1u);
  EXPECT_EQ(loaded.jobs[0].connections.size(), 2u);
  const std::vector<std::string> got = diagnosticTexts(loaded.diagnostics);
  EXPECT_TRUE(anyLineHas(got, fifo + ": a FIFO, not a log file; skipped")) << ::testing::PrintToString(got);
  EXPECT_TRUE(anyLineHas(got, "/zero.jsonl: a character device (through a symbolic link), not a log file"))
      << ::testing::PrintToString(got);
  EXPECT_TRUE(anyLineHas(got, "/dangling.jsonl: a symbolic link to nothing (dangling); skipped"))
      << ::testing::PrintToString(got);
  // The line reader refuses a FIFO it is handed directly, without waiting for a writer.
  const ingest::ReadOutcome outcome = ingest::forEachLine(fifo, 64, {});
  EXPECT_FALSE(outcome.opened);
  EXPECT_EQ(outcome.error, fifo + ": not a regular file; skipped");
}

TEST(LogFolder, UnreadableFoldersAndFilesAreNamedWithTheSystemsReason) {
  const TempFolder dir("unreadable");
  writeClosedJob(dir);
  dir.write("locked/x.jsonl", "{}\n");
  dir.write("secret.jsonl", line("j", kHostA, connectOf(kHostA, kHostB, true, 7, 0)));
  ASSERT_EQ(::chmod((dir.str() + "/locked").c_str(), 0), 0);
  ASSERT_EQ(::chmod((dir.str() + "/secret.jsonl").c_str(), 0), 0);
  railtune::testing::openToNobody(dir.str());  // as root, the reading runs as nobody (tests/support/unprivileged.h)
  std::string why;
  const auto seen = railtune::testing::runUnprivileged(
      [&] {
        const LoadedPaths loaded = loadPathLogs(dir.str(), {});
        std::string text;
        for (const std::string& d : diagnosticTexts(loaded.diagnostics)) text += d + "\n";
        text += "jobs " + std::to_string(loaded.jobs.size());
        if (!loaded.jobs.empty()) text += ", connections " + std::to_string(loaded.jobs[0].connections.size());
        return text;
      },
      &why);
  ::chmod((dir.str() + "/locked").c_str(), 0700);
  ASSERT_TRUE(seen.has_value()) << why;
  EXPECT_NE(seen->find(dir.str() + "/locked: cannot read the folder: Permission denied"), std::string::npos) << *seen;
  EXPECT_NE(seen->find(dir.str() + "/secret.jsonl: cannot open: Permission denied"), std::string::npos) << *seen;
  EXPECT_NE(seen->find("jobs 1, connections 2"), std::string::npos) << *seen;
}

TEST(LogFolder, TheWalkSortsFollowsLinksToFilesAndFiltersNames) {
  const TempFolder dir("walk");
  dir.write("b/2.jsonl", "x\n");
  dir.write("a.jsonl", "y\n");
  dir.write("notes.txt", "z\n");
  fs::create_symlink(dir.path() / "b" / "2.jsonl", dir.path() / "c.jsonl");
  const ingest::FolderWalk walk =
      ingest::walkLogFolders({dir.str() + "/"}, [](std::string_view name) { return name.ends_with(".jsonl"); });
  ASSERT_EQ(walk.files.size(), 2u);
  EXPECT_EQ(walk.files[0].path, dir.str() + "/a.jsonl");
  EXPECT_EQ(walk.files[0].bytes, 2u);
  EXPECT_EQ(walk.files[1].path, dir.str() + "/c.jsonl");  // a folder's files before its sub-folders
  ASSERT_EQ(walk.notes.size(), 1u);
  EXPECT_EQ(walk.notes[0].path, dir.str() + "/b/2.jsonl");
  EXPECT_EQ(walk.notes[0].message, "the same file as " + dir.str() + "/c.jsonl; read once");
  EXPECT_THROW(ingest::walkLogFolders({dir.str() + "/a.jsonl"}, [](std::string_view) { return true; }),
               std::runtime_error);
}

// A line over the cap is counted and skipped as it streams by; the lines around it are read.
TEST(LineCap, ALineOverTheCapIsNamedAndTheRestIsRead) {
  const TempFolder dir("long-line");
  writeClosedJob(dir);
  const std::string file = fileName("j", kHostA);
  const std::string huge(3u << 20, 'x');
  dir.write(file, line("j", kHostA, connectOf(kHostA, kHostB, true, 1, 0)) + huge + "\n" +
                      line("j", kHostA, trafficOf(1, true, 20, 2000, 0)));
  const LoadedPaths loaded = loadPathLogs(dir.str(), {});
  ASSERT_EQ(loaded.jobs.size(), 1u);
  const JobPaths& job = loaded.jobs[0];
  ASSERT_EQ(job.connections.size(), 2u);
  EXPECT_TRUE(job.connections[0].closed);  // the close record after the long line was read
  const std::vector<std::string> got = diagnosticTexts(job.diagnostics);
  EXPECT_TRUE(anyLineHas(got, dir.str() + "/" + file + ":2:1: line longer than 1 MiB (3145728 bytes); skipped"))
      << ::testing::PrintToString(got);
}

TEST(LineCap, TheStreamingReaderCountsLongLinesAnywhere) {
  const TempFolder dir("stream");
  // Lines of 10, 5000 (over a cap of 4096), 20 bytes, then 5 MiB without a newline (a file of NULs).
  dir.write("f", std::string(10, 'a') + "\n" + std::string(5000, 'b') + "\n" + std::string(20, 'c') + "\n" +
                     std::string(5u << 20, '\0'));
  std::vector<std::pair<int, size_t>> lines, tooLong;
  ingest::LineHandlers handlers;
  handlers.line = [&](std::string_view l, int number, size_t readable) {
    EXPECT_GE(readable, l.size() + 64);
    lines.emplace_back(number, l.size());
    return true;
  };
  handlers.tooLong = [&](int number, size_t bytes) { tooLong.emplace_back(number, bytes); };
  const ingest::ReadOutcome outcome = ingest::forEachLine(dir.str() + "/f", 64, handlers, 4096);
  EXPECT_TRUE(outcome.opened);
  EXPECT_EQ(outcome.error, "");
  EXPECT_EQ(lines, (std::vector<std::pair<int, size_t>>{{1, 10}, {3, 20}}));
  EXPECT_EQ(tooLong, (std::vector<std::pair<int, size_t>>{{2, 5000}, {4, 5u << 20}}));
  EXPECT_EQ(ingest::tooLongMessage(3u << 20), "line longer than 1 MiB (3145728 bytes); skipped");
}

}  // namespace
}  // namespace railtune::analysis::paths
