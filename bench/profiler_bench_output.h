// The profiler's output directory during one benchmark (RAILTUNE_PROFILE_DIR set to a new temporary
// directory, or unset) and what the writer left in it: records written, records the writer's queue
// dropped, events the captures dropped, read from the collective logs.
// Also the writer's own benchmarks (registerOutputBenchmarks; docs/performance.md, "The writer's
// throughput"):
//   output/render/nlohmann/flows:N   the nlohmann::json renderers the writer had (the test oracle,
//                                    tests/unit/profiler_plugin/output/profiler_output_oracle.h): collective line,
//                                    network line, trace events of one record
//   output/render/appender/flows:N   the same bytes from today's renderers into reused buffers
//   output/writer/flows:N/rate:R[/spin]
//                                    one thread pushes into a real ProfileWriter (temporary directory,
//                                    Prometheus textfile too) for --writer-seconds, as fast as it can
//                                    (max), R records per second in batches of 100 with sleeps between,
//                                    or (spin) one record every 1/R s, spinning in between; the writer
//                                    thread renders and writes
//   output/queue-only/...            the same producer into the writer's queue alone, a thread popping
//                                    and discarding: what the writer would reach were rendering free
// Counters: records_per_s and cpu_ns_per_record (render: the benchmark thread's CPU time per
// record); writer: written_per_s (records in the collective log per second of wall time, until
// shutdown returned), dropped (records the full queue refused), on_disk_pct (written of written +
// dropped), unaccounted (pushed - written - counted lost in the file: 0), writer_cpu_ns_per_record (the
// process's CPU time less the pushing thread's, per written record); queue-only:
// consumer_cpu_ns_per_record.
#pragma once

#include <cstdint>
#include <string>

namespace railtune::bench {

// With `enabled`, makes a temporary directory and points RAILTUNE_PROFILE_DIR at it; without,
// unsets RAILTUNE_PROFILE_DIR. The destructor unsets it and removes the directory.
class ProfileOutputDir {
 public:
  explicit ProfileOutputDir(bool enabled);
  ~ProfileOutputDir();
  ProfileOutputDir(const ProfileOutputDir&) = delete;
  ProfileOutputDir& operator=(const ProfileOutputDir&) = delete;

  const std::string& path() const { return path_; }  // empty when disabled

 private:
  std::string path_;
};

struct CollectiveLogCounts {
  int files = 0;                // collective logs found
  uint64_t records = 0;         // "collective" and "p2p" lines
  uint64_t recordsDropped = 0;  // the sum of records_dropped
  uint64_t eventsDropped = 0;   // the sum of events_dropped
};

// Reads every *.collectives.jsonl file under `dir` (call it after the last communicator's finalize,
// when the writer has written everything).
CollectiveLogCounts countCollectiveLog(const std::string& dir);

// Registers the output/ benchmarks; the writer benchmark pushes for `writerSeconds`. With `consumerFifo`,
// the consuming thread runs SCHED_FIFO (a shared machine standing in for an idle one).
void registerOutputBenchmarks(double writerSeconds, bool consumerFifo = false);

}  // namespace railtune::bench
