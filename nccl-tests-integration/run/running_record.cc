// The run in progress of a sweep, and what an earlier sweep left running (running_record.h).
#include "nccl-tests-integration/run/running_record.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/atomic_file.h"

namespace railtune::sweep {
namespace {

std::string fileText(const std::string& path, size_t max) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text(max, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::string bootId() {
  std::string id = fileText("/proc/sys/kernel/random/boot_id", 128);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

// /proc/PID/stat: the fields after the command name (which may hold spaces and parentheses).
struct ProcStat {
  char state = '?';
  int64_t group = 0, session = 0;
  uint64_t startTicks = 0;
};

std::optional<ProcStat> procStat(int64_t pid) {
  const std::string text = fileText("/proc/" + std::to_string(pid) + "/stat", 4096);
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  ProcStat st;
  int64_t parent = 0;
  fields >> st.state >> parent >> st.group >> st.session;
  std::string skip;
  for (int field = 7; field < 22 && fields; ++field) fields >> skip;  // tty_nr .. nice, num_threads, itrealvalue
  fields >> st.startTicks;
  if (!fields) return std::nullopt;
  return st;
}

// The live (not zombie) processes of the group, in its own session as the command's are.
std::vector<int64_t> groupMembers(int64_t group) {
  std::vector<int64_t> members;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return members;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::optional<ProcStat> st = procStat(pid);
    if (st && st->group == group && st->session == group && st->state != 'Z' && st->state != 'X')
      members.push_back(pid);
  }
  closedir(proc);
  return members;
}

}  // namespace

std::optional<RunningRecord> readRunningRecord(const std::string& path, std::string& problem) {
  const nlohmann::json j = nlohmann::json::parse(fileText(path, 65536), nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("schema", "") != kRunningSchema) {
    problem = "not a " + std::string(kRunningSchema) + " record";
    return std::nullopt;
  }
  try {
    RunningRecord r;
    r.id = j.at("id").get<std::string>();
    r.group = j.at("group").get<int64_t>();
    r.bootId = j.at("boot_id").get<std::string>();
    r.startTicks = j.at("start_ticks").get<uint64_t>();
    r.start = j.value("start", "");
    if (r.group <= 1) throw std::invalid_argument("group");
    return r;
  } catch (const std::exception&) {
    problem = "a field is missing or of the wrong type";
    return std::nullopt;
  }
}

namespace {

// Whether the recorded group is still the command's: its leader gone (the group id stays reserved while any
// member lives) or alive with the recorded start time (not a later process given the same pid).
bool stillTheCommands(const RunningRecord& r) {
  if (r.bootId != bootId()) return false;
  const std::optional<ProcStat> leader = procStat(r.group);
  return !leader || leader->startTicks == r.startTicks;
}

bool waitGone(int64_t group, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (groupMembers(group).empty()) return true;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

RunningRecord runningRecordOf(const std::string& id, pid_t group, const std::string& start) {
  RunningRecord r;
  r.id = id;
  r.group = group;
  r.bootId = bootId();
  if (const std::optional<ProcStat> st = procStat(group)) r.startTicks = st->startTicks;
  r.start = start;
  return r;
}

std::string runningRecordText(const RunningRecord& r) {
  nlohmann::ordered_json j;
  j["schema"] = kRunningSchema;
  j["id"] = r.id;
  j["group"] = r.group;
  j["boot_id"] = r.bootId;
  j["start_ticks"] = r.startTicks;
  j["start"] = r.start;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

void writeRunningRecord(const std::string& path, const RunningRecord& record) {
  try {
    writeFileAtomically(path, runningRecordText(record));
  } catch (const AtomicFileError& e) {
    // The temporary file is named when it could not be created: that is where the permission is missing.
    if (e.stage == AtomicFileError::Stage::kCreate)
      throw std::runtime_error("cannot write " + e.temporary + ": " + e.reason);
    throw;
  }
}

void removeRunningRecord(const std::string& path) {
  std::remove(path.c_str());
}

std::vector<std::string> killLeftoverRun(const std::string& path, double waitSeconds) {
  std::vector<std::string> said;
  if (access(path.c_str(), F_OK) != 0) return said;
  std::string problem;
  const std::optional<RunningRecord> r = readRunningRecord(path, problem);
  if (!r) {
    said.push_back(path + ": " + problem + "; removed (nothing killed)");
  } else if (stillTheCommands(*r) && !groupMembers(r->group).empty()) {
    const size_t count = groupMembers(r->group).size();
    kill(static_cast<pid_t>(-r->group), SIGKILL);
    if (!waitGone(r->group, waitSeconds))
      throw std::runtime_error("run " + r->id + " of an earlier sweep is still running (process group " +
                               std::to_string(r->group) + ") after SIGKILL; the sweep will not run beside it");
    said.push_back("run " + r->id + " of an earlier sweep (started " + r->start +
                   ") was still running: process group " + std::to_string(r->group) + " (" + std::to_string(count) +
                   (count == 1 ? " process" : " processes") + ") killed");
  }
  removeRunningRecord(path);
  return said;
}

}  // namespace railtune::sweep
