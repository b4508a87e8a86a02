#include "bench/profiler_bench_output.h"

#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <time.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>

#include "bench/profiler_bench_table.h"  // ProfilerBenchError
#include "formats/profile_logs.h"
#include "profiler_plugin/output/trace.h"
#include "profiler_plugin/output/writer.h"
#include "tests/unit/profiler_plugin/output/profiler_output_examples.h"
#include "tests/unit/profiler_plugin/output/profiler_output_oracle.h"

namespace railtune::bench {
namespace {

constexpr const char* kDirVariable = "RAILTUNE_PROFILE_DIR";

// The value of "key":N in a line of the collective log (keys are unique, numbers unsigned); 0
// when the key is absent.
uint64_t numberAfter(const std::string& line, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  const size_t at = line.find(quoted);
  if (at == std::string::npos) return 0;
  return std::strtoull(line.c_str() + at + quoted.size(), nullptr, 10);
}

namespace po = railtune::profiler::output;
using railtune::formats::profile::OperationRecord;

// The example AllReduce (4 flows on 2 channels) or Broadcast (none).
OperationRecord benchRecord(int flows) {
  return railtune::profiler::testing::exampleRecords()[flows > 0 ? 0 : 3];
}

double cpuSeconds(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// What a flush does to the writer's buffers: their capacity stays.
void clearAll(std::string* a, std::string* b, std::string* c) {
  a->clear();
  b->clear();
  c->clear();
}

void renderCounters(benchmark::State& state, double cpuStart) {
  const double seconds = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart;
  const double records = static_cast<double>(state.iterations());
  state.counters["records_per_s"] = records / seconds;
  state.counters["cpu_ns_per_record"] = seconds * 1e9 / records;
}

void renderNlohmann(benchmark::State& state, int flows) {
  const railtune::Identity identity = railtune::profiler::testing::exampleIdentity();
  OperationRecord record = benchRecord(flows);
  railtune::profiler::oracle::Trace trace(identity);
  std::string collectives, net, events;
  const double start = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (auto _ : state) {
    ++record.seq;
    collectives += railtune::profiler::oracle::collectiveLine(identity, record) + "\n";
    if (record.nFlows > 0) net += railtune::profiler::oracle::netLine(identity, record) + "\n";
    trace.append(record, &events);
    if (collectives.size() > (1 << 20)) clearAll(&collectives, &net, &events);
  }
  renderCounters(state, start);
}

void renderAppender(benchmark::State& state, int flows) {
  const railtune::Identity identity = railtune::profiler::testing::exampleIdentity();
  OperationRecord record = benchRecord(flows);
  po::TraceRenderer trace(identity);
  std::string collectives, net, events;
  const double start = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (auto _ : state) {
    ++record.seq;
    railtune::formats::profile::appendCollectiveLine(&collectives, identity, record);
    collectives += '\n';
    if (record.nFlows > 0) {
      railtune::formats::profile::appendNetLine(&net, identity, record);
      net += '\n';
    }
    trace.append(record, &events);
    if (collectives.size() > (1 << 20)) clearAll(&collectives, &net, &events);
  }
  renderCounters(state, start);
}

// One producer for `seconds`, as fast as push() goes (rate 0) or at `rate` records per second (in
// batches of 100); then shutdown() writes the rest.
void writerThroughput(benchmark::State& state, int flows, double rate, double seconds) {
  for (auto _ : state) {
    const ProfileOutputDir dir(true);
    po::ProfileOptions options;
    options.directory = dir.path();
    options.prometheusPath = dir.path() + "/metrics.prom";
    options.identity = railtune::profiler::testing::exampleIdentity();
    const double processStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID), threadStart = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    const auto wallStart = std::chrono::steady_clock::now();
    po::ProfileWriter writer(options);
    OperationRecord record = benchRecord(flows);
    const auto batch = std::chrono::duration<double>(rate > 0 ? 100 / rate : 0);
    for (auto next = wallStart; next - wallStart < std::chrono::duration<double>(seconds);) {
      for (int i = 0; i < 100; ++i, ++record.seq) writer.push(record);
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(batch);
      if (rate > 0) std::this_thread::sleep_until(next);
      if (rate <= 0) next = std::chrono::steady_clock::now();
    }
    writer.shutdown();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const double writerCpu =
        (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - processStart) - (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - threadStart);
    const CollectiveLogCounts counts = countCollectiveLog(dir.path());
    state.SetIterationTime(wall);
    state.counters["written_per_s"] = static_cast<double>(counts.records) / wall;
    state.counters["written"] = static_cast<double>(counts.records);
    state.counters["dropped"] = static_cast<double>(counts.recordsDropped);
    state.counters["writer_cpu_ns_per_record"] = writerCpu * 1e9 / static_cast<double>(counts.records);
  }
}

}  // namespace

void registerOutputBenchmarks(double writerSeconds) {
  for (const int flows : {0, 4}) {
    const std::string suffix = "/flows:" + std::to_string(flows);
    benchmark::RegisterBenchmark(("output/render/nlohmann" + suffix).c_str(), renderNlohmann, flows);
    benchmark::RegisterBenchmark(("output/render/appender" + suffix).c_str(), renderAppender, flows);
  }
  for (const int flows : {0, 4}) {
    for (const int rate : {0, 100000}) {
      const std::string name = "output/writer/flows:" + std::to_string(flows) +
                               (rate > 0 ? "/rate:" + std::to_string(rate) : std::string("/rate:max"));
      benchmark::RegisterBenchmark(name.c_str(), writerThroughput, flows, rate, writerSeconds)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

ProfileOutputDir::ProfileOutputDir(bool enabled) {
  if (!enabled) {
    unsetenv(kDirVariable);
    return;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "railtune-profbench-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw ProfilerBenchError("cannot create a directory like " + pattern);
  path_ = pattern;
  setenv(kDirVariable, path_.c_str(), 1);
}

ProfileOutputDir::~ProfileOutputDir() {
  unsetenv(kDirVariable);
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

CollectiveLogCounts countCollectiveLog(const std::string& dir) {
  CollectiveLogCounts counts;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = ".collectives.jsonl";
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    ++counts.files;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.find("\"record\":\"collective\"") != std::string::npos ||
          line.find("\"record\":\"p2p\"") != std::string::npos) {
        ++counts.records;
      }
      counts.recordsDropped += numberAfter(line, "records_dropped");
      counts.eventsDropped += numberAfter(line, "events_dropped");
    }
  }
  return counts;
}

}  // namespace railtune::bench
