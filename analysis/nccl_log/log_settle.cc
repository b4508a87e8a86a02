// Settling a LogSet once every line is read (log_set.h): Channel lines tied to their communicators, a
// connection's repeated lines dropped, and the processes that spliced headers made up removed.
#include "analysis/nccl_log/log_settle.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

namespace railtune::analysis::nccl_log {

int commOf(const Process& process, int tid, int rank) {
  for (size_t i = process.comms.size(); i-- > 0;) {
    if (process.comms[i].tid == tid && process.comms[i].rank == rank) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < process.comms.size(); ++i) {
    if (process.comms[i].rank != rank) continue;
    if (found >= 0 && process.comms[static_cast<size_t>(found)].pointer != process.comms[i].pointer) return -1;
    found = static_cast<int>(i);
  }
  return found;
}

int commOfLine(const Process& process, const NetConnection& c) {
  const int rank = c.localRank();
  for (size_t i = static_cast<size_t>(c.commsBefore); i < process.comms.size(); ++i) {
    const Comm& k = process.comms[i];
    if (k.tid == c.tid && k.rank == rank && !k.started) return static_cast<int>(i);
  }
  for (size_t i = std::min(static_cast<size_t>(c.commsBefore), process.comms.size()); i-- > 0;) {
    if (process.comms[i].tid == c.tid && process.comms[i].rank == rank) return static_cast<int>(i);
  }
  return commOf(process, c.tid, rank);
}

namespace {

// What tells one communicator of a process from another: its commId when printed, else its pointer.
std::string commIdentity(const Process& process, int comm) {
  if (comm < 0) return "?";
  const Comm& c = process.comms[static_cast<size_t>(comm)];
  return c.commId ? "id" + std::to_string(*c.commId) : "at" + c.pointer;
}

// A connection end is one however many files carry its line (a job's stdout and its NCCL_DEBUG_FILE, the same
// path given twice): keyed on what identifies it in its process, the first line read kept.
void dropRepeatedLines(Process& process, ReadCounts* counts) {
  std::set<std::tuple<std::string, int, int, int, int, bool>> seen;
  const size_t before = process.connections.size();
  std::erase_if(process.connections, [&](const NetConnection& c) {
    return !seen.emplace(commIdentity(process, c.comm), c.channel, c.connIndex, c.fromRank, c.toRank, c.send).second;
  });
  counts->duplicateLines += before - process.connections.size();
}

// Whether `process` is a spliced header: a few lines whose host is that of another process with the same pid,
// established, with text glued before it ("3host2" or "losshost2" where "host1:12:3" or "loss" ran into
// "host2:56:78 [1] NCCL INFO ..."). A real process prints dozens of lines; two hosts whose names end alike may
// well share a pid (containers), so a process with more lines than a few splices make is never taken for one.
constexpr uint64_t kMostSplicedLines = 3;
const Process* gluedOnto(const Process& process, const std::vector<Process>& all) {
  if (process.ncclLines > kMostSplicedLines) return nullptr;
  for (const Process& other : all) {
    if (!other.established || other.pid != process.pid || other.host.size() == process.host.size()) continue;
    // Text glued before the host, or the host's front cut off by the other writer ("-1-33" of "ip-10-0-1-33").
    if (process.host.ends_with(other.host) || other.host.ends_with(process.host)) return &other;
  }
  return nullptr;
}

// Processes that are not processes: each of their lines is a bad line, named.
void dropSplicedProcesses(LogSet& set) {
  const bool anyEstablished =
      std::any_of(set.processes.begin(), set.processes.end(), [](const Process& p) { return p.established; });
  if (!anyEstablished) {
    if (!set.processes.empty())
      set.diagnostics.push_back({set.processes.front().firstSeen,
                                 "no process printed an Init, device-list, version or network line (NCCL_DEBUG_SUBSYS "
                                 "without INIT?): hosts are taken from the Channel lines' headers alone"});
    return;
  }
  std::vector<bool> spliced(set.processes.size());
  std::vector<std::string> why(set.processes.size());
  for (size_t i = 0; i < set.processes.size(); ++i) {
    const Process& p = set.processes[i];
    const std::string name = p.host + ":" + std::to_string(p.pid);
    if (const Process* real = gluedOnto(p, set.processes)) {
      spliced[i] = true;
      why[i] = "the header names " + name + ": process " + real->host + ":" + std::to_string(real->pid) +
               " with its host cut or another writer's text glued before it (two writers' output spliced into one "
               "line); skipped";
    } else if (!p.established) {
      spliced[i] = true;
      why[i] = "the header names " + name +
               ", a process that printed no Init, device-list, version or network line in the logs given (two "
               "writers' output spliced into one line, or its INIT lines missing); skipped";
    }
  }
  for (size_t i = 0; i < set.processes.size(); ++i) {
    if (!spliced[i]) continue;
    const Process& p = set.processes[i];
    for (const LineRef& at : p.unconfirmed) set.diagnostics.push_back({set.where(at), why[i]});
    if (p.ncclLines > p.unconfirmed.size())
      set.diagnostics.push_back({p.firstSeen, "... and " + std::to_string(p.ncclLines - p.unconfirmed.size()) +
                                                  " more lines naming " + p.host + ":" + std::to_string(p.pid)});
    set.counts.badLines += p.ncclLines;
  }
  size_t kept = 0;
  for (size_t i = 0; i < set.processes.size(); ++i) {
    if (spliced[i]) continue;
    if (kept != i) set.processes[kept] = std::move(set.processes[i]);
    ++kept;
  }
  set.processes.resize(kept);
}

}  // namespace

void settle(LogSet& set) {
  dropSplicedProcesses(set);
  for (Process& process : set.processes) {
    // Before 2.18.3 a communicator's only line (Init COMPLETE) follows its Channel lines (init.cc): they are
    // tied to it once every line is read.
    for (NetConnection& c : process.connections)
      if (c.comm < 0) c.comm = commOf(process, c.tid, c.localRank());
    dropRepeatedLines(process, &set.counts);
    process.unconfirmed.clear();
    process.unconfirmed.shrink_to_fit();
  }
  std::sort(set.processes.begin(), set.processes.end(),
            [](const Process& a, const Process& b) { return std::tie(a.host, a.pid) < std::tie(b.host, b.pid); });
}

}  // namespace railtune::analysis::nccl_log
