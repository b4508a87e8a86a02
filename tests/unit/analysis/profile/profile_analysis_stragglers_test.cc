// `profile stragglers` on synthetic jobs: deficit ranking, clock offsets, and offenders found at the
// right level (rank, tray, rack), with and without a rail map.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/profile/collectives.h"
#include "analysis/profile/stragglers.h"
#include "formats/profile_logs.h"
#include "tests/support/synthetic_profile_job.h"
#include "tests/unit/analysis/profile/profile_analysis_test_support.h"

namespace railtune::analysis::profile {
namespace {

using testing::TempDir;
namespace syn = railtune::testing::synthetic_profile;

struct Analysed {
  StragglerReport report;
  ProfileLogs logs;
};

Analysed analyse(const syn::JobSpec& spec, bool withRailMap, StragglerOptions options = {}) {
  TempDir dir;
  syn::writeJob(spec, dir.path(), 2);
  Analysed out;
  out.logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  const formats::RailMap railMap = formats::parseRailMap(syn::railMapJson(spec), "synthetic rail map");
  out.report = analyseStragglers(out.logs, withRailMap ? &railMap : nullptr, options);
  return out;
}

// The synthetic job's collectives are a training step's mix (analysis/synth/timeline.h): up to 13 ms
// long. A rank counts as late above 5 % of the median duration, so the delays the tests inject are
// 0.9 to 2 ms, as those `railtune paths synth` picks.
syn::JobSpec baseJob(int ranks, int collectives) {
  syn::JobSpec spec;
  spec.ranks = ranks;
  spec.collectives = collectives;
  return spec;
}

std::vector<std::string> describe(const std::vector<Offender>& offenders) {
  std::vector<std::string> out;
  for (const Offender& o : offenders) {
    out.push_back(std::string(levelName(o.level)) + " " +
                  (o.level == Level::Rack   ? o.rack
                   : o.level == Level::Tray ? o.host
                                            : std::to_string(o.rank)));
  }
  return out;
}

TEST(ProfileStatistics, MedianAndPercentile) {
  std::vector<int64_t> odd{5, 1, 3}, even{4, 1, 3, 2}, p{10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  EXPECT_EQ(medianOf(odd), 3);
  EXPECT_EQ(medianOf(even), 2);  // (2 + 3) / 2 in whole nanoseconds
  EXPECT_EQ(percentileOf(p, 0.9), 90);
}

TEST(Stragglers, DeficitNamesTheLateRankAndByHowMuch) {
  syn::JobSpec spec = baseJob(16, 20);
  spec.injected = {{syn::Injected::Level::Rank, 5, 1500, 1.0}};
  const Analysed a = analyse(spec, false);
  ASSERT_EQ(a.report.jobs.size(), 1u);
  const JobStragglers& job = a.report.jobs[0];
  EXPECT_EQ(job.collectives, 20u);
  ASSERT_EQ(job.late.size(), 20u);
  for (const LateCollective& c : job.late) {
    EXPECT_EQ(c.rank, 5);
    EXPECT_EQ(c.lateRanks, 1);
    EXPECT_NEAR(c.latenessUs, 1500.0, 12.0);  // the delay, give or take the others' jitter
    EXPECT_NEAR(c.arrivalLatenessUs, 1500.0, 12.0);
  }
  EXPECT_EQ(describe(job.offenders), std::vector<std::string>{"rank 5"});
  EXPECT_EQ(job.offenders[0].collectivesLate, 20u);
  EXPECT_EQ(job.offenders[0].host, "r000-t01");
}

// Each offset lies within its error bar of the truth, and the bar is what a collective's shortest
// duration allows (the bounds come from the collectives' ends and starts), not the clock spread.
TEST(Stragglers, ClockOffsetsAreBoundedByTheCollectives) {
  syn::JobSpec spec = baseJob(16, 20);
  spec.clockSpreadUs = 20000;  // clocks 40 times further apart than a collective lasts
  const Analysed a = analyse(spec, false);
  const JobStragglers& job = a.report.jobs.at(0);
  ASSERT_EQ(job.clocks.size(), 4u);
  EXPECT_EQ(job.clockSummary.clocks, 4);
  EXPECT_EQ(job.clockSummary.bootIdClocks, 0);  // no boot ids: one clock per host
  EXPECT_TRUE(job.clockSummary.consistent);
  EXPECT_EQ(job.clockSummary.windows, 0u);  // no drift: none fitted
  for (size_t t = 0; t < job.clocks.size(); ++t) {
    const HostClock& c = job.clocks[t];
    ASSERT_TRUE(c.bounded) << c.host;
    const double truth = syn::clockOffsetUs(spec, static_cast<int>(t)) - syn::clockOffsetUs(spec, 0);
    EXPECT_LE(std::abs(c.offsetUs - job.clocks[0].offsetUs - truth), c.errorUs + job.clocks[0].errorUs + 0.002)
        << c.host;
    EXPECT_LT(c.errorUs, 100.0) << c.host;
    EXPECT_EQ(c.driftPpm, 0.0);
  }
  EXPECT_TRUE(job.late.empty());  // jitter alone makes nobody late
}

// Hosts whose processes name one boot id read one clock: offsets exactly 0 however far apart their
// ends are, and trays on other machines are still estimated against them.
TEST(Stragglers, ProcessesWithOneBootIdShareAClock) {
  syn::JobSpec spec = baseJob(16, 20);
  spec.bootIds = true, spec.traysPerClock = 2, spec.clockSpreadUs = 20000;
  const Analysed a = analyse(spec, false);
  const JobStragglers& job = a.report.jobs.at(0);
  ASSERT_EQ(job.clocks.size(), 4u);
  EXPECT_EQ(job.clockSummary.clocks, 2);
  EXPECT_EQ(job.clockSummary.bootIdClocks, 2);
  EXPECT_EQ(job.clocks[0].offsetUs, job.clocks[1].offsetUs);
  EXPECT_EQ(job.clocks[0].clock, job.clocks[1].clock);
  EXPECT_TRUE(job.clocks[0].bootId);
  EXPECT_EQ(job.clocks[2].offsetUs, job.clocks[3].offsetUs);
  const double truth = syn::clockOffsetUs(spec, 2) - syn::clockOffsetUs(spec, 0);
  EXPECT_NEAR(job.clocks[2].offsetUs - job.clocks[0].offsetUs, truth,
              job.clocks[2].errorUs + job.clocks[0].errorUs + 0.002);
}

TEST(Stragglers, OneMachineIsOneClockWithOffsetZero) {
  syn::JobSpec spec = baseJob(16, 20);
  spec.bootIds = true, spec.traysPerClock = 4;
  const Analysed a = analyse(spec, false);
  const JobStragglers& job = a.report.jobs.at(0);
  EXPECT_EQ(job.clockSummary.clocks, 1);
  for (const HostClock& c : job.clocks) EXPECT_EQ(c.offsetUs, 0.0) << c.host;
  for (const HostClock& c : job.clocks) EXPECT_EQ(c.errorUs, 0.0) << c.host;
}

// Clocks that drift by up to 50 ppm over a job of seconds: the rates are fitted and every offset,
// at the reference time, is still within its (wider) error bar.
TEST(Stragglers, DriftingClocksAreFittedAndStayWithinTheirErrorBars) {
  syn::JobSpec spec = baseJob(32, 600);
  spec.driftPpm = 50, spec.clockSpreadUs = 50000;
  const Analysed a = analyse(spec, false);
  const JobStragglers& job = a.report.jobs.at(0);
  ASSERT_EQ(job.clocks.size(), 8u);
  EXPECT_GT(job.clockSummary.windows, 2u);
  auto synth = syn::makeJob(spec);
  const double referenceTrueNs =
      static_cast<double>(job.clockSummary.referenceRealtimeNs - synth->timeline.jobStartRealtimeNs());
  auto trueOffsetUs = [&](int tray) {
    return syn::clockOffsetUs(spec, tray) + syn::clockDriftPpm(spec, tray) * 1e-6 * referenceTrueNs / 1000.0;
  };
  int reference = 0;
  for (size_t t = 0; t < job.clocks.size(); ++t)
    if (job.clocks[t].host == job.clockSummary.reference) reference = static_cast<int>(t);
  for (size_t t = 0; t < job.clocks.size(); ++t) {
    const HostClock& c = job.clocks[t];
    const double truth = trueOffsetUs(static_cast<int>(t)) - trueOffsetUs(reference);
    EXPECT_LE(std::abs(c.offsetUs - truth), c.errorUs + 1.0) << c.host;
    EXPECT_LT(std::abs(c.offsetUs - truth), 100.0) << c.host;
  }
}

// Records timed by their enqueue (the profiler saw no kernel or proxy event) end when the enqueue did,
// not the collective: they bound no clock, so the offsets are unknown rather than wrong.
TEST(Stragglers, EnqueueTimedRecordsBoundNoClock) {
  syn::JobSpec spec = baseJob(8, 20);
  spec.injected = {{syn::Injected::Level::Rank, 5, 1500, 1.0}};
  TempDir dir;
  for (int rank = 0; rank < spec.ranks; ++rank) {
    std::string text;
    for (std::string line : syn::rankLines(spec, rank)) {
      const size_t at = line.find("\"timing\":\"kernel\"");
      if (at != std::string::npos) line.replace(at, 17, "\"timing\":\"enqueue\"");
      text += line + "\n";
    }
    dir.write("rank" + std::to_string(rank) + ".collectives.jsonl", text);
  }
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.problems.count, 0u);
  EXPECT_EQ(logs.enqueueTimed.size(), 160u);
  const JobStragglers job = analyseStragglers(logs, nullptr, StragglerOptions{}).jobs.at(0);
  ASSERT_EQ(job.clocks.size(), 2u);
  EXPECT_EQ(job.clockSummary.collectives, 0u);
  EXPECT_NE(job.clocks[0].bounded, job.clocks[1].bounded);  // the reference, and one unknown
  // Rank 5's host has no known offset: its arrival lateness is unknown, never read off a raw clock.
  ASSERT_EQ(describe(job.offenders), std::vector<std::string>{"rank 5"});
  EXPECT_TRUE(std::isnan(job.offenders[0].medianArrivalLatenessUs));
  EXPECT_TRUE(std::isnan(job.late.at(0).arrivalLatenessUs));
}

// A header names its process's boot id for the records of that process (job, host, pid) only; a header
// alone (a process that completed nothing) adds no job.
TEST(Stragglers, HeaderBootIdsAttachToTheirProcessOnly) {
  syn::JobSpec spec = baseJob(8, 4);
  TempDir dir;
  const std::string bootId = "6d8e145f-06f8-4a85-a466-769661d96543";
  std::string header, other;
  formats::profile::appendHeaderLine(&header, Identity{"r000-t00", "synthetic", 20000}, 1, bootId);
  formats::profile::appendHeaderLine(&other, Identity{"r000-t00", "another-job", 20000}, 1, bootId);
  for (int rank = 0; rank < spec.ranks; ++rank)
    dir.write("rank" + std::to_string(rank) + ".collectives.jsonl",
              (rank == 0 ? header + "\n" : "") + testing::joinLines(syn::rankLines(spec, rank)));
  dir.write("other.collectives.jsonl", other + "\n");
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  EXPECT_EQ(logs.jobs, std::vector<std::string>{"synthetic"});
  ASSERT_EQ(logs.bootIds, std::vector<std::string>{bootId});
  for (const Stream& s : logs.streams) EXPECT_EQ(s.boot, s.pid == 20000 ? 0 : -1) << s.pid;
  const JobStragglers job = analyseStragglers(logs, nullptr, StragglerOptions{}).jobs.at(0);
  EXPECT_EQ(job.clockSummary.clocks, 3);  // rank 0's boot id, and the two trays by name (rank 0's tray-mates too)
}

// Two hosts 5 ms apart that only exchange Sends and Recvs (a pipeline's two stages): each receive ends
// 30 µs after its send started, in both directions, so the offset is bounded to +-30 µs by transfers alone.
TEST(Stragglers, TransfersBothWaysBoundTheClocks) {
  namespace pl = formats::profile;
  const int64_t epoch = 1764480000000000000LL, skewNs = 5'000'000;
  TempDir dir;
  std::string lines[2];
  for (uint64_t k = 0; k < 20; ++k) {
    for (int from = 0; from < 2; ++from) {
      const int64_t t = static_cast<int64_t>(k) * 1'000'000 + from * 400'000;  // true send start
      for (const bool send : {true, false}) {
        const int rank = send ? from : 1 - from;
        pl::OperationRecord r;
        r.kind = pl::RecordKind::P2p, r.comm = 0xab, r.rank = rank, r.nRanks = 2, r.seq = k, r.peer = 1 - rank;
        r.operation.assign(send ? "Send" : "Recv"), r.datatype.assign("ncclFloat32"), r.protocol.assign("SIMPLE");
        r.channels = 1, r.bytes = 1 << 20, r.timing = pl::TimingSource::Kernel;
        const int64_t start = send ? t : t - 200'000, end = send ? t + 50'000 : t + 30'000;  // the recv waited
        const int64_t skew = rank == 1 ? skewNs : 0;
        r.start = {epoch + start + skew, 1'000'000'000 + start};
        r.end = {epoch + end + skew, 1'000'000'000 + end};
        lines[rank] += pl::renderCollectiveLine(Identity{rank == 0 ? "stage0" : "stage1", "pp", 100 + rank}, r) + "\n";
      }
    }
  }
  dir.write("stage0.collectives.jsonl", lines[0]);
  dir.write("stage1.collectives.jsonl", lines[1]);
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  ASSERT_EQ(logs.problems.count, 0u) << logs.problems.first.at(0);
  const JobStragglers job = analyseStragglers(logs, nullptr, StragglerOptions{}).jobs.at(0);
  EXPECT_EQ(job.clockSummary.collectives, 0u);
  EXPECT_EQ(job.clockSummary.transfers, 40u);
  ASSERT_EQ(job.clocks.size(), 2u);
  ASSERT_TRUE(job.clocks[0].bounded && job.clocks[1].bounded);
  const double offset = job.clocks[1].offsetUs - job.clocks[0].offsetUs;
  EXPECT_NEAR(offset, 5000.0, 30.001);
  EXPECT_LE(job.clocks[1].lowUs - job.clocks[0].highUs, 5000.0);
  EXPECT_GE(job.clocks[1].highUs - job.clocks[0].lowUs, 5000.0);
  EXPECT_LE(std::max(job.clocks[0].errorUs, job.clocks[1].errorUs), 60.001);
}

TEST(Stragglers, OnlyPersistentLatenessMakesAnOffender) {
  syn::JobSpec spec = baseJob(16, 100);
  spec.injected = {{syn::Injected::Level::Rank, 2, 1500, 0.5}, {syn::Injected::Level::Rank, 9, 1500, 0.02}};
  const Analysed a = analyse(spec, false);
  const JobStragglers& job = a.report.jobs.at(0);
  EXPECT_EQ(describe(job.offenders), std::vector<std::string>{"rank 2"});  // rank 9: late twice, 2 %
  EXPECT_EQ(job.offenders[0].collectivesLate, 50u);
  EXPECT_EQ(job.late.size(), 50u);  // rank 9's two collectives coincide with rank 2's
}

TEST(Stragglers, ASlowTrayIsReportedAsTheTrayNotItsRanks) {
  syn::JobSpec spec = baseJob(32, 40);
  spec.injected = {{syn::Injected::Level::Tray, 3, 1200, 1.0}, {syn::Injected::Level::Rank, 1, 2000, 1.0}};
  const Analysed a = analyse(spec, false);
  const JobStragglers& job = a.report.jobs.at(0);
  EXPECT_FALSE(job.racksKnown);
  EXPECT_EQ(describe(job.offenders), (std::vector<std::string>{"tray r000-t03", "rank 1"}));
  EXPECT_EQ(job.offenders[0].ranks, 4);
  EXPECT_NEAR(job.offenders[0].medianLatenessUs, 1200.0, 12.0);
}

TEST(Stragglers, ASlowRackIsReportedAsTheRackWithARailMap) {
  syn::JobSpec spec = baseJob(64, 30);
  spec.ranksPerTray = 4, spec.traysPerRack = 4;  // racks of 16 ranks
  spec.injected = {{syn::Injected::Level::Rack, 2, 1000, 1.0}, {syn::Injected::Level::Tray, 1, 1500, 1.0}};
  const Analysed a = analyse(spec, true);
  const JobStragglers& job = a.report.jobs.at(0);
  EXPECT_TRUE(job.racksKnown);
  EXPECT_EQ(job.racks, 4);
  EXPECT_EQ(describe(job.offenders), (std::vector<std::string>{"rack r002", "tray r000-t01"}));
  EXPECT_EQ(job.offenders[0].ranks, 16);
}

// Half the job late together (one of its two racks): the on-time reference is the ranks that waited,
// not the median of all the durations, which would fall between the two racks and name nobody.
TEST(Stragglers, OneOfTwoRacksLateIsNamed) {
  syn::JobSpec spec = baseJob(32, 60);
  spec.ranksPerTray = 4, spec.traysPerRack = 4;  // two racks of 16 ranks
  spec.injected = {{syn::Injected::Level::Rack, 1, 900, 1.0 / 3}};
  const Analysed a = analyse(spec, true);
  const JobStragglers& job = a.report.jobs.at(0);
  EXPECT_EQ(describe(job.offenders), std::vector<std::string>{"rack r001"});
  EXPECT_EQ(job.offenders.at(0).collectivesLate, 20u);
}

// Two trays that make up a rack, late on their own schedules: the rack is late as a whole only when
// they happen to coincide (every 6th collective), so the trays are named, not the rack.
TEST(Stragglers, TraysLateApartAreNotTheirRack) {
  syn::JobSpec spec = baseJob(16, 60);
  spec.ranksPerTray = 4, spec.traysPerRack = 2;
  spec.injected = {{syn::Injected::Level::Tray, 0, 1200, 0.5}, {syn::Injected::Level::Tray, 1, 1500, 1.0 / 3}};
  const Analysed a = analyse(spec, true);
  EXPECT_EQ(describe(a.report.jobs.at(0).offenders), (std::vector<std::string>{"tray r000-t00", "tray r000-t01"}));
}

TEST(Stragglers, WithoutARailMapASlowRackShowsAsItsTrays) {
  syn::JobSpec spec = baseJob(64, 30);
  spec.ranksPerTray = 4, spec.traysPerRack = 4;
  spec.injected = {{syn::Injected::Level::Rack, 2, 1000, 1.0}};
  const Analysed a = analyse(spec, false);
  std::vector<std::string> trays = describe(a.report.jobs.at(0).offenders);
  std::sort(trays.begin(), trays.end());
  EXPECT_EQ(trays, (std::vector<std::string>{"tray r002-t00", "tray r002-t01", "tray r002-t02", "tray r002-t03"}));
}

TEST(Stragglers, NamesMissingRanksAndAnalysesJobsApart) {
  syn::JobSpec a = baseJob(8, 5), b = baseJob(8, 5);
  a.job = "job-a", b.job = "job-b";
  a.silentRanks = {3, 6};
  TempDir dir;
  syn::writeJob(a, dir.path(), 2);
  syn::writeJob(b, dir.path(), 2);
  const ProfileLogs logs = readProfileLogs(ReadOptions{{dir.path()}, false, 2, 20});
  const StragglerReport all = analyseStragglers(logs, nullptr, {});
  ASSERT_EQ(all.jobs.size(), 2u);
  EXPECT_EQ(all.jobs[0].job, "job-a");
  ASSERT_EQ(all.jobs[0].comms.size(), 1u);
  EXPECT_EQ(all.jobs[0].comms[0].nRanks, 8);
  EXPECT_EQ(all.jobs[0].comms[0].ranksSeen, 6);
  EXPECT_EQ(all.jobs[0].comms[0].missingRanks, (std::vector<int>{3, 6}));
  EXPECT_TRUE(all.jobs[1].comms[0].missingRanks.empty());
  StragglerOptions only;
  only.job = "job-b";
  const StragglerReport one = analyseStragglers(logs, nullptr, only);
  ASSERT_EQ(one.jobs.size(), 1u);
  EXPECT_EQ(one.jobs[0].job, "job-b");
}

}  // namespace
}  // namespace railtune::analysis::profile
