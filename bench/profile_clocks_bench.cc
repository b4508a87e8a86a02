// The host clock estimate of `profile stragglers` (analysis/profile/clocks.h) beside the one it replaced,
// the median over each host's records of (its end - the collective's median end), on the same samples:
// a synthetic job (analysis/synth) of RANKS ranks x 1,000 collectives, hosts of 4 ranks with clocks
// +-50 ms apart that drift by up to 20 ppm, built in memory (no files). docs/performance.md, "Host clock
// estimate". The bounds-based estimate's only extra cost over the median is the drift fit.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "analysis/profile/clocks.h"
#include "analysis/profile/collectives.h"
#include "analysis/synth/collective_records.h"
#include "analysis/synth/synth_job.h"
#include "eval/stragglers/plan.h"
#include "formats/rail_map.h"

namespace {

namespace pa = railtune::analysis::profile;
namespace sy = railtune::analysis::synth;

struct Job {
  pa::ProfileLogs logs;
  pa::CollectiveIndex index;
  std::vector<uint32_t> trayOfStream;
};

// One stream per rank, one sample per (rank, collective), as the reader would have made them.
std::unique_ptr<Job> makeJob(int ranks) {
  sy::SynthOptions o;
  o.ranks = ranks, o.collectives = 1000, o.seed = 7, o.pathLog = false, o.crossRail = 0;
  o.spread.maxDriftPpm = 20;
  o.offenders = {3, 1, ranks >= 144 ? 1 : 0};  // a slow rack needs another on time
  const auto synth = sy::makeSynthJob(
      o, railtune::formats::parseRailMap(railtune::eval::stragglers::railMapJson((ranks + 3) / 4, 18), "bench"));
  auto job = std::make_unique<Job>();
  pa::ProfileLogs& logs = job->logs;
  logs.jobs = {o.job.empty() ? "bench" : o.job};
  std::map<std::string, uint32_t> ops;
  for (int r = 0; r < ranks; ++r) {
    const int host = synth->placement.ranks[static_cast<size_t>(r)].host;
    logs.hosts.push_back(synth->placement.hosts[static_cast<size_t>(host)].entry->name);
    logs.streams.push_back(pa::Stream{0, static_cast<uint32_t>(r), 20000 + r, true, synth->comm, r, ranks, -1});
    job->trayOfStream.push_back(static_cast<uint32_t>(host));
    for (size_t s = 0; s < synth->timeline.collectives().size(); ++s) {
      const auto record = sy::collectiveRecord(*synth, r, s);
      const auto [it, added] =
          ops.try_emplace(std::string(record.operation.view()), static_cast<uint32_t>(logs.ops.size()));
      if (added) logs.ops.emplace_back(record.operation.view());
      logs.samples.push_back(pa::Sample{record.end.realtimeNs, record.end.monotonicNs - record.start.monotonicNs, s,
                                        static_cast<uint32_t>(r), it->second});
    }
  }
  job->index = pa::indexCollectives(logs, 0);
  return job;
}

const Job& jobOf(int ranks) {
  static std::map<int, std::unique_ptr<Job>> jobs;
  auto& job = jobs[ranks];
  if (!job) job = makeJob(ranks);
  return *job;
}

// The estimate before: per host the median of (end - the collective's median end).
std::vector<int64_t> medianOfEnds(const Job& job, size_t hosts) {
  const pa::ProfileLogs& logs = job.logs;
  std::vector<std::vector<int64_t>> diffs(hosts);
  std::vector<int64_t> ends;
  for (const pa::Collective& col : job.index.collectives) {
    ends.clear();
    for (uint32_t i = col.begin; i < col.end; ++i) ends.push_back(logs.samples[job.index.order[i]].endRealtimeNs);
    const int64_t median = pa::medianOf(ends);
    for (uint32_t i = col.begin; i < col.end; ++i) {
      const pa::Sample& s = logs.samples[job.index.order[i]];
      diffs[job.trayOfStream[s.stream]].push_back(s.endRealtimeNs - median);
    }
  }
  std::vector<int64_t> out(hosts, 0);
  for (size_t h = 0; h < hosts; ++h)
    if (!diffs[h].empty()) out[h] = pa::medianOf(diffs[h]);
  return out;
}

void BM_ClockMedianOfEnds(benchmark::State& state) {
  const Job& job = jobOf(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(medianOfEnds(job, (job.logs.streams.size() + 3) / 4));
  state.counters["samples"] = static_cast<double>(job.logs.samples.size());
}

void BM_ClockBounds(benchmark::State& state) {
  const Job& job = jobOf(static_cast<int>(state.range(0)));
  size_t windows = 0;
  for (auto _ : state) {
    const pa::ClockModel model = pa::estimateClocks(job.logs, job.index, job.trayOfStream);
    windows = model.windows;
    benchmark::DoNotOptimize(model.clocks.data());
  }
  state.counters["samples"] = static_cast<double>(job.logs.samples.size());
  state.counters["drift_windows"] = static_cast<double>(windows);
}

BENCHMARK(BM_ClockMedianOfEnds)->Arg(64)->Arg(2048)->Arg(8192)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ClockBounds)->Arg(64)->Arg(2048)->Arg(8192)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
