// bench_net_socket: the real libnccl-net-railtune.so (its ncclNetPlugin_v11 table, socket transport
// over loopback) beside a raw TCP connection with the same number of streams and the same polling
// (net_bench_raw.h), in the same run. Each benchmark alternates rounds, plugin then raw, so that
// drift on a shared machine hits both, and reports the medians of each and the median of the
// ratios of the pairs of rounds run back to back:
//   throughput/streams:S/SIZE  messages of SIZE (1 KiB .. 64 MiB), 8 requests in flight, sender and
//                              receiver in two threads; counters plugin_GBps, raw_GBps, ratio
//                              (plugin / raw: the target is >= 0.9 from 1 MiB up)
//   latency/streams:S/8B       8-byte ping-pong; counters plugin_us, raw_us (half the median round
//                              trip of a round), ratio (plugin / raw: the target is <= 1.5)
// The time column is the mean plugin round. Before timing, one message per transport is checked
// byte for byte. Exit status 1 when a benchmark failed or none matched the filter (so that the
// ctest smoke run catches rot).
// Options besides Google Benchmark's: --rounds=N (9), --pings=N per latency round (1000),
// --streams=1,2 and --plugin=PATH (default: the build's lib/libnccl-net-railtune.so).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/net_bench_plugin.h"
#include "bench/net_bench_raw.h"
#include "bench/net_bench_rounds.h"

namespace {

using namespace railtune::bench;

constexpr size_t kChunkBytes = size_t{512} << 10;  // the plugin's chunk: 512 KiB, round-robin over streams
constexpr int kInFlight = 8;
constexpr size_t kRoundBytes = size_t{64} << 20;  // a throughput round moves about this much ...
constexpr int kMinMessages = kInFlight;           // ... but at least a full window of messages ...
constexpr int kMaxMessages = 4096;                // ... and at most this many
constexpr size_t kPingBytes = 8;
constexpr int kWarmupPings = 100;

struct Options {
  std::string plugin = RAILTUNE_PLUGIN_DIR "/libnccl-net-railtune.so";
  int rounds = 9;
  int pings = 1000;
  std::vector<int> streams{1, 2};
};

Options& options() {
  static Options instance;
  return instance;
}

bool& anyFailed() {
  static bool failed = false;
  return failed;
}

const ncclNet_v11_t& table() {
  static const ncclNet_v11_t& net = pluginTable(options().plugin);
  return net;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int messagesPerRound(size_t bytes) {
  return static_cast<int>(std::clamp<size_t>(kRoundBytes / bytes, kMinMessages, kMaxMessages));
}

// The benchmark's two buffers, registered with both transports' endpoints.
struct Buffers {
  explicit Buffers(size_t bytes) : out(bytes), in(bytes) {}
  void use(Link& link) {
    link.sender->useBuffer(out.data(), out.size());
    link.receiver->useBuffer(in.data(), in.size());
  }
  std::vector<std::byte> out, in;
};

double throughputRound(Link& link, Buffers& buffers, int count, PeerThread& peer) {
  Cancel cancel;
  const Stream sending{buffers.out.data(), buffers.out.size(), count, kInFlight};
  const Stream receiving{buffers.in.data(), buffers.in.size(), count, kInFlight};
  const auto start = std::chrono::steady_clock::now();
  together(
      peer, cancel, [&] { receiveStream(*link.receiver, receiving, cancel); },
      [&] { sendStream(*link.sender, sending, cancel); });
  return secondsSince(start);
}

// One message of a known pattern through `link`, compared byte for byte.
void verify(const char* transport, Link& link, Buffers& buffers, PeerThread& peer) {
  for (size_t i = 0; i < buffers.out.size(); ++i) buffers.out[i] = static_cast<std::byte>((i * 131 + 7) & 0xff);
  std::fill(buffers.in.begin(), buffers.in.end(), std::byte{0});
  throughputRound(link, buffers, 1, peer);
  if (buffers.in != buffers.out)
    throw BenchError(std::string(transport) + ": the bytes received differ from those sent");
}

// The medians of each transport's rounds, and the median of the ratios of the rounds run back to
// back (round i of the plugin with round i of raw TCP): load that changes during a benchmark moves
// both rounds of a pair alike, so the pairs' ratio holds steadier than the ratio of the medians.
void report(benchmark::State& state, const char* unit, const std::vector<double>& plugin,
            const std::vector<double>& raw) {
  std::vector<double> ratios;
  for (size_t i = 0; i < plugin.size() && i < raw.size(); ++i) ratios.push_back(plugin[i] / raw[i]);
  state.counters[std::string("plugin_") + unit] = railtune::bench::median(plugin);
  state.counters[std::string("raw_") + unit] = railtune::bench::median(raw);
  state.counters["ratio"] = railtune::bench::median(ratios);
}

void fail(benchmark::State& state, const std::exception& error) {
  anyFailed() = true;
  state.SkipWithError(error.what());
}

void throughput(benchmark::State& state, int streams, size_t bytes) {
  try {
    PluginNet net(table(), streams);
    Link plugin = net.connect();
    Link raw = makeRawLink(streams, kChunkBytes);
    Buffers buffers(bytes);
    buffers.use(plugin);
    buffers.use(raw);
    PeerThread peer;
    verify("plugin", plugin, buffers, peer);
    verify("raw TCP", raw, buffers, peer);
    const int count = messagesPerRound(bytes);
    const double roundGB = static_cast<double>(bytes) * count / 1e9;
    std::vector<double> pluginRates, rawRates;
    for (auto _ : state) {
      const double pluginSeconds = throughputRound(plugin, buffers, count, peer);
      state.SetIterationTime(pluginSeconds);
      pluginRates.push_back(roundGB / pluginSeconds);
      rawRates.push_back(roundGB / throughputRound(raw, buffers, count, peer));
    }
    report(state, "GBps", pluginRates, rawRates);
    state.counters["messages_per_round"] = count;
  } catch (const std::exception& error) {
    fail(state, error);
  }
}

// The two directions of a ping-pong and the buffer each thread uses.
struct PingPong {
  Link out, back;
  std::vector<std::byte> pingBuffer = std::vector<std::byte>(kPingBytes);
  std::vector<std::byte> pongBuffer = std::vector<std::byte>(kPingBytes);
  PingPong(Link o, Link b) : out(std::move(o)), back(std::move(b)) {
    out.sender->useBuffer(pingBuffer.data(), kPingBytes);
    back.receiver->useBuffer(pingBuffer.data(), kPingBytes);
    out.receiver->useBuffer(pongBuffer.data(), kPingBytes);
    back.sender->useBuffer(pongBuffer.data(), kPingBytes);
  }
  // Half the median round trip of `count` exchanges, in microseconds: the median, not the mean,
  // so that a round in which the scheduler preempts a polling thread a few times still measures
  // the transport rather than the time slice of whatever else runs on the machine.
  double halfRoundTripUs(int count, PeerThread& peer) {
    Cancel cancel;
    roundTrips.resize(static_cast<size_t>(count));
    together(
        peer, cancel, [&] { pong(*out.receiver, *back.sender, pongBuffer.data(), kPingBytes, count, cancel); },
        [&] { ping(*out.sender, *back.receiver, pingBuffer.data(), kPingBytes, roundTrips, cancel); });
    return railtune::bench::median(roundTrips) / 2;
  }
  std::vector<double> roundTrips;
};

void latency(benchmark::State& state, int streams) {
  try {
    PluginNet net(table(), streams);
    Link pluginOut = net.connect();
    PingPong plugin(std::move(pluginOut), net.connect());
    PingPong raw(makeRawLink(streams, kChunkBytes), makeRawLink(streams, kChunkBytes));
    PeerThread peer;
    plugin.halfRoundTripUs(kWarmupPings, peer);
    raw.halfRoundTripUs(kWarmupPings, peer);
    const int pings = options().pings;
    std::vector<double> pluginUs, rawUs;
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      pluginUs.push_back(plugin.halfRoundTripUs(pings, peer));
      state.SetIterationTime(secondsSince(start));
      rawUs.push_back(raw.halfRoundTripUs(pings, peer));
    }
    report(state, "us", pluginUs, rawUs);
  } catch (const std::exception& error) {
    fail(state, error);
  }
}

std::string sizeLabel(size_t bytes) {
  if (bytes >= (size_t{1} << 20)) return std::to_string(bytes >> 20) + "MiB";
  if (bytes >= (size_t{1} << 10)) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

// Throughput first, then latency: their counters differ, so grouping keeps one table each.
void registerBenchmarks() {
  const Options& o = options();
  for (int streams : o.streams) {
    for (size_t bytes = size_t{1} << 10; bytes <= (size_t{64} << 20); bytes *= 4) {
      const std::string name = "throughput/streams:" + std::to_string(streams) + "/" + sizeLabel(bytes);
      benchmark::RegisterBenchmark(name.c_str(), throughput, streams, bytes)
          ->Iterations(o.rounds)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (int streams : o.streams) {
    const std::string name = "latency/streams:" + std::to_string(streams) + "/" + sizeLabel(kPingBytes);
    benchmark::RegisterBenchmark(name.c_str(), latency, streams)
        ->Iterations(o.rounds)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

bool parseStreams(const std::string& text, std::vector<int>& out) {
  out.clear();
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    int streams = 0;
    if (!railtune::bench::parseCount(text.substr(start, comma - start), 1, kRawMaxStreams, streams)) return false;
    out.push_back(streams);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

// What Google Benchmark left in argv: our own options. false (after a message): a bad one.
bool parseOptions(int argc, char** argv, Options& o) {
  using railtune::bench::parseCount;
  return railtune::bench::parseOptions(
      argc, argv,
      {{"--plugin", [&](const std::string& v) { return !(o.plugin = v).empty(); }},
       {"--rounds", [&](const std::string& v) { return parseCount(v, 1, 100000, o.rounds); }},
       {"--pings", [&](const std::string& v) { return parseCount(v, 1, 10000000, o.pings); }},
       {"--streams", [&](const std::string& v) { return parseStreams(v, o.streams); }}},
      "bench_net_socket", "--rounds=N (1..100000) --pings=N (1..10000000) --streams=S[,S...] (1..16) --plugin=PATH");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!parseOptions(argc, argv, options())) return 2;
  registerBenchmarks();
  const size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return ran == 0 || anyFailed() ? 1 : 0;
}
