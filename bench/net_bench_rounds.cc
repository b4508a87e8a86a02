#include "bench/net_bench_rounds.h"

#include <array>
#include <chrono>
#include <string>
#include <utility>

namespace railtune::bench {
namespace {

constexpr auto kRoundLimit = std::chrono::seconds(60);

// Checked once every 1,024 polls: a relaxed load and a clock read are then far below the cost of
// the system calls each poll makes, for the plugin and the raw baseline alike.
class Watchdog {
 public:
  explicit Watchdog(Cancel& cancel) : cancel_(cancel), deadline_(std::chrono::steady_clock::now() + kRoundLimit) {}
  void tick() {
    if ((++polls_ & 1023u) != 0) return;
    if (cancel_.requested.load(std::memory_order_relaxed)) throw BenchError("cancelled: the other side failed");
    if (std::chrono::steady_clock::now() > deadline_) throw BenchError("no progress for 60 s: transfer hung");
  }

 private:
  Cancel& cancel_;
  std::chrono::steady_clock::time_point deadline_;
  unsigned polls_ = 0;
};

void checkSize(size_t got, size_t expected, const char* what) {
  if (got != expected) {
    throw BenchError(std::string(what) + " completed with " + std::to_string(got) + " bytes, expected " +
                     std::to_string(expected));
  }
}

void pump(Endpoint& endpoint, const Stream& stream, Cancel& cancel, const char* what) {
  std::array<void*, kMaxInFlight> window{};
  const int depth = stream.inFlight < 1 ? 1 : (stream.inFlight > kMaxInFlight ? kMaxInFlight : stream.inFlight);
  int posted = 0;
  int done = 0;
  Watchdog watchdog(cancel);
  while (done < stream.count) {
    if (posted < stream.count && posted - done < depth) {
      void* request = endpoint.post(stream.buffer, stream.bytes);
      if (request != nullptr) {
        window[static_cast<size_t>(posted++ % kMaxInFlight)] = request;
        continue;
      }
      if (posted == done) throw BenchError(std::string(what) + ": post refused with nothing in flight");
    }
    size_t bytes = 0;
    if (endpoint.test(window[static_cast<size_t>(done % kMaxInFlight)], bytes)) {
      checkSize(bytes, stream.bytes, what);
      ++done;
    }
    watchdog.tick();
  }
}

void complete(Endpoint& endpoint, void* request, size_t bytes, Watchdog& watchdog, const char* what) {
  size_t got = 0;
  while (!endpoint.test(request, got)) watchdog.tick();
  checkSize(got, bytes, what);
}

void* postOne(Endpoint& endpoint, std::byte* buffer, size_t bytes, const char* what) {
  void* request = endpoint.post(buffer, bytes);
  if (request == nullptr) throw BenchError(std::string(what) + ": post refused with nothing in flight");
  return request;
}

}  // namespace

void sendStream(Endpoint& sender, const Stream& stream, Cancel& cancel) {
  pump(sender, stream, cancel, "send");
}

void receiveStream(Endpoint& receiver, const Stream& stream, Cancel& cancel) {
  pump(receiver, stream, cancel, "receive");
}

void ping(Endpoint& outSender, Endpoint& backReceiver, std::byte* buffer, size_t bytes, std::span<double> roundTripsUs,
          Cancel& cancel) {
  Watchdog watchdog(cancel);
  for (double& roundTrip : roundTripsUs) {
    const auto start = std::chrono::steady_clock::now();
    void* answer = postOne(backReceiver, buffer, bytes, "ping receive");  // posted first, as NCCL does
    void* sent = postOne(outSender, buffer, bytes, "ping send");
    complete(outSender, sent, bytes, watchdog, "ping send");
    complete(backReceiver, answer, bytes, watchdog, "ping receive");
    roundTrip = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
}

void pong(Endpoint& outReceiver, Endpoint& backSender, std::byte* buffer, size_t bytes, int count, Cancel& cancel) {
  Watchdog watchdog(cancel);
  for (int i = 0; i < count; ++i) {
    complete(outReceiver, postOne(outReceiver, buffer, bytes, "pong receive"), bytes, watchdog, "pong receive");
    complete(backSender, postOne(backSender, buffer, bytes, "pong send"), bytes, watchdog, "pong send");
  }
}

void together(PeerThread& peer, Cancel& cancel, const std::function<void()>& there, const std::function<void()>& here) {
  bool thereFailedFirst = false;  // written by the peer before wait() returns
  peer.run([&] {
    try {
      there();
    } catch (...) {
      thereFailedFirst = !cancel.requested.exchange(true);
      throw;
    }
  });
  std::exception_ptr hereError;
  try {
    here();
  } catch (...) {
    hereError = std::current_exception();
    cancel.requested.store(true);
  }
  std::exception_ptr thereError;
  try {
    peer.wait();
  } catch (...) {
    thereError = std::current_exception();
  }
  // The side that failed first has the cause; the other one only saw the cancellation.
  if (thereError && (thereFailedFirst || !hereError)) std::rethrow_exception(thereError);
  if (hereError) std::rethrow_exception(hereError);
}

PeerThread::PeerThread() : thread_([this] { loop(); }) {}

PeerThread::~PeerThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void PeerThread::run(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  job_ = std::move(job);
  busy_ = true;
  error_ = nullptr;
  changed_.notify_all();
}

void PeerThread::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !busy_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void PeerThread::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || job_ != nullptr; });
    if (stop_) return;
    std::function<void()> job = std::move(job_);
    job_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace railtune::bench
