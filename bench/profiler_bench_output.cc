#include "bench/profiler_bench_output.h"

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "bench/profiler_bench_table.h"  // ProfilerBenchError
#include "common/bounded_queue.h"
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

// How the producer paces its pushes: as fast as push() goes; 100 records, then a sleep until the next
// batch is due (a job that blocks in between); or one record every 1/rate s with the thread spinning in
// between (the application thread of a job that never leaves its core; descheduled, it does not catch up
// in a burst: a job's thread issues nothing while it does not run).
enum class Pace { Max, Sleep, Spin };

// --consumer-fifo: the thread that consumes (the writer's, queue-only's) runs SCHED_FIFO at priority 1 and
// the producer as usual. On a machine that other jobs share, the consumer then runs when it wants, as on an
// idle VM whose other core it has alone. Needs CAP_SYS_NICE; without it the benchmark reports an error.
bool& consumerFifo() {
  static bool fifo = false;
  return fifo;
}

// While it lives, threads this thread starts run SCHED_FIFO (they inherit its policy); this one then goes
// back to SCHED_OTHER. ok() false: the policy could not be set.
class FifoConsumer {
 public:
  FifoConsumer() {
    if (!consumerFifo()) return;
    const sched_param fifo{1};
    ok_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) == 0;
  }
  ~FifoConsumer() {
    const sched_param normal{0};
    if (consumerFifo()) pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
  }
  FifoConsumer(const FifoConsumer&) = delete;
  FifoConsumer& operator=(const FifoConsumer&) = delete;
  bool ok() const { return ok_; }

 private:
  bool ok_ = true;
};

// Calls push(record) for `seconds` at `rate` records per second, paced so, with seq counting up.
template <typename Push>
void produce(Push&& push, OperationRecord record, Pace pace, double rate, double seconds) {
  using PaceClock = std::chrono::steady_clock;
  const auto start = PaceClock::now();
  const auto length = std::chrono::duration<double>(seconds);
  const auto batch = pace == Pace::Spin ? 1 : 100;
  const auto period = std::chrono::duration_cast<PaceClock::duration>(std::chrono::duration<double>(batch / rate));
  for (auto next = start; next - start < length;) {
    for (int i = 0; i < batch; ++i, ++record.seq) push(record);
    if (pace == Pace::Max) {
      next = PaceClock::now();
      continue;
    }
    next += period;
    if (pace == Pace::Sleep) std::this_thread::sleep_until(next);
    if (pace == Pace::Spin && PaceClock::now() > next + period) next = PaceClock::now();  // was descheduled
    while (pace == Pace::Spin && PaceClock::now() < next) {
    }
  }
}

void deliveryCounters(benchmark::State& state, double wall, uint64_t delivered, uint64_t dropped) {
  state.SetIterationTime(wall);
  state.counters["written_per_s"] = static_cast<double>(delivered) / wall;
  state.counters["written"] = static_cast<double>(delivered);
  state.counters["dropped"] = static_cast<double>(dropped);
  state.counters["on_disk_pct"] = 100.0 * static_cast<double>(delivered) / static_cast<double>(delivered + dropped);
}

// One producer into a real ProfileWriter (temporary directory, Prometheus textfile too) for `seconds`;
// then shutdown() writes the rest.
void writerThroughput(benchmark::State& state, int flows, Pace pace, double rate, double seconds) {
  for (auto _ : state) {
    const ProfileOutputDir dir(true);
    po::ProfileOptions options;
    options.directory = dir.path();
    options.prometheusPath = dir.path() + "/metrics.prom";
    options.identity = railtune::profiler::testing::exampleIdentity();
    const double processStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID), threadStart = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    const auto wallStart = std::chrono::steady_clock::now();
    std::optional<FifoConsumer> fifo(std::in_place);
    if (!fifo->ok()) return state.SkipWithError("--consumer-fifo: SCHED_FIFO refused (CAP_SYS_NICE?)");
    po::ProfileWriter writer(options);
    fifo.reset();
    uint64_t produced = 0;
    produce([&](const OperationRecord& r) { writer.push(r), ++produced; }, benchRecord(flows), pace, rate, seconds);
    writer.shutdown();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    const double writerCpu =
        (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - processStart) - (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - threadStart);
    const CollectiveLogCounts counts = countCollectiveLog(dir.path());
    deliveryCounters(state, wall, counts.records, counts.recordsDropped);
    state.counters["writer_cpu_ns_per_record"] = writerCpu * 1e9 / static_cast<double>(counts.records);
    // Every record pushed is in the file or counted lost in it: 0.
    state.counters["unaccounted"] =
        static_cast<double>(produced) - static_cast<double>(counts.records + counts.recordsDropped);
  }
}

// The same producer into the writer's queue alone: a thread pops each record and does nothing with it,
// napping 1 ms when the queue is empty. What the writer would reach if rendering and writing were free.
void queueOnly(benchmark::State& state, int flows, Pace pace, double rate, double seconds) {
  for (auto _ : state) {
    railtune::BoundedQueue<OperationRecord> queue(po::ProfileOptions{}.capacity);
    std::atomic<bool> done{false};
    uint64_t popped = 0, dropped = 0;
    double consumerCpu = 0;
    const auto wallStart = std::chrono::steady_clock::now();
    std::optional<FifoConsumer> fifo(std::in_place);
    if (!fifo->ok()) return state.SkipWithError("--consumer-fifo: SCHED_FIFO refused (CAP_SYS_NICE?)");
    std::thread consumer([&] {
      const double start = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
      auto scratch = std::make_unique<OperationRecord>();
      for (bool last = false; !last;) {
        last = done.load(std::memory_order_acquire);
        while (queue.tryPop(*scratch)) ++popped;
        if (!last) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      consumerCpu = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - start;
    });
    fifo.reset();
    produce([&](const OperationRecord& r) { dropped += queue.tryPush(r) ? 0 : 1; }, benchRecord(flows), pace, rate,
            seconds);
    done.store(true, std::memory_order_release);
    consumer.join();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    deliveryCounters(state, wall, popped, dropped);
    state.counters["consumer_cpu_ns_per_record"] = consumerCpu * 1e9 / static_cast<double>(popped);
  }
}

void registerDelivery(const std::string& path, void (*run)(benchmark::State&, int, Pace, double, double), int flows,
                      Pace pace, double rate, double seconds) {
  const std::string name =
      path + "/flows:" + std::to_string(flows) +
      (pace == Pace::Max ? std::string("/rate:max")
                         : "/rate:" + std::to_string(static_cast<int>(rate)) + (pace == Pace::Spin ? "/spin" : ""));
  benchmark::RegisterBenchmark(name.c_str(), run, flows, pace, rate, seconds)
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

void registerOutputBenchmarks(double writerSeconds, bool fifo) {
  consumerFifo() = fifo;
  for (const int flows : {0, 4}) {
    const std::string suffix = "/flows:" + std::to_string(flows);
    benchmark::RegisterBenchmark(("output/render/nlohmann" + suffix).c_str(), renderNlohmann, flows);
    benchmark::RegisterBenchmark(("output/render/appender" + suffix).c_str(), renderAppender, flows);
  }
  for (const int flows : {0, 4}) {
    for (const auto& [pace, rate] : {std::pair{Pace::Max, 0.0}, {Pace::Sleep, 1e5}, {Pace::Spin, 1e5}}) {
      registerDelivery("output/writer", writerThroughput, flows, pace, rate, writerSeconds);
      registerDelivery("output/queue-only", queueOnly, flows, pace, rate, writerSeconds);
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
