// bench_net_ib: the CPU cost per message of the verbs transport (net_plugin/transports/ib) on the strict verbs
// simulator, beside the socket transport over loopback, in the same run: for each message one irecv, one
// isend and the test calls until both report done, with 8 requests in flight. Per message it reports
//   post_ns      time inside the isend and irecv calls that posted it
//   complete_ns  time inside the test calls that reported it done (they process its completions)
//   cost_ns      post_ns + complete_ns: the transport's own work for a message, which the issue bounds at 1 us
//   verbs_ns     of cost, the time inside the verbs data-path calls (post_send, post_recv, poll_cq): the
//                simulator's work there, which a real HCA's provider does in a fraction of it
//   own_ns       cost - verbs_ns - timer_ns: the transport's own code
//   timer_ns     of cost, the clock reads that time the verbs calls, which fall outside their windows (calibrated
//                on an empty call at start, times the verbs calls per message): neither transport nor simulator
//   own_steady_ns  (verbs) own_ns from the calls whose own part stayed under 20 us (their mean, times the calls per
//                message): on a shared machine a call now and then includes another process's time slice
//   disturbed    (verbs) per 1,000 messages, the calls left out of own_steady_ns (their time is in own_ns)
//   poll_ns      the mean time of a test call that found nothing (waiting for the wire; not part of cost)
//   own_allocs   operator new calls per message by the transport's own code: on the calling thread, inside its
//                isend, irecv and test calls, outside the verbs calls (the data path's rule: 0)
//   other_allocs every other operator new call in the process per message: the simulator's, in its verbs calls
//                and on its own thread (for the socket transport, its other threads')
// Sizes 8 B and 1 MiB; the verbs transport with 1 and 4 QPs (4: data split over all of them), the socket one
// with 1 and 4 streams. The simulator is the emulator's (emulator/verbs_sim, build/verbs_sim/libibverbs.so.1);
// its own thread plays the NIC and is not counted in cost, as a NIC's work would not be. It copies the bytes on
// the calling thread inside post_send, though, so at 1 MiB the transport's next calls find their data out of
// cache: own_ns there is a cold-cache cost (8 B messages with a 2 MiB copy between them cost more still), which
// an HCA's DMA does not impose on the CPU's caches.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "net_plugin/transports/ib/ib_engine.h"
#include "net_plugin/transports/socket/socket_engine.h"
#include "tests/support/allocation_counter.h"

namespace {

using namespace railtune::net;
using Clock = std::chrono::steady_clock;
constexpr int kWindow = 8;

std::string& simDir() {
  static std::string dir = [] {
    char pattern[] = "/tmp/railtune-bench-verbs-XXXXXX";
    std::string made = mkdtemp(pattern) != nullptr ? pattern : "/tmp";
    setenv("RAILTUNE_VERBS_SIM_DIR", made.c_str(), 1);
    setenv("RAILTUNE_VERBS_SIM_FABRIC", "gb300", 1);
    setenv("RAILTUNE_VERBS_SIM_HOST", "host0", 1);
    return made;
  }();
  return dir;
}

// Time and calling-thread allocations inside the verbs data-path calls, measured by wrapping the context's
// operation slots (the transport calls them there, as the verbs.h inlines do).
double gVerbsNs = 0;
long gVerbsCalls = 0;
size_t gVerbsAllocations = 0;
ib::IbvContextOps gReal{};
template <typename Call>
auto timedVerbs(Call&& call) {
  const size_t allocationsBefore = railtune::testing::tAllocations;
  const auto start = Clock::now();
  const auto result = call();
  gVerbsNs += std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  ++gVerbsCalls;
  gVerbsAllocations += railtune::testing::tAllocations - allocationsBefore;
  return result;
}
int timedPostSend(ib::IbvQp* qp, ib::IbvSendWr* wr, ib::IbvSendWr** bad) {
  return timedVerbs([&] { return gReal.postSend(qp, wr, bad); });
}
int timedPostRecv(ib::IbvQp* qp, ib::IbvRecvWr* wr, ib::IbvRecvWr** bad) {
  return timedVerbs([&] { return gReal.postRecv(qp, wr, bad); });
}
int timedPollCq(ib::IbvCq* cq, int entries, ib::IbvWc* wc) {
  return timedVerbs([&] { return gReal.pollCq(cq, entries, wc); });
}

// What timing one verbs call adds outside its own window (the clock reads and the bookkeeping), measured from
// outside as the transport's windows see it, on a call that does nothing: the least of 20 means of 10,000.
__attribute__((noinline)) int emptyCall() {
  benchmark::ClobberMemory();
  return 0;
}
double timerOverheadNs() {
  static const double overhead = [] {
    double best = 1e9;
    for (int trial = 0; trial < 20; ++trial) {
      gVerbsNs = 0;
      const auto start = Clock::now();
      for (int i = 0; i < 10000; ++i) benchmark::DoNotOptimize(timedVerbs(emptyCall));
      const double outside = std::chrono::duration<double, std::nano>(Clock::now() - start).count() - gVerbsNs;
      best = std::min(best, outside / 10000);
    }
    gVerbsNs = 0;
    gVerbsCalls = 0;
    gVerbsAllocations = 0;
    return best;
  }();
  return overhead;
}

std::unique_ptr<Transport> makeVerbs(int qps) {
  simDir();
  ib::IbTransportSetup setup;
  setup.verbs = ib::loadVerbs({VERBS_SIM_LIBRARY});
  if (!setup.verbs.ok()) throw std::runtime_error(setup.verbs.reason);
  setup.options.connection.layout.qpsPerConnection = qps;
  setup.options.connection.layout.splitDataOnQps = qps > 1;
  ib::IbDevice device{"mlx5_0", 1, "127.0.0.1", "", 0, -1, std::vector<std::byte>(kPreambleBytes)};
  auto engine =
      std::make_unique<ib::IbEngine>(std::move(setup.verbs), std::vector<ib::IbDevice>{device}, setup.options);
  ib::IbvContextOps& ops = const_cast<ib::IbPort&>(engine->port(0)).context->ops;
  if (ops.postSend != timedPostSend) {
    gReal = ops;
    ops.postSend = timedPostSend;
    ops.postRecv = timedPostRecv;
    ops.pollCq = timedPollCq;
  }
  return engine;
}

std::unique_ptr<Transport> makeSocket(int streams) {
  socket::SocketEngineOptions options;
  options.streams = streams;
  socket::SocketDevice device{"lo", "lo", "127.0.0.1", 0, 0, -1, "", {}};
  return std::make_unique<socket::SocketEngine>(std::vector<socket::SocketDevice>{device}, options);
}

struct Pair {
  Transport& t;
  ListenComm* listen = nullptr;
  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
  explicit Pair(Transport& transport) : t(transport) {
    std::array<std::byte, kHandleBytes> handle{};
    listen = t.listen(0, CommConfig{}, handle);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while ((send == nullptr || recv == nullptr) && Clock::now() < deadline) {
      if (send == nullptr) send = t.connect(0, CommConfig{}, handle);
      if (recv == nullptr) recv = t.accept(listen);
    }
    if (send == nullptr || recv == nullptr) throw std::runtime_error("no connection");
  }
  ~Pair() {
    t.closeSend(send);
    t.closeRecv(recv);
    t.closeListen(listen);
  }
};

// A call whose own part (time less verbs and timing) exceeds this was descheduled: no path of the transport's
// own code takes that long between two verbs calls.
constexpr double kDisturbedNs = 20000;

struct Totals {
  double postNs = 0, completeNs = 0, pollNs = 0, verbsNs = 0, steadyOwnNs = 0;
  long polls = 0, messages = 0, verbsCalls = 0, workCalls = 0, disturbed = 0;
  size_t allocations = 0, ownAllocations = 0;
  void add(const Totals& o) {
    postNs += o.postNs, completeNs += o.completeNs, pollNs += o.pollNs, verbsNs += o.verbsNs;
    steadyOwnNs += o.steadyOwnNs, workCalls += o.workCalls, disturbed += o.disturbed;
    polls += o.polls, messages += o.messages, verbsCalls += o.verbsCalls;
    allocations += o.allocations, ownAllocations += o.ownAllocations;
  }
  double ownNs(double timerNs) const {
    return postNs + completeNs - verbsNs - timerNs * static_cast<double>(verbsCalls);
  }
};

double nsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// One transport call: its time, and of it the verbs calls' time, count and calling-thread allocations.
struct Timed {
  double ns = 0, verbsNs = 0;
  long verbsCalls = 0;
  size_t ownAllocations = 0;
};
template <typename Call>
Timed timeCall(Call&& call) {
  gVerbsNs = 0;
  gVerbsCalls = 0;
  gVerbsAllocations = 0;
  const size_t allocationsBefore = railtune::testing::tAllocations;
  const auto start = Clock::now();
  call();
  Timed t;
  t.ns = nsSince(start);
  t.verbsNs = gVerbsNs;
  t.verbsCalls = gVerbsCalls;
  t.ownAllocations = railtune::testing::tAllocations - allocationsBefore - gVerbsAllocations;
  return t;
}
void countWork(Totals& totals, double Totals::*into, const Timed& t) {
  const double own = t.ns - t.verbsNs - timerOverheadNs() * static_cast<double>(t.verbsCalls);
  ++totals.workCalls;
  if (own < kDisturbedNs) {
    totals.steadyOwnNs += own;
  } else {
    ++totals.disturbed;
  }
  totals.*into += t.ns;
  totals.verbsNs += t.verbsNs;
  totals.verbsCalls += t.verbsCalls;
  totals.ownAllocations += t.ownAllocations;
}
void countPoll(Totals& totals, const Timed& t) {
  totals.pollNs += t.ns;
  ++totals.polls;
  totals.ownAllocations += t.ownAllocations;  // a poll must not allocate either
}

// One round of `messages` messages, kWindow in flight.
Totals round(Pair& pair, size_t bytes, int messages, std::vector<std::byte>& out, std::vector<std::byte>& in,
             MemoryRegion* outRegion, MemoryRegion* inRegion) {
  struct InFlight {
    Request* recv = nullptr;
    Request* send = nullptr;
    bool recvDone = false, sendDone = false;
  };
  Totals totals;
  // A fixed ring, not a deque: the bench itself must not allocate per message.
  std::array<InFlight, kWindow> ring{};
  size_t head = 0, tail = 0;
  int posted = 0;
  const size_t before = railtune::testing::gAllocations.load();
  while (posted < messages || head != tail) {
    while (posted < messages && tail - head < static_cast<size_t>(kWindow)) {
      InFlight f;
      RecvBuffer buffer{in.data(), bytes, 1, inRegion, nullptr};
      const Timed recv = timeCall([&] { f.recv = pair.t.irecv(pair.recv, std::span<const RecvBuffer>(&buffer, 1)); });
      countWork(totals, &Totals::postNs, recv);
      if (f.recv == nullptr) break;
      do {
        const Timed send =
            timeCall([&] { f.send = pair.t.isend(pair.send, out.data(), bytes, 1, outRegion, nullptr); });
        if (f.send != nullptr) {
          countWork(totals, &Totals::postNs, send);
        } else {
          countPoll(totals, send);
        }
      } while (f.send == nullptr);
      ring[tail++ % kWindow] = f;
      ++posted;
    }
    InFlight& oldest = ring[head % kWindow];
    for (auto [request, done] : {std::pair{oldest.recv, &oldest.recvDone}, std::pair{oldest.send, &oldest.sendDone}}) {
      if (*done) continue;
      Completion c;
      Request* const tested = request;  // clang 14 cannot capture a structured binding (C++20, P1091; clang 16 can)
      const Timed test = timeCall([&] { c = pair.t.test(tested); });
      if (c.done) {
        countWork(totals, &Totals::completeNs, test);
        *done = true;
      } else {
        countPoll(totals, test);
      }
    }
    if (oldest.recvDone && oldest.sendDone) {
      ++head;
      ++totals.messages;
    }
  }
  totals.allocations = railtune::testing::gAllocations.load() - before;
  return totals;
}

// `verbs`: the transport hands its heavy work to verbs calls, so a long own part means a descheduled thread; the
// socket transport moves the bytes in its own system calls, and has no steady figure.
void runMessages(benchmark::State& state, Transport& transport, size_t bytes, bool verbs) {
  const double timerNs = timerOverheadNs();
  Pair pair(transport);
  std::vector<std::byte> out(bytes, std::byte{0x5a}), in(bytes);
  MemoryRegion* outRegion = transport.registerMemory(pair.send, out.data(), out.size(), MemoryType::Host);
  MemoryRegion* inRegion = transport.registerMemory(pair.recv, in.data(), in.size(), MemoryType::Host);
  round(pair, bytes, 64, out, in, outRegion, inRegion);  // warm-up
  if (std::memcmp(out.data(), in.data(), bytes) != 0) state.SkipWithError("the bytes did not arrive intact");
  const int messages = bytes <= 4096 ? 2000 : 200;
  Totals totals;
  for (auto _ : state) totals.add(round(pair, bytes, messages, out, in, outRegion, inRegion));
  const double n = static_cast<double>(totals.messages);
  state.counters["post_ns"] = totals.postNs / n;
  state.counters["complete_ns"] = totals.completeNs / n;
  state.counters["cost_ns"] = (totals.postNs + totals.completeNs) / n;
  state.counters["verbs_ns"] = totals.verbsNs / n;
  state.counters["timer_ns"] = timerNs * static_cast<double>(totals.verbsCalls) / n;
  state.counters["own_ns"] = totals.ownNs(timerNs) / n;
  // The undisturbed calls' mean own part, times the calls that did work per message.
  if (verbs) {
    const double steadyCalls = static_cast<double>(totals.workCalls - totals.disturbed);
    state.counters["own_steady_ns"] = totals.steadyOwnNs / steadyCalls * static_cast<double>(totals.workCalls) / n;
    state.counters["disturbed"] = 1000.0 * static_cast<double>(totals.disturbed) / n;
  }
  state.counters["poll_ns"] = totals.polls > 0 ? totals.pollNs / static_cast<double>(totals.polls) : 0;
  state.counters["own_allocs"] = static_cast<double>(totals.ownAllocations) / n;
  state.counters["other_allocs"] = static_cast<double>(totals.allocations - totals.ownAllocations) / n;
  state.SetItemsProcessed(totals.messages);
  transport.deregisterMemory(pair.send, outRegion);
  transport.deregisterMemory(pair.recv, inRegion);
}

void verbs(benchmark::State& state) {
  auto transport = makeVerbs(static_cast<int>(state.range(1)));
  runMessages(state, *transport, static_cast<size_t>(state.range(0)), true);
}

void sockets(benchmark::State& state) {
  auto transport = makeSocket(static_cast<int>(state.range(1)));
  runMessages(state, *transport, static_cast<size_t>(state.range(0)), false);
}

BENCHMARK(verbs)->ArgsProduct({{8, 1 << 20}, {1, 4}})->ArgNames({"bytes", "qps"})->Unit(benchmark::kMillisecond);
BENCHMARK(sockets)->ArgsProduct({{8, 1 << 20}, {1, 4}})->ArgNames({"bytes", "streams"})->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ignored;
  std::filesystem::remove_all(simDir(), ignored);
  return 0;
}
