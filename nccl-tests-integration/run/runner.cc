// A sweep's plan run (runner.h).
#include "nccl-tests-integration/run/runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

#include "common/shell_quote.h"
#include "nccl-tests-integration/run/output_scan.h"
#include "nccl-tests-integration/run/process.h"
#include "nccl-tests-integration/run/running_record.h"

namespace railtune::sweep {
namespace {

namespace fs = std::filesystem;

// A -J file is a few kilobytes (one object per size); a larger one is not read (its run then has no table).
constexpr size_t kMaxJsonBytes = 16 * 1024 * 1024;
// nccl-tests' help text is a few kilobytes; only its start is read.
constexpr size_t kMaxHelpBytes = 1024 * 1024;

// The file's first max bytes ("" when it cannot be read); nullopt when it holds more (and oversized is set).
std::optional<std::string> fileStart(const std::string& path, size_t max, bool oversized = false) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string();
  std::string text(max + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() <= max) return text;
  if (oversized) return std::nullopt;
  text.resize(max);
  return text;
}

// The output's first bytes (what the run wrote until it ended) scanned in pieces: never held whole.
OutputScan scanOutput(const std::string& path, uint64_t bytes) {
  OutputScan scan;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::vector<char> buffer(1 << 20);
  uint64_t offset = 0;
  while (fd >= 0 && offset < bytes) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), bytes - offset));
    const ssize_t got = pread(fd, buffer.data(), want, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    scan.feed(std::string_view(buffer.data(), static_cast<size_t>(got)));
    offset += static_cast<uint64_t>(got);
  }
  if (fd >= 0) close(fd);
  scan.finish();
  return scan;
}

void writeWhole(int fd, std::string_view text, const std::string& path) {
  while (!text.empty()) {
    const ssize_t wrote = write(fd, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    text.remove_prefix(static_cast<size_t>(wrote));
  }
}

// DIR/manifest.jsonl, opened for appending and locked against a second sweep in the same folder.
class ManifestFile {
 public:
  ManifestFile(const std::string& path, bool restart) : path_(path) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      close(fd_);
      throw std::runtime_error(path + " is in use by another `railtune sweep run` (one sweep per folder)");
    }
    if (restart && ftruncate(fd_, 0) != 0) {
      close(fd_);
      throw std::runtime_error("cannot empty " + path + ": " + std::strerror(errno));
    }
  }
  ~ManifestFile() { close(fd_); }
  ManifestFile(const ManifestFile&) = delete;
  ManifestFile& operator=(const ManifestFile&) = delete;

  std::string text() const {
    std::string out;
    char buffer[65536];
    off_t offset = 0;
    for (;;) {
      const ssize_t got = pread(fd_, buffer, sizeof buffer, offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      out.append(buffer, static_cast<size_t>(got));
      offset += got;
    }
    return out;
  }

  // Each line whole, on a line of its own (after a line a crash cut), on disk before the next run starts.
  void append(const std::string& line) {
    const off_t size = lseek(fd_, 0, SEEK_END);
    if (size > 0) {
      char last = '\n';
      if (pread(fd_, &last, 1, size - 1) == 1 && last != '\n') writeWhole(fd_, "\n", path_);
    }
    writeWhole(fd_, line, path_);
    fdatasync(fd_);
  }

 private:
  std::string path_;
  int fd_ = -1;
};

void removeRunFiles(const std::string& dir, const PlannedRun& run) {
  std::error_code ec;
  fs::remove(fs::path(dir) / run.output, ec);
  if (run.json.empty()) return;
  fs::remove(fs::path(dir) / run.json, ec);
  // nccl-tests never overwrites: with FILE present it writes FILE.0, FILE.1, ... (src/util.cu).
  for (int i = 0; i < 100; ++i)
    if (!fs::remove(fs::path(dir) / (run.json + "." + std::to_string(i)), ec)) break;
}

void writeRulesFile(const PlannedRun& run) {
  std::error_code ec;
  fs::create_directories(fs::path(run.rulesFile).parent_path(), ec);
  std::ofstream out(run.rulesFile, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(run.rulesText.data(), static_cast<std::streamsize>(run.rulesText.size())) || !out.flush())
    throw std::runtime_error("cannot write " + run.rulesFile);
}

ManifestEntry entryOf(const PlannedRun& run, const Plan& plan, const SweepSpec& spec) {
  ManifestEntry entry;
  entry.id = run.id;
  entry.test = plan.test;
  entry.choice = run.choice;
  entry.repeat = run.repeat;
  entry.command = run.command;
  entry.env = run.env;
  entry.netEnv = run.netEnv;
  entry.output = run.notRun.empty() ? run.output : "";
  entry.json = run.notRun.empty() ? run.json : "";
  entry.nvlDomains = spec.nvlDomains;
  entry.mnnvl = spec.mnnvl;
  entry.fabric = spec.fabric;
  entry.call = spec.call;
  return entry;
}

std::string runningPath(const SweepSpec& spec) {
  return spec.dir + "/" + std::string(kRunningFileName);
}

// The run's command, its process group recorded (DIR/running.json) before it starts.
ProcessResult runOne(const PlannedRun& run, const SweepSpec& spec, const RunnerOptions& options, ManifestEntry& entry) {
  entry.start = utcNow();
  ProcessSpec process;
  process.argv = run.command;
  process.unset = options.unset;
  process.env = run.env;
  process.outputPath = spec.dir + "/" + run.output;
  process.timeoutSeconds = options.timeoutSeconds;
  process.killGraceSeconds = options.killGraceSeconds;
  process.onStart = [&](pid_t group) {
    writeRunningRecord(runningPath(spec), runningRecordOf(run.id, group, entry.start));
  };
  ProcessResult ended = runProcess(process);
  entry.end = utcNow();
  return ended;
}

// How the run ended, from what its output held when it ended (and its -J file when the text has no table).
Outcome outcomeOf(const PlannedRun& run, const SweepSpec& spec, const ProcessResult& ended) {
  const OutputScan scan = scanOutput(spec.dir + "/" + run.output, ended.outputBytes);
  std::string jsonText;
  if (scan.rows() == 0 && !run.json.empty())
    jsonText = fileStart(spec.dir + "/" + run.json, kMaxJsonBytes, true).value_or("");
  return classifyRun(scan, jsonText, ended.end);
}

std::string oneLine(std::string_view text, size_t max) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';
  return text.size() > max ? out + "..." : out;
}

}  // namespace

std::string utcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm = {};
  gmtime_r(&seconds, &tm);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  return text;
}

std::string formatDuration(double seconds) {
  if (seconds < 60) return std::to_string(static_cast<long>(std::lround(seconds))) + " s";
  const long minutes = static_cast<long>(std::ceil(seconds / 60));
  if (minutes < 60) return std::to_string(minutes) + " min";
  return std::to_string(minutes / 60) + " h " + std::to_string(minutes % 60) + " min";
}

std::string progressLine(size_t done, size_t total, const std::string& id, const Outcome& outcome, double seconds,
                         double etaSeconds) {
  char time[32];
  std::snprintf(time, sizeof time, "%.1f s", seconds);
  std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + id + " " +
                     runStatusName(outcome.status) + " " + time;
  if (!outcome.reason.empty()) line += " (" + oneLine(outcome.reason, 120) + ")";
  if (done < total) line += " \u00b7 ETA " + formatDuration(etaSeconds);
  return line;
}

bool listsJsonOption(std::string_view helpText) {
  return helpText.find("--output_file") != std::string_view::npos || helpText.find("-J,") != std::string_view::npos;
}

JsonProbe probeJsonSupport(const std::string& binary, const std::string& dir) {
  ProcessSpec spec;
  spec.argv = {binary, "-h"};
  spec.outputPath = dir + "/.help.txt";
  spec.timeoutSeconds = 15;
  spec.killGraceSeconds = 2;
  const ProcessResult result = runProcess(spec);
  const std::string help = fileStart(spec.outputPath, kMaxHelpBytes).value_or("");
  std::error_code ec;
  fs::remove(spec.outputPath, ec);
  JsonProbe probe;
  probe.help = help;
  if (!result.end.startError.empty()) {
    probe.note = "--json auto: " + result.end.startError + "; text output only";
  } else if (result.end.timedOut) {
    probe.note = "--json auto: `" + binary + " -h` did not end in 15 s; text output only (--json on forces -J)";
  } else if (listsJsonOption(help)) {
    probe.supported = true;
  } else {
    probe.note = "--json auto: `" + binary + " -h` does not list -J (nccl-tests before 2.17.3?): text output only";
  }
  return probe;
}

std::set<std::string> finishedRuns(const Manifest& previous, const Plan& plan, const std::string& manifestPath) {
  checkSameMatrix(previous, plan, manifestPath);
  std::map<std::string, const ManifestEntry*> last;
  for (const ManifestEntry& entry : previous.entries) last[entry.id] = &entry;
  std::set<std::string> done;
  for (const PlannedRun& run : plan.runs) {
    const auto it = last.find(run.id);
    if (it == last.end()) continue;
    const ManifestEntry& entry = *it->second;
    if (!run.notRun.empty()) {
      done.insert(run.id);
      continue;
    }
    if (entry.status == RunStatus::Failed) continue;
    if (entry.command != run.command) {
      std::string was, now;
      for (const std::string& w : entry.command) was += (was.empty() ? "" : " ") + shellQuote(w);
      for (const std::string& w : run.command) now += (now.empty() ? "" : " ") + shellQuote(w);
      throw std::invalid_argument(manifestPath + " has " + run.id + " run as `" + was + "`, this sweep would run `" +
                                  now + "`: pass --restart to start the sweep over, or choose another -o folder");
    }
    done.insert(run.id);
  }
  return done;
}

namespace {

// The choices NCCL never offers are recorded (once), the runs an earlier sweep finished counted; the rest are
// returned, in plan order, to run.
std::vector<const PlannedRun*> runsToRun(const Plan& plan, const SweepSpec& spec, const std::set<std::string>& done,
                                         ManifestFile& manifest, SweepResult& result) {
  std::vector<const PlannedRun*> toRun;
  for (const PlannedRun& run : plan.runs) {
    if (!run.notRun.empty()) {
      ++result.notRun;
      if (done.count(run.id) > 0) continue;
      ManifestEntry entry = entryOf(run, plan, spec);
      entry.status = RunStatus::Rejected;
      entry.reason = "not run: " + run.notRun;
      entry.start = entry.end = utcNow();
      manifest.append(manifestLine(entry));
    } else if (done.count(run.id) > 0) {
      ++result.alreadyDone;
    } else {
      toRun.push_back(&run);
    }
  }
  return toRun;
}

// One run (number `done + 1` of `total`), from its files made ready to its manifest line.
ProcessResult runAndRecord(const PlannedRun& run, size_t done, size_t total, const Plan& plan, const SweepSpec& spec,
                           const RunnerOptions& options, ManifestFile& manifest, Outcome& outcome) {
  removeRunFiles(spec.dir, run);
  if (!run.rulesFile.empty()) writeRulesFile(run);
  if (options.progressIsTerminal) {
    std::fprintf(options.progress, "[%zu/%zu] %s running", done + 1, total, run.id.c_str());
    std::fflush(options.progress);
  }
  ManifestEntry entry = entryOf(run, plan, spec);
  const ProcessResult ended = runOne(run, spec, options, entry);
  outcome = outcomeOf(run, spec, ended);
  entry.status = outcome.status;
  entry.reason = outcome.reason;
  entry.exitCode = ended.end.exitCode;
  entry.outputBytes = ended.outputBytes;
  manifest.append(manifestLine(entry));
  removeRunningRecord(runningPath(spec));
  return ended;
}

void count(const std::string& id, const Outcome& outcome, SweepResult& result) {
  switch (outcome.status) {
    case RunStatus::Ok:
      ++result.ok;
      break;
    case RunStatus::Rejected:
      ++result.rejected;
      break;
    case RunStatus::Failed:
      ++result.failed;
      result.failures.emplace_back(id, outcome.reason);
      break;
  }
}

}  // namespace

SweepResult runSweep(const Plan& plan, const SweepSpec& spec, const RunnerOptions& options) {
  std::error_code ec;
  fs::create_directories(fs::path(spec.dir) / "runs", ec);
  if (ec) throw std::runtime_error("cannot create " + spec.dir + "/runs: " + ec.message());
  const std::string manifestPath = spec.dir + "/" + std::string(kManifestFileName);
  ManifestFile manifest(manifestPath, options.restart);

  // What an earlier sweep stopped mid-run left in its process group dies before anything runs again.
  for (const std::string& line : killLeftoverRun(runningPath(spec), options.killGraceSeconds))
    std::fprintf(options.progress, "railtune sweep run: %s\n", line.c_str());

  const Manifest previous = readManifestText(manifest.text());
  for (const ManifestDiagnostic& d : previous.diagnostics)
    std::fprintf(options.progress, "warning: %s:%zu: %s (line ignored)\n", manifestPath.c_str(), d.line,
                 d.message.c_str());
  SweepResult result;
  const std::vector<const PlannedRun*> toRun =
      runsToRun(plan, spec, finishedRuns(previous, plan, manifestPath), manifest, result);
  result.toRun = toRun.size();

  double spent = 0;
  for (size_t i = 0; i < toRun.size(); ++i) {
    if ((result.interruptSignal = interruptSignal()) != 0) break;
    const PlannedRun& run = *toRun[i];
    Outcome outcome;
    const ProcessResult ended = runAndRecord(run, i, toRun.size(), plan, spec, options, manifest, outcome);
    spent += ended.seconds;
    const double eta = spent / static_cast<double>(i + 1) * static_cast<double>(toRun.size() - i - 1);
    if (options.progressIsTerminal) std::fprintf(options.progress, "\r\033[K");
    std::fprintf(options.progress, "%s\n",
                 progressLine(i + 1, toRun.size(), run.id, outcome, ended.seconds, eta).c_str());
    std::fflush(options.progress);
    count(run.id, outcome, result);
    if (ended.end.interrupted) {
      result.interruptSignal = interruptSignal();
      break;
    }
  }
  return result;
}

}  // namespace railtune::sweep
