// Losses (losses.h).
#include "analysis/profile/losses.h"

#include <ctime>

#include <nlohmann/json.hpp>

#include "analysis/profile/stragglers_render.h"

namespace railtune::analysis::profile {
namespace {

using nlohmann::json;

// UTC with milliseconds: the hosts' realtime clocks, close enough to line up with other logs.
std::string utc(int64_t ns) {
  const std::time_t seconds = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char text[96];  // wide enough for any int fields, so the compiler sees nothing cut
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>((ns / 1000000) % 1000));
  return text;
}

std::string counts(const LossReport& l) {
  std::string out;
  auto add = [&out](uint64_t n, const char* what) {
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(l.recordsDropped, "records");
  add(l.operationsDropped, "operations");
  add(l.eventsDropped, "events");
  return out + " dropped";
}

}  // namespace

std::vector<LossReport> jobLosses(const ProfileLogs& logs, uint32_t job) {
  std::vector<LossReport> out;
  for (const Loss& l : logs.losses)
    if (l.job == job)
      out.push_back(LossReport{logs.hosts[l.host], l.pid, l.hasComm, l.comm, l.rank, l.recordsDropped,
                               l.operationsDropped, l.eventsDropped, l.firstNs, l.lastNs});
  return out;
}

bool recordsLostAfter(const ProfileLogs& logs, uint32_t job, bool hasComm, uint64_t comm, int rank, int64_t afterNs) {
  for (const Loss& l : logs.losses) {
    if (l.job != job || l.lastNs < afterNs || l.recordsDropped + l.operationsDropped == 0) continue;
    if (l.rank >= 0 && l.rank == rank && l.hasComm == hasComm && l.comm == comm) return true;
    if (l.rank >= 0) continue;
    for (const Stream& s : logs.streams)  // the writer's loss: any rank of that process
      if (s.job == job && s.host == l.host && s.pid == l.pid && s.rank == rank && s.hasComm == hasComm &&
          s.comm == comm)
        return true;
  }
  return false;
}

json lossesJson(const std::vector<LossReport>& losses) {
  json out = json::array();
  for (const LossReport& l : losses)
    out.push_back({{"host", l.host},
                   {"pid", l.pid},
                   {"comm", l.hasComm ? json(commName(true, l.comm)) : json(nullptr)},
                   {"rank", l.rank >= 0 ? json(l.rank) : json(nullptr)},
                   {"records_dropped", l.recordsDropped},
                   {"operations_dropped", l.operationsDropped},
                   {"events_dropped", l.eventsDropped},
                   {"first_realtime_ns", l.firstNs},
                   {"last_realtime_ns", l.lastNs}});
  return out;
}

std::string lossesText(const std::vector<LossReport>& losses, size_t maxItems) {
  if (losses.empty()) return "";
  std::string out = "  losses reported in the logs: " + std::to_string(losses.size()) + "\n";
  for (size_t i = 0; i < losses.size() && i < maxItems; ++i) {
    const LossReport& l = losses[i];
    out += "    " + l.host + " pid " + std::to_string(l.pid) +
           (l.rank >= 0 ? " comm " + commName(l.hasComm, l.comm) + " rank " + std::to_string(l.rank) : "") + ": " +
           counts(l) + ", " + utc(l.firstNs) + (l.lastNs != l.firstNs ? " to " + utc(l.lastNs) : "") + "\n";
  }
  if (losses.size() > maxItems) out += "    ... and " + std::to_string(losses.size() - maxItems) + " more\n";
  return out;
}

}  // namespace railtune::analysis::profile
