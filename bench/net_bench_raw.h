// The baseline bench_net_socket compares the plugin with: a raw TCP connection of N loopback
// streams, written here without any railtune library, moving messages by the same rule as the
// plugin's socket transport: non-blocking sockets with TCP_NODELAY, progressed only when the
// caller posts or tests (no thread of its own), a 16-byte header (tag, size) per message on
// stream 0, and the data cut into chunks dealt round-robin over the streams (chunk j on stream
// j mod N). It is what the transport would cost with nothing around it: no ABI adapters, no
// boundary checks, no request bookkeeping beyond a ring, no keepalive arming, no path log.
#pragma once

#include <cstddef>

#include "bench/net_bench_link.h"

namespace railtune::bench {

inline constexpr size_t kRawMaxInFlight = 32;  // requests per endpoint, as the plugin's NCCL_NET_MAX_REQUESTS
inline constexpr int kRawMaxStreams = 16;

// One connection of `streams` TCP streams between two sockets of 127.0.0.1, set up with
// blocking calls and then switched to non-blocking. Throws BenchError naming the failing call.
Link makeRawLink(int streams, size_t chunkBytes);

}  // namespace railtune::bench
