// The ranks' processes (launcher_internal.h): fork, environment, bounded wait, results.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <stdexcept>

#include "emulator/net_job/connect.h"
#include "emulator/net_job/launcher_internal.h"
#include "emulator/net_job/worker.h"

namespace railtune::emu::netjob {
namespace {

namespace fs = std::filesystem;

std::string uniqueName() {
  static std::atomic<int> jobs{0};
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return "railtune-net-job-" + std::to_string(::getpid()) + "-" + std::to_string(jobs++) + "-" +
         std::to_string(now.tv_nsec);
}

void setEnv(const char* name, const std::string& value) {
  if (::setenv(name, value.c_str(), 1) != 0) throw std::runtime_error(std::string("setenv ") + name + " failed");
}

// What NCCL's launcher (and railtune topo env) would give this rank.
void setRankEnvironment(const JobOptions& options, const JobResult& job, int rank) {
  const RankPlace& place = job.plan.ranks[static_cast<size_t>(rank)];
  const std::string& host = job.plan.hosts[static_cast<size_t>(place.hostIndex)].name;
  setEnv("RANK", std::to_string(rank));
  setEnv("LOCAL_RANK", std::to_string(place.gpu));
  setEnv("RAILTUNE_HOST", host);
  setEnv("RAILTUNE_RAIL_MAP", (fs::path(job.jobDir) / "rail-map.json").string());
  setEnv("RAILTUNE_NET_TRANSPORT", "socket");
  if (options.transport == NetTransport::Ib) {
    const char* scale = std::getenv("RAILTUNE_VERBS_SIM_TIME_SCALE");
    for (const auto& [name, value] : verbsRankEnvironment(job.verbs, host, scale != nullptr && *scale != '\0'))
      setEnv(name.c_str(), value);
  }
  setEnv("RAILTUNE_NET_ADDRESS_FILE", (fs::path(job.jobDir) / "addresses" / (host + ".txt")).string());
  setEnv("RAILTUNE_JOB_ID", options.jobId);
  setEnv("NCCL_NET_PLUGIN", options.pluginPath);
  setEnv("NCCL_CROSS_NIC", "0");
  if (!options.pathLogDir.empty()) setEnv("RAILTUNE_PATH_LOG_DIR", options.pathLogDir);
  if (!options.profileDir.empty()) {
    setEnv("NCCL_PROFILER_PLUGIN", options.profilerPath);
    setEnv("RAILTUNE_PROFILE_DIR", options.profileDir);
    setEnv("RAILTUNE_PROFILE_MASK", "all");
  }
  for (const auto& [name, value] : options.jobEnv) setEnv(name.c_str(), value);
  if (rank == options.faultRank)
    for (const auto& [name, value] : options.faultEnv) setEnv(name.c_str(), value);
}

std::string resultPath(const JobResult& job, int rank) {
  return (fs::path(job.jobDir) / ("result-" + std::to_string(rank) + ".json")).string();
}

std::string stderrPath(const JobResult& job, int rank) {
  return (fs::path(job.jobDir) / ("rank-" + std::to_string(rank) + ".stderr")).string();
}

// A rank's stderr goes to a file of the job folder: a sanitizer that reports without stopping the
// rank (TSan) only writes there, and the launcher reads it back (sanitizerReport).
void redirectStderr(const JobResult& job, int rank) {
  const int fd = ::open(stderrPath(job, rank).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::dup2(fd, STDERR_FILENO) < 0)
    throw std::runtime_error("cannot redirect stderr of rank " + std::to_string(rank));
  ::close(fd);
}

// The child: never returns, never runs the parent's exit handlers.
[[noreturn]] void rankProcess(const JobOptions& options, const JobResult& job, int rank, const std::string& prefix,
                              const std::map<int, int>& listeners, Clock::time_point deadline, pid_t parent,
                              Clock::time_point start) {
  int status = 2;
  try {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);     // a launcher that dies takes its ranks with it
    if (::getppid() != parent) ::_exit(3);  // it died before the line above took effect
    for (const auto& [r, fd] : listeners)
      if (r != rank) ::close(fd);
    redirectStderr(job, rank);
    setRankEnvironment(options, job, rank);
    WorkerSpec spec;
    spec.rank = rank;
    spec.plan = &job.plan;
    spec.collectives = options.collectives;
    spec.bytes = options.bytes;
    spec.iterations = options.iterations;
    spec.warmup = options.warmup;
    spec.mnnvl = options.mnnvl;
    spec.handleDir = (fs::path(job.jobDir) / "handles").string();
    spec.nvlinkName = prefix;
    spec.nvlinkListenFd = listeners.count(rank) != 0 ? listeners.at(rank) : -1;
    spec.behaviour = options.behaviour;
    spec.commId = 0x5ea1ab1e0000ull | static_cast<uint64_t>(::getppid() & 0xffff);
    spec.transfer.chunkBytes = options.chunkBytes;
    spec.profile = !options.profileDir.empty();
    spec.delayUs = rank == options.delayRank ? options.delayUs : 0;
    spec.transfer.deadline = deadline;
    if (job.stalledLink.first == rank) {
      spec.stallSendTo = job.stalledLink.second;
      spec.stallAt =
          start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.stallAfterSeconds));
    }
    const RankResult result = runRank(spec);
    writeResultFile(resultPath(job, rank), result);
    status = result.error.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "railtune net-job: rank %d: %s\n", rank, e.what());
  }
  std::fflush(nullptr);
  ::_exit(status);
}

struct Child {
  int rank;
  pid_t pid;
  bool running = true;
  bool killed = false;  // by the launcher, after another rank failed or at the deadline
  int status = 0;
  bool failed() const { return !killed && (!WIFEXITED(status) || WEXITSTATUS(status) != 0); }
};

void killRunning(std::vector<Child>& children) {
  for (Child& c : children)
    if (c.running) {
      ::kill(c.pid, SIGKILL);
      c.killed = true;
    }
}

// A rank that fails makes its peers fail soon after (a closed connection, a missing NVLink peer). They
// get this long to report before the rest are killed, so that the earliest failure can be told apart.
constexpr auto kFailureGrace = std::chrono::milliseconds(300);

// The signal JobOptions asks for, sent once its time has come. A rank killed this way is not a failure of
// the job, and no failure makes the launcher kill the others before the deadline.
struct InjectedSignal {
  int rank = -1, signal = 0;
  Clock::time_point at;
  bool sent = false;
  bool stalledLink = false;  // a link stops instead: nothing to send, but the job is left to hang too
  bool active() const { return (rank >= 0 && signal != 0) || stalledLink; }
  void sendIfDue(std::vector<Child>& children) {
    if (rank < 0 || signal == 0 || sent || Clock::now() < at) return;
    sent = true;
    for (Child& c : children)
      if (c.rank == rank && c.running) {
        if (signal == SIGKILL) c.killed = true;
        ::kill(c.pid, signal);
      }
  }
};

// Waits for every child; after the first failure (plus the grace) or past the deadline kills the
// rest. Returns whether the deadline passed.
bool waitAll(std::vector<Child>& children, Clock::time_point hardDeadline, InjectedSignal injected) {
  Clock::time_point killAt = hardDeadline;
  bool timedOut = false;
  for (size_t running = children.size(); running > 0;) {
    injected.sendIfDue(children);
    bool reaped = false;
    for (Child& c : children) {
      if (!c.running || ::waitpid(c.pid, &c.status, WNOHANG) != c.pid) continue;
      c.running = false;
      --running;
      reaped = true;
      if (c.failed() && !injected.active()) killAt = std::min(killAt, Clock::now() + kFailureGrace);
    }
    if (running > 0 && Clock::now() > killAt) {
      timedOut = killAt == hardDeadline;
      killRunning(children);
      killAt = Clock::time_point::max();
    }
    if (!reaped) {
      const timespec pause{0, 5'000'000};
      nanosleep(&pause, nullptr);
    }
  }
  return timedOut;
}

// The last lines a rank wrote to stderr (at most 20).
std::string stderrTail(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > 20) lines.erase(lines.begin());
  }
  std::string out;
  for (const std::string& line : lines) out += "    " + line + "\n";
  return out;
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

struct Failure {
  int64_t atUs;  // when the rank failed (steady clock, shared by all processes); max: unknown
  std::string text;
};

void keepWarnings(const RankResult& r, JobResult& job) {
  for (const std::string& line : r.pluginWarnings) job.pluginWarnings.push_back({r.rank, r.pid, r.startTag, line});
}

// The rank's WARNs go to JobResult::pluginWarnings, printed once with every other rank's, not here.
Failure describeFailure(JobResult& job, const Child& c) {
  const RankPlace& place = job.plan.ranks[static_cast<size_t>(c.rank)];
  const std::string who = "rank " + std::to_string(c.rank) + " (" +
                          job.plan.hosts[static_cast<size_t>(place.hostIndex)].name + ", GPU " +
                          std::to_string(place.gpu) + ")";
  constexpr int64_t kUnknown = std::numeric_limits<int64_t>::max();
  if (WIFSIGNALED(c.status))
    return {kUnknown, who + " died of signal " + std::to_string(WTERMSIG(c.status)) + " (" +
                          strsignal(WTERMSIG(c.status)) + "); its stderr: " + stderrPath(job, c.rank)};
  try {
    const RankResult r = readResultFile(resultPath(job, c.rank));
    keepWarnings(r, job);
    return {r.failedAtUs, who + ": " + r.error};
  } catch (const std::exception& e) {
    // No result: the rank stopped before it could write one; what it printed says why.
    return {kUnknown, who + " exited with status " + std::to_string(WEXITSTATUS(c.status)) + " (" + e.what() +
                          "); its stderr:\n" + stderrTail(stderrPath(job, c.rank))};
  }
}

// Errors in the order the ranks failed: the first is the cause, the others usually its consequences.
void collect(const std::vector<Child>& children, bool timedOut, const JobOptions& options, JobResult& job) {
  std::vector<Failure> failures;
  int killed = 0;
  for (const Child& c : children) {
    if (c.failed()) {
      failures.push_back(describeFailure(job, c));
    } else if (c.killed) {
      ++killed;
    } else {
      job.ranks.push_back(readResultFile(resultPath(job, c.rank)));
      keepWarnings(job.ranks.back(), job);
      const std::string report = sanitizerReport(stderrPath(job, c.rank));
      if (!report.empty()) failures.push_back({0, "rank " + std::to_string(c.rank) + ": sanitizer report:\n" + report});
    }
  }
  std::stable_sort(job.pluginWarnings.begin(), job.pluginWarnings.end(),
                   [](const PluginWarning& a, const PluginWarning& b) { return a.rank < b.rank; });
  std::stable_sort(failures.begin(), failures.end(),
                   [](const Failure& a, const Failure& b) { return a.atUs < b.atUs; });
  for (const Failure& f : failures) job.errors.push_back(f.text);
  if (killed > 0)
    job.errors.push_back(std::to_string(killed) + " rank(s) " +
                         (timedOut ? "did not finish within " + formatSeconds(options.timeoutSeconds)
                                   : "still running after the failure above") +
                         " and were killed");
}

}  // namespace

std::string sanitizerReport(const std::string& stderrFile) {
  std::ifstream in(stderrFile);
  std::string line, report;
  int kept = 0;
  while (std::getline(in, line) && kept < 40) {
    const bool marker = line.find("Sanitizer") != std::string::npos || line.find("runtime error:") != std::string::npos;
    if (report.empty() && !marker) continue;
    report += line + "\n";
    ++kept;
  }
  return report;
}

void runRanks(const JobOptions& options, JobResult& job) {
  const int n = static_cast<int>(job.plan.ranks.size());
  const std::string prefix = uniqueName();
  std::map<int, int> listeners;  // rank -> its NVLink stand-in listener, opened before any rank starts
  for (const auto& [from, to] : edgesFor(options.collectives, job.plan.ranks, options.mnnvl))
    if (overNvlink(job.plan.ranks[static_cast<size_t>(from)], job.plan.ranks[static_cast<size_t>(to)], options.mnnvl) &&
        listeners.count(to) == 0)
      listeners[to] = listenNvlink(prefix, to);
  const auto timeout =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeoutSeconds));
  const Clock::time_point start = Clock::now(), deadline = start + timeout;
  if (options.stallLink >= 0) {
    std::vector<Edge> plugin;
    for (const Edge& e : edgesFor(options.collectives, job.plan.ranks, options.mnnvl))
      if (!overNvlink(job.plan.ranks[static_cast<size_t>(e.first)], job.plan.ranks[static_cast<size_t>(e.second)],
                      options.mnnvl))
        plugin.push_back(e);
    std::sort(plugin.begin(), plugin.end());
    if (plugin.empty()) throw std::runtime_error("--stall-link: no connection of this job goes over the net plugin");
    job.stalledLink = plugin[static_cast<size_t>(options.stallLink) % plugin.size()];
  }
  std::fflush(nullptr);  // nothing buffered may be written twice by the children
  std::vector<Child> children;
  const pid_t self = ::getpid();
  for (int rank = 0; rank < n; ++rank) {
    const pid_t pid = ::fork();
    if (pid == 0) rankProcess(options, job, rank, prefix, listeners, deadline, self, start);
    if (pid < 0) {
      killRunning(children);
      for (Child& c : children) ::waitpid(c.pid, &c.status, 0);
      throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    }
    children.push_back(Child{rank, pid});
  }
  for (const auto& [rank, fd] : listeners) ::close(fd);
  // The ranks stop themselves at the deadline with a message; this grace covers a rank stuck in a call.
  InjectedSignal injected{
      options.signalRank, options.signal,
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.signalAfterSeconds)),
      false, options.stallLink >= 0};
  const bool timedOut = waitAll(children, deadline + std::chrono::seconds(5), injected);
  collect(children, timedOut, options, job);
}

}  // namespace railtune::emu::netjob
