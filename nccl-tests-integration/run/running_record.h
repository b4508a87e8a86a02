// The run in progress of a sweep (DIR/running.json, railtune.sweep-running/1, docs/sweep.md "When a sweep is
// killed"): written before each run's command starts, removed once the run's manifest line is written. A sweep
// that finds one was stopped mid-run (SIGKILL, a crash): the command itself died with it (PR_SET_PDEATHSIG,
// process.h), but what the command started in its process group (a launcher's ranks, a wrapper script's
// children) may still run and write into the run's files. The next sweep kills that group, and waits until it
// is gone, before it runs anything. Linux (/proc).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::sweep {

inline constexpr std::string_view kRunningFileName = "running.json";
inline constexpr std::string_view kRunningSchema = "railtune.sweep-running/1";

struct RunningRecord {
  std::string id;           // the run's id
  int64_t group = 0;        // the command's process group and session (its pid)
  std::string bootId;       // /proc/sys/kernel/random/boot_id: a group of another boot names nothing now
  uint64_t startTicks = 0;  // the leader's start time (/proc/PID/stat field 22): a reused pid starts later
  std::string start;        // UTC, ISO 8601
};

// The record of a command just forked (its group leader alive).
RunningRecord runningRecordOf(const std::string& id, pid_t group, const std::string& start);
// Written whole and synced to disk (a temporary file renamed over path). Throws std::runtime_error.
void writeRunningRecord(const std::string& path, const RunningRecord& record);
std::string runningRecordText(const RunningRecord& record);  // one JSON line with its newline
void removeRunningRecord(const std::string& path);
// The record at path, or nullopt with `problem` saying what is wrong with it (not JSON, another schema, a
// field missing or of the wrong type, a group that cannot be a command's).
std::optional<RunningRecord> readRunningRecord(const std::string& path, std::string& problem);

// What an earlier sweep left running in the folder (path: its running.json): the recorded group, when it is
// still the command's (same boot; the leader gone, or alive with the recorded start time), gets SIGKILL and is
// waited for up to waitSeconds; then the record is removed. Returns what to tell the user (nothing when no
// record was there). Throws std::runtime_error when the group outlives the wait.
std::vector<std::string> killLeftoverRun(const std::string& path, double waitSeconds);

}  // namespace railtune::sweep
