// See prometheus.h.
#include "profiler_plugin/output/prometheus.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "profiler_plugin/profile_format.h"

namespace railtune::profiler::output {
namespace {

constexpr int kSizeBuckets = 13;  // 1 KiB .. 16 GiB, then "larger"

// Go's ParseFloat spelling, which Prometheus reads: shortest round-trip digits, +Inf, -Inf, NaN.
std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[64];
  const auto result = std::to_chars(text, text + sizeof(text), value);
  return std::string(text, result.ptr);
}

// Label values escape backslash, double quote and newline (the exposition format's rule).
std::string escapeLabel(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out;
}

uint64_t sizeBucket(uint64_t bytes) {
  uint64_t bound = 1024;
  for (uint64_t bucket = 0; bucket < kSizeBuckets; ++bucket, bound *= 4) {
    if (bytes <= bound) return bucket;
  }
  return kSizeBuckets;
}

std::string bucketLabel(uint64_t bucket) {
  if (bucket >= kSizeBuckets) return "larger";
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB"};
  const uint64_t log2 = 10 + 2 * bucket;  // 1 KiB = 2^10
  return std::to_string(1ULL << (log2 % 10)) + kUnits[log2 / 10 - 1];
}

template <size_t N>
void count(const std::array<double, N>& bounds, double value, std::array<uint64_t, N>* buckets) {
  for (size_t i = 0; i < N; ++i) {
    if (value <= bounds[i]) {
      ++(*buckets)[i];
      return;
    }
  }
}

void header(const char* name, const char* type, const char* help, std::string* out) {
  *out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

template <size_t N>
void histogram(const std::string& name, const std::string& labels, const std::array<double, N>& bounds,
               const std::array<uint64_t, N>& buckets, uint64_t total, double sum, std::string* out) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < N; ++i) {
    cumulative += buckets[i];
    *out += name + "_bucket{" + labels + ",le=\"" + number(bounds[i]) + "\"} " + std::to_string(cumulative) + "\n";
  }
  *out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(total) + "\n";
  *out += name + "_sum{" + labels + "} " + number(sum) + "\n";
  *out += name + "_count{" + labels + "} " + std::to_string(total) + "\n";
}

}  // namespace

std::string sizeBucketLabel(uint64_t bytes) {
  return bucketLabel(sizeBucket(bytes));
}

void PrometheusMetrics::add(const OperationRecord& record) {
  eventsDropped_ += record.eventsDropped;
  if (record.kind == RecordKind::Lost) {
    operationsDropped_ += record.operationsDropped;
    return;
  }
  const std::string op(record.operation.view());
  if (record.kind == RecordKind::Hang) {
    ++hangs_[op];
    return;
  }
  ++byPath_[static_cast<size_t>(record.path)];
  Series& s = series_[{op, sizeBucket(record.bytes)}];
  ++s.operations;
  s.bytes += record.bytes;
  const double seconds = durationUs(record) / 1e6;
  s.seconds += seconds;
  count(kDurationBounds, seconds, &s.duration);
  const double busbw = roundedBusbw(record);
  s.busbwSum += busbw;
  count(kBusbwBounds, busbw, &s.busbw);
}

std::string PrometheusMetrics::labels(const std::string& op, const std::string& size) const {
  std::string out = "job_id=\"" + escapeLabel(identity_.job) + "\",host=\"" + escapeLabel(identity_.host) +
                    "\",pid=\"" + std::to_string(identity_.pid) + "\"";
  if (!op.empty()) out += ",op=\"" + escapeLabel(op) + "\"";
  if (!size.empty()) out += ",size=\"" + size + "\"";
  return out;
}

void PrometheusMetrics::renderSeries(std::string* out) const {
  header("railtune_profile_operations_total", "counter", "Completed NCCL operations.", out);
  for (const auto& [key, s] : series_) {
    *out += "railtune_profile_operations_total{" + labels(key.first, bucketLabel(key.second)) + "} " +
            std::to_string(s.operations) + "\n";
  }
  header("railtune_profile_bytes_total", "counter", "Message bytes of completed NCCL operations.", out);
  for (const auto& [key, s] : series_) {
    *out += "railtune_profile_bytes_total{" + labels(key.first, bucketLabel(key.second)) + "} " +
            std::to_string(s.bytes) + "\n";
  }
  header("railtune_profile_duration_seconds", "histogram", "Duration of completed NCCL operations.", out);
  for (const auto& [key, s] : series_) {
    histogram("railtune_profile_duration_seconds", labels(key.first, bucketLabel(key.second)), kDurationBounds,
              s.duration, s.operations, s.seconds, out);
  }
  header("railtune_profile_busbw_gbps", "histogram", "Bus bandwidth (nccl-tests formula) in GB/s.", out);
  for (const auto& [key, s] : series_) {
    histogram("railtune_profile_busbw_gbps", labels(key.first, bucketLabel(key.second)), kBusbwBounds, s.busbw,
              s.operations, s.busbwSum, out);
  }
}

std::string PrometheusMetrics::render() const {
  std::string out;
  renderSeries(&out);
  header("railtune_profile_hangs_total", "counter", "Operations the hang watchdog reported.", &out);
  for (const auto& [op, hangs] : hangs_) {
    out += "railtune_profile_hangs_total{" + labels(op, "") + "} " + std::to_string(hangs) + "\n";
  }
  header("railtune_profile_events_dropped_total", "counter", "Profiler events that could not be recorded.", &out);
  out += "railtune_profile_events_dropped_total{" + labels("", "") + "} " + std::to_string(eventsDropped_) + "\n";
  header("railtune_profile_operations_dropped_total", "counter", "NCCL operations the profiler could not record.",
         &out);
  out +=
      "railtune_profile_operations_dropped_total{" + labels("", "") + "} " + std::to_string(operationsDropped_) + "\n";
  header("railtune_profile_records_dropped_total", "counter", "Records the profiler's writer lost.", &out);
  out += "railtune_profile_records_dropped_total{" + labels("", "") + "} " + std::to_string(recordsDropped_) + "\n";
  header("railtune_profile_operations_by_path_total", "counter",
         "Completed NCCL operations by the path that ran them (tuned, symmetric, copy_engine).", &out);
  for (OperationPath path : {OperationPath::Tuned, OperationPath::Symmetric, OperationPath::CopyEngine}) {
    out += "railtune_profile_operations_by_path_total{" + labels("", "") + ",path=\"" + operationPathName(path) +
           "\"} " + std::to_string(byPath_[static_cast<size_t>(path)]) + "\n";
  }
  return out;
}

std::string writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + temporary + ": " + std::strerror(errno);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = "cannot write " + temporary + ": " + std::strerror(errno);
      close(fd);
      unlink(temporary.c_str());
      return reason;
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
    unlink(temporary.c_str());
    return reason;
  }
  return "";
}

}  // namespace railtune::profiler::output
