// bench_net_ib: the CPU cost per message of the verbs transport (net_plugin/transports/ib) on the strict verbs
// simulator, beside the socket transport over loopback, in the same run: for each message one irecv, one
// isend and the test calls until both report done, with 8 requests in flight. Per message it reports
//   post_ns      time inside the isend and irecv calls that posted it
//   complete_ns  time inside the test calls that reported it done (they process its completions)
//   cost_ns      post_ns + complete_ns: the transport's own work for a message, which the issue bounds at 1 us
//   verbs_ns     of cost, the time inside the verbs data-path calls (post_send, post_recv, poll_cq): the
//                simulator's work there, which a real HCA's provider does in a fraction of it
//   own_ns       cost - verbs_ns: the transport's own code
//   poll_ns      the mean time of a test call that found nothing (waiting for the wire; not part of cost)
//   allocs       global operator new calls per message in the whole process (the simulator included)
// Sizes 8 B and 1 MiB; the verbs transport with 1 and 4 QPs (4: data split over all of them), the socket one
// with 1 and 4 streams. The simulator is the emulator's (emulator/verbs_sim, build/verbs_sim/libibverbs.so.1);
// its own thread plays the NIC and is not counted in cost, as a NIC's work would not be.
#include <benchmark/benchmark.h>
#include <stdlib.h>

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

// Time spent inside the verbs data-path calls, measured by wrapping the context's operation slots (the
// transport calls them there, as the verbs.h inlines do).
double gVerbsNs = 0;
ib::IbvContextOps gReal{};
int timedPostSend(ib::IbvQp* qp, ib::IbvSendWr* wr, ib::IbvSendWr** bad) {
  const auto start = Clock::now();
  const int rc = gReal.postSend(qp, wr, bad);
  gVerbsNs += std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return rc;
}
int timedPostRecv(ib::IbvQp* qp, ib::IbvRecvWr* wr, ib::IbvRecvWr** bad) {
  const auto start = Clock::now();
  const int rc = gReal.postRecv(qp, wr, bad);
  gVerbsNs += std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return rc;
}
int timedPollCq(ib::IbvCq* cq, int entries, ib::IbvWc* wc) {
  const auto start = Clock::now();
  const int n = gReal.pollCq(cq, entries, wc);
  gVerbsNs += std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  return n;
}

std::unique_ptr<Transport> makeVerbs(int qps) {
  simDir();
  ib::IbTransportSetup setup;
  setup.verbs = ib::loadVerbs({VERBS_SIM_LIBRARY});
  if (!setup.verbs.ok()) throw std::runtime_error(setup.verbs.reason);
  setup.options.connection.policy.qpsPerConnection = qps;
  setup.options.connection.policy.splitDataOnQps = qps > 1;
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

struct Totals {
  double postNs = 0, completeNs = 0, pollNs = 0, verbsNs = 0;
  long polls = 0, messages = 0;
  size_t allocations = 0;
};

double nsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// One round of `messages` messages, kWindow in flight.
void round(Pair& pair, size_t bytes, int messages, std::vector<std::byte>& out, std::vector<std::byte>& in,
           MemoryRegion* outRegion, MemoryRegion* inRegion, Totals& totals) {
  struct InFlight {
    Request* recv = nullptr;
    Request* send = nullptr;
    bool recvDone = false, sendDone = false;
  };
  // A fixed ring, not a deque: the bench itself must not allocate per message.
  std::array<InFlight, kWindow> ring{};
  size_t head = 0, tail = 0;
  int posted = 0;
  const size_t before = railtune::testing::gAllocations.load();
  while (posted < messages || head != tail) {
    while (posted < messages && tail - head < static_cast<size_t>(kWindow)) {
      InFlight f;
      RecvBuffer buffer{in.data(), bytes, 1, inRegion, nullptr};
      gVerbsNs = 0;
      auto start = Clock::now();
      f.recv = pair.t.irecv(pair.recv, std::span<const RecvBuffer>(&buffer, 1));
      totals.postNs += nsSince(start);
      totals.verbsNs += gVerbsNs;
      if (f.recv == nullptr) break;
      do {
        gVerbsNs = 0;
        start = Clock::now();
        f.send = pair.t.isend(pair.send, out.data(), bytes, 1, outRegion, nullptr);
        const double spent = nsSince(start);
        if (f.send != nullptr) {
          totals.postNs += spent;
          totals.verbsNs += gVerbsNs;
        } else {
          totals.pollNs += spent;
          ++totals.polls;
        }
      } while (f.send == nullptr);
      ring[tail++ % kWindow] = f;
      ++posted;
    }
    InFlight& oldest = ring[head % kWindow];
    for (auto [request, done] : {std::pair{oldest.recv, &oldest.recvDone}, std::pair{oldest.send, &oldest.sendDone}}) {
      if (*done) continue;
      gVerbsNs = 0;
      const auto start = Clock::now();
      const Completion c = pair.t.test(request);
      const double spent = nsSince(start);
      if (c.done) {
        totals.completeNs += spent;
        totals.verbsNs += gVerbsNs;
        *done = true;
      } else {
        totals.pollNs += spent;
        ++totals.polls;
      }
    }
    if (oldest.recvDone && oldest.sendDone) {
      ++head;
      ++totals.messages;
    }
  }
  totals.allocations += railtune::testing::gAllocations.load() - before;
}

void runMessages(benchmark::State& state, Transport& transport, size_t bytes) {
  Pair pair(transport);
  std::vector<std::byte> out(bytes, std::byte{0x5a}), in(bytes);
  MemoryRegion* outRegion = transport.registerMemory(pair.send, out.data(), out.size(), MemoryType::Host);
  MemoryRegion* inRegion = transport.registerMemory(pair.recv, in.data(), in.size(), MemoryType::Host);
  Totals warm;
  round(pair, bytes, 64, out, in, outRegion, inRegion, warm);
  if (std::memcmp(out.data(), in.data(), bytes) != 0) state.SkipWithError("the bytes did not arrive intact");
  const int messages = bytes <= 4096 ? 2000 : 200;
  Totals totals;
  for (auto _ : state) round(pair, bytes, messages, out, in, outRegion, inRegion, totals);
  const double n = static_cast<double>(totals.messages);
  state.counters["post_ns"] = totals.postNs / n;
  state.counters["complete_ns"] = totals.completeNs / n;
  state.counters["cost_ns"] = (totals.postNs + totals.completeNs) / n;
  state.counters["verbs_ns"] = totals.verbsNs / n;
  state.counters["own_ns"] = (totals.postNs + totals.completeNs - totals.verbsNs) / n;
  state.counters["poll_ns"] = totals.polls > 0 ? totals.pollNs / static_cast<double>(totals.polls) : 0;
  state.counters["allocs"] = static_cast<double>(totals.allocations) / n;
  state.SetItemsProcessed(totals.messages);
  transport.deregisterMemory(pair.send, outRegion);
  transport.deregisterMemory(pair.recv, inRegion);
}

void verbs(benchmark::State& state) {
  auto transport = makeVerbs(static_cast<int>(state.range(1)));
  runMessages(state, *transport, static_cast<size_t>(state.range(0)));
}

void sockets(benchmark::State& state) {
  auto transport = makeSocket(static_cast<int>(state.range(1)));
  runMessages(state, *transport, static_cast<size_t>(state.range(0)));
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
