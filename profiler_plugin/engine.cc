// makeEngine: a communicator's capture (capture/), fed into the process's writer (output/) and
// watched by the process's hang watchdog (watchdog/). The writer is shared by every communicator of
// the process and goes with the last one; without RAILTUNE_PROFILE_DIR (or _PROMETHEUS) there is no
// writer, and the capture still feeds the watchdog.
#include "profiler_plugin/engine.h"

#include <chrono>
#include <mutex>

#include "profiler_plugin/capture/make_capture.h"
#include "profiler_plugin/output/writer.h"
#include "profiler_plugin/watchdog/watchdog.h"

namespace railtune::profiler {
namespace {

// Where records go when nothing is written: the watchdog's WARN is then the only output.
class DiscardingSink final : public RecordSink {
 public:
  bool push(const OperationRecord&) noexcept override { return true; }
};

// NCCL binds one profiler ABI per process (profiler.cc, ncclProfilerPluginLoad: loaded once, reference
// counted), so the first communicator's version is every communicator's: the header says what it cannot see.
std::shared_ptr<output::ProfileWriter> processWriter(const Log& log, int abiVersion) {
  static std::mutex mutex;
  static std::weak_ptr<output::ProfileWriter> shared;
  std::lock_guard lock(mutex);
  if (std::shared_ptr<output::ProfileWriter> writer = shared.lock()) return writer;
  std::shared_ptr<output::ProfileWriter> writer = output::ProfileWriter::fromEnvironment(log, processEnv, abiVersion);
  shared = writer;
  return writer;
}

// One communicator: owns its capture, shares the writer, holds its place with the watchdog. The
// capture's events carry the capture itself as their engine, so the hot path never passes here.
class RecordingEngine final : public Engine {
 public:
  RecordingEngine(const CommInfo& comm, int abiVersion, const Log& log) : writer_(processWriter(log, abiVersion)) {
    RecordSink* sink = writer_ ? static_cast<RecordSink*>(writer_.get()) : &discard_;
    capture_ = makeCaptureEngine(comm, abiVersion, sink, log);
    std::function<void()> flush;
    if (writer_) flush = [writer = writer_] { writer->flushNow(std::chrono::seconds(2)); };
    watch_ = processWatchdog().watch(WatchTarget{capture_.get(), writer_ ? sink : nullptr, std::move(flush), log});
  }
  ~RecordingEngine() override {
    processWatchdog().unwatch(watch_);  // waits for a scan of this capture in progress
    capture_.reset();                   // pushes its last completed operations into the writer
  }
  RecordingEngine(const RecordingEngine&) = delete;
  RecordingEngine& operator=(const RecordingEngine&) = delete;

  const char* name() const override { return writer_ ? "capture" : "capture (no output directory)"; }
  EventMask activationMask() const override { return capture_->activationMask(); }
  Event* startEvent(const EventDescriptor& descr) override { return capture_->startEvent(descr); }
  void stopEvent(Event* event) override { capture_->stopEvent(event); }
  void recordEventState(Event* event, EventState state, const StateArgs& args) override {
    capture_->recordEventState(event, state, args);
  }

 private:
  std::shared_ptr<output::ProfileWriter> writer_;  // declared first: destroyed after the capture
  DiscardingSink discard_;
  std::unique_ptr<CaptureEngine> capture_;
  WatchId watch_ = 0;
};

}  // namespace

std::unique_ptr<Engine> makeEngine(const CommInfo& comm, int abiVersion, const Log& log) {
  return std::make_unique<RecordingEngine>(comm, abiVersion, log);
}

}  // namespace railtune::profiler
