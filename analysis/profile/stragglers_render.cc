// Renderers of the straggler report (stragglers_render.h). Numbers are rounded to nanoseconds (three
// decimals of a microsecond) so that the same report always gives the same bytes.
#include "analysis/profile/stragglers_render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/profile/losses.h"
#include "analysis/profile/tag_groups_render.h"
#include "formats/schemas.h"

namespace railtune::analysis::profile {
namespace {

using nlohmann::json;

double ns3(double us) {
  return std::round(us * 1000.0) / 1000.0;
}

// An arrival lateness: null when unknown (NaN).
json known(double us) {
  return std::isnan(us) ? json(nullptr) : json(ns3(us));
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

double share(const Offender& o) {
  return o.collectives == 0 ? 0.0 : static_cast<double>(o.collectivesLate) / static_cast<double>(o.collectives);
}

json collectiveJson(const LateCollective& c, const TagNames& names) {
  json out{{"comm", c.hasComm ? json(commName(true, c.comm)) : json(nullptr)},
           {"seq", c.seq},
           {"op", c.op},
           {"ranks", c.ranks},
           {"late_ranks", c.lateRanks},
           {"median_duration_us", ns3(c.medianDurationUs)},
           {"rank", c.rank},
           {"host", c.host},
           {"lateness_us", ns3(c.latenessUs)},
           {"arrival_lateness_us", known(c.arrivalLatenessUs)},
           {"late_trays", c.lateTrays},
           {"late_racks", c.lateRacks},
           {"cause", causeName(c.cause)}};
  addTagKeys(out, c.trait, names);
  return out;
}

json clocksJson(const JobStragglers& job) {
  const ClockSummary& c = job.clockSummary;
  json hosts = json::array();
  for (const HostClock& h : job.clocks)
    hosts.push_back({{"host", h.host},
                     {"clock", h.clock},
                     {"boot_id", h.bootId},
                     {"offset_us", h.bounded ? json(ns3(h.offsetUs)) : json(nullptr)},
                     {"error_us", h.bounded ? json(ns3(h.errorUs)) : json(nullptr)},
                     {"bounds_us", h.bounded ? json::array({ns3(h.lowUs), ns3(h.highUs)}) : json(nullptr)},
                     {"drift_ppm", h.bounded ? json(std::round(h.driftPpm * 1000.0) / 1000.0) : json(nullptr)}});
  return json{{"clocks", c.clocks},
              {"boot_id_clocks", c.bootIdClocks},
              {"reference", c.reference.empty() ? json(nullptr) : json(c.reference)},
              {"reference_realtime_ns", c.referenceRealtimeNs},
              {"collectives", c.collectives},
              {"transfers", c.transfers},
              {"drift_windows", c.windows},
              {"tolerance_us", ns3(c.toleranceUs)},
              {"consistent", c.consistent},
              {"hosts", hosts}};
}

json jobJson(const JobStragglers& job, const TagNames& names) {
  json comms = json::array(), offenders = json::array(), collectives = json::array(), clocks = json::object();
  for (const CommSummary& c : job.comms)
    comms.push_back({{"comm", c.hasComm ? json(commName(true, c.comm)) : json(nullptr)},
                     {"nranks", c.nRanks},
                     {"ranks_seen", c.ranksSeen},
                     {"missing_ranks", c.missingRanks},
                     {"collectives", c.collectives}});
  for (const Offender& o : job.offenders) offenders.push_back(offenderJson(o));
  for (const LateCollective& c : job.late) collectives.push_back(collectiveJson(c, names));
  for (const HostClock& h : job.clocks) clocks[h.host] = h.bounded ? json(ns3(h.offsetUs)) : json(nullptr);
  return json{{"job", job.job},
              {"processes", job.processes},
              {"hosts", job.hosts},
              {"racks", job.racksKnown ? json(job.racks) : json(nullptr)},
              {"unmapped_hosts", job.unmapped},
              {"comms", comms},
              {"collectives_analysed", job.collectives},
              {"late_events", job.lateEvents},
              {"offenders", offenders},
              {"collectives", collectives},
              {"clock_offsets_us", clocks},
              {"clocks", clocksJson(job)},
              {"losses", lossesJson(job.losses)},
              {"groups", tagGroupsJson(job.groups, names)}};
}

}  // namespace

std::string offenderName(const Offender& o) {
  const std::string rack = o.rack.empty() ? "" : " (" + o.rack + ")";
  switch (o.level) {
    case Level::Rack:
      return o.rack;
    case Level::Tray:
      return o.host + rack;
    case Level::Rank:
      return "rank " + std::to_string(o.rank) + " on " + o.host + rack;
  }
  return "";
}

nlohmann::json offenderJson(const Offender& o) {
  json out{{"level", levelName(o.level)},
           {"ranks", o.ranks},
           {"collectives_late", o.collectivesLate},
           {"collectives", o.collectives},
           {"share", std::round(share(o) * 10000.0) / 10000.0},
           {"median_lateness_us", ns3(o.medianLatenessUs)},
           {"p90_lateness_us", ns3(o.p90LatenessUs)},
           {"median_arrival_lateness_us", known(o.medianArrivalLatenessUs)},
           {"rack", o.rack.empty() ? json(nullptr) : json(o.rack)},
           {"cause", causeName(o.cause)},
           {"late_arrivals", o.lateArrivals},
           {"slow_computes", o.slowComputes}};
  if (o.level != Level::Rack) out["host"] = o.host;
  if (o.level == Level::Rank) {
    out["rank"] = o.rank;
    out["comm"] = o.hasComm ? json(commName(true, o.comm)) : json(nullptr);
  }
  return out;
}

std::string commName(bool hasComm, uint64_t comm) {
  if (!hasComm) return "-";
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(comm));
  return text;
}

std::string rankRanges(const std::vector<int>& ranks, size_t maxItems) {
  std::string out;
  size_t items = 0;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (items++ == maxItems) return out + ", ...";
    out += (out.empty() ? "" : ", ") + std::to_string(ranks[i]) + (j > i ? "-" + std::to_string(ranks[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string renderStragglersJson(const StragglerReport& report) {
  json jobs = json::array();
  for (const JobStragglers& job : report.jobs) jobs.push_back(jobJson(job, report.tagNames));
  return json{{"schema", formats::kProfileStragglersSchema}, {"jobs", jobs}}.dump(-1, ' ', false,
                                                                                  json::error_handler_t::replace) +
         "\n";
}

namespace {

// Left-aligned columns, two spaces apart, each as wide as its widest cell.
std::string columns(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> width;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i)
      width.resize(std::max(width.size(), i + 1)), width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i)
      line += row[i] + (i + 1 < row.size() ? std::string(width[i] - row[i].size() + 2, ' ') : "");
    out += line + "\n";
  }
  return out;
}

std::string plural(size_t n, const std::string& word, const std::string& many = "") {
  return std::to_string(n) + " " + (n == 1 ? word : many.empty() ? word + "s" : many);
}

// One line on the host clocks: how many, what they were told apart by, the range of offsets and their
// error bars (the secondary signal's correction).
void clockLine(const JobStragglers& job, std::ostringstream& out) {
  const ClockSummary& c = job.clockSummary;
  if (job.clocks.empty()) return;
  out << "  host clocks: " << plural(static_cast<size_t>(c.clocks), "clock") << " ("
      << (c.bootIdClocks == c.clocks ? "by boot id"
          : c.bootIdClocks == 0      ? "one per host: the logs name no boot id"
                                     : std::to_string(c.bootIdClocks) + " by boot id, the rest by host name")
      << ")";
  if (c.clocks == 1) {
    out << ": every host reads one clock, offsets 0\n";
    return;
  }
  if (!c.consistent) {
    out << ": the collectives contradict each other even with 4 ms of slack; offsets not estimated\n";
    return;
  }
  std::vector<const HostClock*> bounded;
  for (const HostClock& h : job.clocks)
    if (h.bounded) bounded.push_back(&h);
  const auto [low, high] = std::minmax_element(
      bounded.begin(), bounded.end(), [](const HostClock* a, const HostClock* b) { return a->offsetUs < b->offsetUs; });
  double error = 0, lowDrift = 0, highDrift = 0;
  for (const HostClock* h : bounded)
    error = std::max(error, h->errorUs), lowDrift = std::min(lowDrift, h->driftPpm),
    highDrift = std::max(highDrift, h->driftPpm);
  out << ", offsets from " << c.reference << "'s: " << fixed((*low)->offsetUs, 1) << " us (" << (*low)->host << ") to "
      << fixed((*high)->offsetUs, 1) << " us (" << (*high)->host << "), error bars up to +-" << fixed(error, 1)
      << " us";
  if (lowDrift != 0 || highDrift != 0)
    out << ", drift " << fixed(lowDrift, 1) << " to " << fixed(highDrift, 1) << " ppm";
  if (c.toleranceUs > 0) out << ", " << fixed(c.toleranceUs, 1) << " us of slack needed";
  if (bounded.size() < job.clocks.size())
    out << "; " << plural(job.clocks.size() - bounded.size(), "host")
        << " share no collective with the rest: offset unknown";
  out << "\n";
}

void headline(const JobStragglers& job, std::ostringstream& out) {
  int ranks = 0;
  for (const CommSummary& c : job.comms) ranks = std::max(ranks, std::max(c.nRanks, c.ranksSeen));
  out << "job " << job.job << ": " << plural(static_cast<size_t>(ranks), "rank") << ", "
      << plural(static_cast<size_t>(job.processes), "process", "processes") << " on "
      << plural(static_cast<size_t>(job.hosts), "tray")
      << (job.racksKnown ? " in " + plural(static_cast<size_t>(job.racks), "rack") : "") << ", "
      << plural(job.collectives, "collective") << " analysed, " << plural(job.lateEvents, "late event") << "\n";
  if (!job.racksKnown) out << "  racks unknown (no rail map): offenders are reported as trays and ranks\n";
  if (!job.unmapped.empty())
    out << "  " << job.unmapped.size() << " hosts not in the rail map (no rack): " << job.unmapped.front()
        << (job.unmapped.size() > 1 ? ", ..." : "") << "\n";
  for (const CommSummary& c : job.comms) {
    out << "  comm " << commName(c.hasComm, c.comm) << ": " << c.ranksSeen << " of "
        << (c.nRanks > 0 ? std::to_string(c.nRanks) : "?") << " ranks wrote records, "
        << plural(c.collectives, "collective");
    if (!c.missingRanks.empty()) out << "; missing ranks " << rankRanges(c.missingRanks, 12);
    out << "\n";
  }
  clockLine(job, out);
  out << lossesText(job.losses, 10);
}

void offenderTable(const JobStragglers& job, const StragglerOptions& options, std::ostringstream& out) {
  out << "persistent offenders (late in >= " << fixed(options.minShare * 100.0, 0)
      << "% and >= " << options.minCollectives << " of their collectives): ";
  if (job.offenders.empty()) {
    out << "none\n";
    return;
  }
  out << job.offenders.size() << "\n";
  std::vector<std::vector<std::string>> rows{
      {"level", "name", "ranks", "late", "share", "median_us", "p90_us", "arrival_us", "cause"}};
  for (const Offender& o : job.offenders)
    rows.push_back({levelName(o.level), offenderName(o), std::to_string(o.ranks),
                    std::to_string(o.collectivesLate) + "/" + std::to_string(o.collectives),
                    fixed(share(o) * 100.0, 1) + "%", fixed(o.medianLatenessUs, 1), fixed(o.p90LatenessUs, 1),
                    fixed(o.medianArrivalLatenessUs, 1), causeName(o.cause)});
  out << columns(rows, "  ");
  out << "  late: collectives late / taken part in; median_us, p90_us: lateness in the collectives it was late\n"
         "  in (the on-time ranks' duration minus the rank's), median and 90th percentile; arrival_us:\n"
         "  median arrival lateness with host clocks corrected (the secondary signal); cause: late_arrival or\n"
         "  slow_compute as the kernel phases (profiler v7) show it, unknown without them; times in microseconds\n";
}

void collectiveTable(const JobStragglers& job, size_t top, std::ostringstream& out) {
  out << "late collectives: " << job.late.size();
  if (job.late.empty()) {
    out << "\n";
    return;
  }
  out << " (the " << std::min(top, job.late.size()) << " latest)\n";
  std::vector<std::vector<std::string>> rows{
      {"comm", "seq", "op", "median_us", "late", "latest", "host", "lateness_us", "arrival_us", "groups"}};
  for (size_t i = 0; i < job.late.size() && i < top; ++i) {
    const LateCollective& c = job.late[i];
    std::string groups;
    for (const std::string& r : c.lateRacks) groups += (groups.empty() ? "rack " : ", rack ") + r;
    for (const std::string& t : c.lateTrays) groups += (groups.empty() ? "tray " : ", tray ") + t;
    rows.push_back({commName(c.hasComm, c.comm), std::to_string(c.seq), c.op, fixed(c.medianDurationUs, 1),
                    std::to_string(c.lateRanks) + "/" + std::to_string(c.ranks), "rank " + std::to_string(c.rank),
                    c.host, fixed(c.latenessUs, 1), fixed(c.arrivalLatenessUs, 1), groups.empty() ? "-" : groups});
  }
  out << columns(rows, "  ");
  out << "  median_us: the collective's median duration; late: late ranks / ranks; latest: the rank with the\n"
         "  largest lateness, on host; lateness_us, arrival_us: its lateness and arrival lateness; groups: the\n"
         "  racks and trays late as a whole; times in microseconds\n";
}

// Each host's clock, offset and error bar: the first `top` hosts by the size of their error bar.
void clockTable(const JobStragglers& job, size_t top, std::ostringstream& out) {
  if (job.clockSummary.clocks < 2 || !job.clockSummary.consistent) return;
  std::vector<const HostClock*> hosts;
  for (const HostClock& h : job.clocks) hosts.push_back(&h);
  std::stable_sort(hosts.begin(), hosts.end(), [](const HostClock* a, const HostClock* b) {
    if (a->bounded != b->bounded) return !a->bounded;
    return a->errorUs > b->errorUs;
  });
  out << "host clocks: " << hosts.size() << " hosts";
  if (hosts.size() > top) out << " (the " << top << " with the widest error bars; --json lists all)";
  out << "\n";
  std::vector<std::vector<std::string>> rows{{"host", "clock", "offset_us", "error_us", "drift_ppm"}};
  for (size_t i = 0; i < hosts.size() && i < top; ++i) {
    const HostClock& h = *hosts[i];
    const std::string clock = h.bootId ? "boot " + h.clock.substr(0, 8) : "own";
    if (!h.bounded) {
      rows.push_back({h.host, clock, "unknown", "-", "-"});
      continue;
    }
    rows.push_back({h.host, clock, fixed(h.offsetUs, 1), "+-" + fixed(h.errorUs, 1), fixed(h.driftPpm, 2)});
  }
  out << columns(rows, "  ");
  out << "  clock: the boot id its processes named (hosts with one boot id read one clock), or own (no boot id\n"
         "  in the logs: one clock per host); offset_us: its realtime minus " +
             job.clockSummary.reference +
             "'s, bounded by\n"
             "  the synchronising collectives (no rank ends before the last one started) and placed where its\n"
             "  collectives' ends line up; error_us: how far it can be off within those bounds; drift_ppm: its\n"
             "  rate against the reference clock\n";
}

}  // namespace

std::string renderStragglersTable(const StragglerReport& report, const StragglerOptions& options, size_t top) {
  std::ostringstream out;
  for (size_t i = 0; i < report.jobs.size(); ++i) {
    if (i > 0) out << "\n";
    headline(report.jobs[i], out);
    offenderTable(report.jobs[i], options, out);
    collectiveTable(report.jobs[i], top, out);
    tagGroupsTable(report.jobs[i].groups, report.tagNames, out);
    clockTable(report.jobs[i], top, out);
  }
  return out.str();
}

}  // namespace railtune::analysis::profile
