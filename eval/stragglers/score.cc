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

// The name scoreOffenders gives offender `o` of the truth.
std::string truthName(const sy::SynthJob& job, const sy::Offender& o) {
  switch (o.level) {
    case sy::OffenderLevel::Rank:
      return "rank " + std::to_string(o.index);
    case sy::OffenderLevel::Tray:
      return "tray " + job.placement.hosts[static_cast<size_t>(o.index)].entry->name;
    case sy::OffenderLevel::Rack:
      return "rack " + job.placement.domains[static_cast<size_t>(o.index)];
  }
  return "";
}

// Of the injected offenders the report found at their level: the cause it gives against the truth. A
// job without phases has no cause to find: anything but unknown is a guess.
void scoreCauses(const sy::SynthJob& job, const pa::JobStragglers& answer, Score* score) {
  const bool phased = !job.offenders.slowCompute.empty();
  std::map<std::string, pa::Cause> said;
  for (const pa::Offender& o : answer.offenders)
    said[std::string(pa::levelName(o.level)) + " " +
         (o.level == pa::Level::Rank   ? std::to_string(o.rank)
          : o.level == pa::Level::Tray ? o.host
                                       : o.rack)] = o.cause;
  double truth = 0, right = 0, unknown = 0, wrong = 0;
  for (size_t i = 0; i < job.offenders.list.size(); ++i) {
    const std::string name = truthName(job, job.offenders.list[i]);
    const auto it = said.find(name);
    if (it == said.end()) continue;
    const pa::Cause expected = !phased                                           ? pa::Cause::Unknown
                               : job.offenders.computeBound(static_cast<int>(i)) ? pa::Cause::SlowCompute
                                                                                 : pa::Cause::LateArrival;
    truth += 1;
    if (it->second == expected) right += phased ? 1 : 0;
    if (it->second == pa::Cause::Unknown) unknown += phased ? 1 : 0;
    if (it->second != expected && it->second != pa::Cause::Unknown) {
      wrong += 1;
      score->causesRight = false;
      score->miss += name + ": cause " + pa::causeName(it->second) + ", injected " + pa::causeName(expected) + ". ";
    }
  }
  score->counters[phased ? "causes_true" : "causes_unphased"] = truth;
  score->counters[phased ? "causes_wrong" : "causes_guessed"] = wrong;
  if (phased) score->counters["causes_right"] = right, score->counters["causes_unknown"] = unknown;
}

bool groupHasRank(const pa::TagGroup& g, int rank) {
  return std::any_of(g.offenders.begin(), g.offenders.end(),
                     [&](const pa::Offender& o) { return o.level == pa::Level::Rank && o.rank == rank; });
}

// A rank late only in tag T's collectives is listed in T's group and in no other tag's; the symmetric
// collectives make groups of their own holding exactly them.
void scoreTags(const sy::SynthJob& job, const pa::JobStragglers& answer, Score* score) {
  if (job.offenders.onlyTag.empty()) return;
  double offenders = 0, hits = 0, falses = 0;
  for (size_t i = 0; i < job.offenders.list.size(); ++i) {
    const uint64_t tag = job.offenders.onlyTag[i];
    const sy::Offender& o = job.offenders.list[i];
    if (tag == 0 || o.level != sy::OffenderLevel::Rank) continue;
    offenders += 1;
    bool hit = false, stray = false;
    for (const pa::TagGroup& g : answer.groups) {
      if (!groupHasRank(g, o.index)) continue;
      (g.tagged && g.userTag == tag ? hit : stray) = true;
    }
    hits += hit ? 1 : 0, falses += stray ? 1 : 0;
    if (!hit || stray) {
      score->tagsRight = false;
      score->miss += "rank " + std::to_string(o.index) + " (late in tag " + std::to_string(tag) +
                     " only): " + (hit ? "" : "not in its tag's group") +
                     (stray ? " listed under another tag or path" : "") + ". ";
    }
  }
  score->counters["tag_offenders"] = offenders, score->counters["tag_hits"] = hits,
  score->counters["tag_false"] = falses;
  uint64_t symmetric = 0, grouped = 0;
  for (const sy::CollectiveSpec& c : job.timeline.collectives()) symmetric += c.symmetric ? 1 : 0;
  for (const pa::TagGroup& g : answer.groups)
    grouped += g.path == formats::profile::OperationPath::Symmetric ? g.collectives : 0;
  // Every offender a group lists is one injected (at its level), and late in that group's tag: an
  // offender late only in one tag's collectives is listed there alone.
  const std::set<std::string> truth = injected(job);
  double listed = 0, strays = 0;
  for (const pa::TagGroup& g : answer.groups)
    for (const pa::Offender& o : g.offenders) {
      listed += 1;
      const std::string name = std::string(pa::levelName(o.level)) + " " +
                               (o.level == pa::Level::Rank   ? std::to_string(o.rank)
                                : o.level == pa::Level::Tray ? o.host
                                                             : o.rack);
      if (truth.contains(name)) continue;
      strays += 1;
      score->tagsRight = false;
      score->miss += name + " listed under tag " + std::to_string(g.userTag) + " but not injected. ";
    }
  score->counters["group_offenders"] = listed, score->counters["group_offenders_false"] = strays;
  if (symmetric == 0) return;  // nothing to keep apart
  score->counters["path_checks"] = 1, score->counters["path_right"] = symmetric == grouped ? 1 : 0;
  if (symmetric != grouped) {
    score->tagsRight = false;
    score->miss +=
        std::to_string(symmetric) + " symmetric-kernel collectives, " + std::to_string(grouped) + " grouped as such. ";
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
  scoreCauses(job, report.jobs[0], &score);
  scoreTags(job, report.jobs[0], &score);
  scoreClocks(job, report.jobs[0], clockTargetUs, &score);
  return score;
}

}  // namespace railtune::eval::stragglers
