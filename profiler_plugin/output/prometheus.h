// The Prometheus textfile (node-exporter's textfile collector, RAILTUNE_PROFILE_PROMETHEUS): what
// this process's operations did since it started, by operation and size bucket, in the text
// exposition format (version 0.0.4). Every series carries job_id, host and pid labels, so that the
// files of several ranks on one host can sit in one collector directory without clashing. (Not
// "job": Prometheus sets its own job label on every scraped series and would rename ours.)
//   railtune_profile_operations_total        counter    completed operations
//   railtune_profile_bytes_total             counter    their message bytes
//   railtune_profile_duration_seconds        histogram  duration (10 us .. 10 s)
//   railtune_profile_busbw_gbps              histogram  bus bandwidth, nccl-tests' formula (1 .. 800 GB/s)
//   railtune_profile_hangs_total             counter    hang records, by operation
//   railtune_profile_events_dropped_total    counter    events the capture could not record
//   railtune_profile_operations_dropped_total counter   operations the capture could not record
//   railtune_profile_records_dropped_total   counter    records the writer lost (queue full, disk failing)
//   railtune_profile_operations_by_path_total counter   completed operations by path (tuned, symmetric,
//                                                       copy_engine: formats/profile_record.h OperationPath)
// Size buckets are powers of 4 from 1 KiB: size="1KiB" holds messages up to 1 KiB, "4KiB" those
// above 1 KiB up to 4 KiB, ... "16GiB", then "larger".
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "common/identity.h"
#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::output {

// The size bucket's label of a message of `bytes`.
std::string sizeBucketLabel(uint64_t bytes);

class PrometheusMetrics {
 public:
  explicit PrometheusMetrics(Identity identity) : identity_(std::move(identity)) {}

  void add(const OperationRecord& record);  // a Lost record adds to the dropped counters only
  void addRecordsDropped(uint64_t count) { recordsDropped_ += count; }
  std::string render() const;

  static constexpr std::array<double, 7> kDurationBounds{1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10};
  static constexpr std::array<double, 9> kBusbwBounds{1, 5, 10, 25, 50, 100, 200, 400, 800};

 private:
  struct Series {
    uint64_t operations = 0, bytes = 0;
    double seconds = 0, busbwSum = 0;
    std::array<uint64_t, kDurationBounds.size()> duration{};  // per bucket, not cumulative
    std::array<uint64_t, kBusbwBounds.size()> busbw{};
  };

  std::string labels(const std::string& op, const std::string& size) const;
  void renderSeries(std::string* out) const;

  Identity identity_;
  std::map<std::pair<std::string, uint64_t>, Series> series_;  // (op, size bucket index)
  std::map<std::string, uint64_t> hangs_;
  uint64_t eventsDropped_ = 0, operationsDropped_ = 0, recordsDropped_ = 0;
  std::array<uint64_t, 3> byPath_{};  // by OperationPath
};

// Writes `text` to `path` atomically: a temporary file in the same directory, then rename(2), so
// node-exporter never reads half a file. Returns "" or the reason it could not.
std::string writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace railtune::profiler::output
