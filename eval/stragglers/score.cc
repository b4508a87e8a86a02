// See score.h.
#include "eval/stragglers/score.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace railtune::eval::stragglers {
namespace {

namespace sy = analysis::synth;
namespace pa = analysis::profile;

std::set<std::string> injected(const sy::SynthJob& job) {
  std::set<std::string> out;
  for (const sy::Offender& o : job.offenders.list) {
    switch (o.level) {
      case sy::OffenderLevel::Rank:
        out.insert("rank " + std::to_string(o.index));
        break;
      case sy::OffenderLevel::Tray:
        out.insert("tray " + job.placement.hosts[static_cast<size_t>(o.index)].entry->name);
        break;
      case sy::OffenderLevel::Rack:
        out.insert("rack " + job.placement.domains[static_cast<size_t>(o.index)]);
        break;
    }
  }
  return out;
}

std::set<std::string> named(const pa::JobStragglers& job) {
  std::set<std::string> out;
  for (const pa::Offender& o : job.offenders)
    out.insert(std::string(pa::levelName(o.level)) + " " +
               (o.level == pa::Level::Rank   ? std::to_string(o.rank)
                : o.level == pa::Level::Tray ? o.host
                                             : o.rack));
  return out;
}

std::string listed(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "nobody" : out;
}

void scoreOffenders(const sy::SynthJob& job, const pa::JobStragglers& answer, Score* score) {
  const std::set<std::string> truth = injected(job), said = named(answer);
  int hit = 0;
  for (const std::string& n : said) hit += truth.contains(n) ? 1 : 0;
  score->counters["offenders_true"] = static_cast<double>(truth.size());
  score->counters["offenders_named"] = static_cast<double>(said.size());
  score->counters["offenders_hit"] = hit;
  if (truth != said) {
    score->offendersExact = false;
    score->miss += "injected " + listed(truth) + "; named " + listed(said) + ". ";
  }
}

// Microseconds a host's clock is off at true time t (ns since the job's true time 0).
double trueOffsetUs(const sy::HostClock& c, double t) {
  return (static_cast<double>(c.realtimeOffsetNs) + c.driftPpm * 1e-6 * t) / 1000.0;
}

void scoreClocks(const sy::SynthJob& job, const pa::JobStragglers& answer, double targetUs, Score* score) {
  std::map<std::string, int> hostIndex;
  for (size_t h = 0; h < job.placement.hosts.size(); ++h)
    hostIndex[job.placement.hosts[h].entry->name] = static_cast<int>(h);
  const double referenceT =
      static_cast<double>(answer.clockSummary.referenceRealtimeNs - job.timeline.jobStartRealtimeNs());
  const double first = static_cast<double>(job.timeline.collectives().front().t0Ns);
  const double last = static_cast<double>(job.timeline.jobEndNs());
  double worst = 0, sameMachine = 0;
  int unknown = 0, withinBars = 0;
  const pa::HostClock* reference = nullptr;
  for (const pa::HostClock& c : answer.clocks)
    if (c.host == answer.clockSummary.reference) reference = &c;
  for (const double t : {first, referenceT, last}) {
    std::vector<double> differences;
    for (const pa::HostClock& c : answer.clocks) {
      if (!c.bounded) continue;
      const sy::HostClock truth = job.timeline.hostClock(hostIndex.at(c.host));
      differences.push_back(c.offsetUs + c.driftPpm * 1e-6 * (t - referenceT) / 1000.0 - trueOffsetUs(truth, t));
    }
    if (differences.empty()) continue;
    const auto [low, high] = std::minmax_element(differences.begin(), differences.end());
    worst = std::max(worst, (*high - *low) / 2);
  }
  for (const pa::HostClock& a : answer.clocks) {
    if (!a.bounded) {
      ++unknown;
      continue;
    }
    const int h = hostIndex.at(a.host);
    if (reference != nullptr) {
      const double truth = trueOffsetUs(job.timeline.hostClock(h), referenceT) -
                           trueOffsetUs(job.timeline.hostClock(hostIndex.at(reference->host)), referenceT);
      withinBars += std::abs(a.offsetUs - truth) <= a.errorUs + 0.002 ? 1 : 0;
    }
    for (const pa::HostClock& b : answer.clocks)
      if (b.bounded && job.timeline.clockOf(hostIndex.at(b.host)) == job.timeline.clockOf(h))
        sameMachine = std::max(sameMachine, std::abs(a.offsetUs - b.offsetUs));
  }
  score->counters["clock_hosts"] = static_cast<double>(answer.clocks.size());
  score->counters["clocks_unknown"] = unknown;
  score->counters["clocks_within_bars"] = withinBars;
  score->counters["max_clock_error_us"] = worst;
  score->counters["max_same_machine_us"] = sameMachine;
  char text[200];
  if (unknown > 0 || worst > targetUs || sameMachine > 0) {
    score->clocksWithinTarget = false;
    std::snprintf(text, sizeof text,
                  "clock offsets off by up to %.1f us (%d unknown, hosts of one machine %.3f us apart). ", worst,
                  unknown, sameMachine);
    score->miss += text;
  }
}

}  // namespace

Score scoreReport(const sy::SynthJob& job, const pa::StragglerReport& report, double clockTargetUs) {
  Score score;
  if (report.jobs.size() != 1) {
    score.offendersExact = score.clocksWithinTarget = false;
    score.miss = "the report has " + std::to_string(report.jobs.size()) + " jobs, the logs one. ";
    score.counters["offenders_true"] = static_cast<double>(injected(job).size());
    return score;
  }
  scoreOffenders(job, report.jobs[0], &score);
  scoreClocks(job, report.jobs[0], clockTargetUs, &score);
  return score;
}

}  // namespace railtune::eval::stragglers
