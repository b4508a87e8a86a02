// The loops bench_net_socket times, written once for any Endpoint so that the plugin and the raw
// baseline run exactly the same driving code: posting and testing as NCCL's proxy does (keep up to
// `inFlight` requests posted, test the oldest, post again as soon as it completes), busy polling.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <thread>

#include "bench/net_bench_link.h"

namespace railtune::bench {

inline constexpr int kMaxInFlight = 32;

// Stops every loop of a round: set when the other side failed, so that no thread spins forever
// waiting for a peer that gave up. The loops also give up after a wall-clock limit.
struct Cancel {
  std::atomic<bool> requested{false};
};

struct Stream {
  std::byte* buffer = nullptr;
  size_t bytes = 0;  // per message
  int count = 0;     // messages
  int inFlight = 8;  // requests posted at once (1..kMaxInFlight)
};

// Sends or receives `stream.count` messages; a receive that completes with another size is an
// error. Throws BenchError on a transport failure, cancellation or after 60 s.
void sendStream(Endpoint& sender, const Stream& stream, Cancel& cancel);
void receiveStream(Endpoint& receiver, const Stream& stream, Cancel& cancel);

// Exchanges of `bytes`: ping sends on `out` and waits for the answer on `back`, once per element
// of `roundTripsUs`, storing each round trip there (microseconds); pong receives on `out` and
// answers on `back`, `count` times.
void ping(Endpoint& outSender, Endpoint& backReceiver, std::byte* buffer, size_t bytes, std::span<double> roundTripsUs,
          Cancel& cancel);
void pong(Endpoint& outReceiver, Endpoint& backSender, std::byte* buffer, size_t bytes, int count, Cancel& cancel);

// A second thread for the other end of each round (NCCL runs sender and receiver in different
// processes; two threads are the closest one process gets). run() starts a job there; wait()
// returns when it is done and rethrows what it threw.
class PeerThread {
 public:
  PeerThread();
  ~PeerThread();
  PeerThread(const PeerThread&) = delete;
  PeerThread& operator=(const PeerThread&) = delete;

  void run(std::function<void()> job);
  void wait();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the members above exist
};

// Runs `there` on the peer and `here` on this thread at the same time, under one Cancel: when
// either fails the other is cancelled, and the first failure is rethrown once both have stopped.
void together(PeerThread& peer, Cancel& cancel, const std::function<void()>& there, const std::function<void()>& here);

}  // namespace railtune::bench
