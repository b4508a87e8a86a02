// What bench_net_socket drives: one direction of a connection, seen as NCCL's proxy sees it. The
// plugin (through its ncclNetPlugin_v11 table) and the raw TCP baseline both implement Endpoint,
// so that the timed loops in net_bench_rounds.h are the same code for both and only the transport
// differs.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>

namespace railtune::bench {

// One side of one direction: the sending or the receiving end. Used by one thread at a time, as
// NCCL uses a comm from one proxy thread.
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  // Tells the endpoint which buffer later posts lie in (the plugin registers it, as NCCL does).
  virtual void useBuffer(void* data, size_t size) = 0;
  // Posts a send of `size` bytes, or a receive of up to `size` bytes. NULL: cannot post now
  // (every request slot busy), try again after a test.
  virtual void* post(void* data, size_t size) = 0;
  // true once the request is complete; `bytes` is then the size sent or received. Throws
  // std::runtime_error naming the failure.
  virtual bool test(void* request, size_t& bytes) = 0;
};

// One direction of one connection: what `sender` sends, `receiver` receives.
struct Link {
  std::unique_ptr<Endpoint> sender;
  std::unique_ptr<Endpoint> receiver;
};

// Thrown by the transports when something fails; the benchmark reports it with SkipWithError.
class BenchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace railtune::bench
