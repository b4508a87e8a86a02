// The socket transport's data path allocates nothing once a connection is set up (architecture
// rule 3): this executable counts every operator new and checks the count across isend, irecv,
// test and iflush.
#include <gtest/gtest.h>

#include "tests/support/allocation_counter.h"
#include "tests/unit/net_plugin/transports/socket/net_socket_pair.h"

namespace railtune::net::socket {
namespace {
using namespace testing;

TEST(NetSocketAlloc, DataPathAllocatesNothing) {
  if (!railtune::testing::kCountsAllocations) GTEST_SKIP() << "operator new cannot be replaced under TSan";
  SocketEngineOptions options;
  options.streams = 4;
  options.chunkBytes = 4096;
  auto engine = loopbackEngine(options);
  Pair pair = connectPair(*engine);
  std::vector<std::byte> out = pattern(100000, 3), in(100000);
  std::array<RecvBuffer, 2> buffers{RecvBuffer{in.data(), 50000, 1, nullptr, nullptr},
                                    RecvBuffer{in.data() + 50000, 50000, 2, nullptr, nullptr}};
  const auto deadline = Clock::now() + kDeadline;
  const long before = static_cast<long>(railtune::testing::gAllocations.load());
  ASSERT_GT(before, 0) << "the counter sees the setup's allocations";
  int rounds = 0;
  for (; rounds < 200 && Clock::now() < deadline; ++rounds) {
    Request* recv = engine->irecv(pair.recv, buffers);
    Request* first = engine->isend(pair.send, out.data(), 50000, 1, nullptr, nullptr);
    Request* second = engine->isend(pair.send, out.data() + 50000, rounds % 50000, 2, nullptr, nullptr);
    Completion a, b, c;
    while (!(a.done && b.done && c.done) && Clock::now() < deadline) {
      if (!a.done) a = engine->test(first);
      if (!b.done) b = engine->test(second);
      if (!c.done) c = engine->test(recv);
    }
    if (!c.done || c.sizes[1] != static_cast<size_t>(rounds % 50000)) break;
    engine->test(engine->iflush(pair.recv, buffers));
  }
  const long after = static_cast<long>(railtune::testing::gAllocations.load());
  EXPECT_EQ(rounds, 200);
  EXPECT_EQ(after - before, 0) << "allocations on the data path";
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 50000, in.begin()));
}

}  // namespace
}  // namespace railtune::net::socket
