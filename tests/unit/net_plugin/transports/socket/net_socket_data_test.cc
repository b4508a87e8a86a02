// The socket transport's data path: integrity over several streams with random sizes and tags,
// grouped receives, NCCL's size rule, the request limits, zero-size messages, flush.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "tests/unit/net_plugin/transports/socket/net_socket_pair.h"

namespace railtune::net::socket {
namespace {
using namespace testing;

Request* postRecv(Engine& engine, RecvComm* comm, std::vector<RecvBuffer>& buffers) {
  return engine.irecv(comm, std::span<const RecvBuffer>(buffers.data(), buffers.size()));
}

// One message each way through a fresh pair; returns the received size.
size_t transfer(Engine& engine, Pair& pair, std::vector<std::byte>& out, std::vector<std::byte>& in, int tag) {
  std::vector<RecvBuffer> buffers{{in.data(), in.size(), tag, nullptr, nullptr}};
  Request* recv = postRecv(engine, pair.recv, buffers);
  Request* send = engine.isend(pair.send, out.data(), out.size(), tag, nullptr, nullptr);
  EXPECT_NE(recv, nullptr);
  EXPECT_NE(send, nullptr);
  Completion sendDone, recvDone;
  EXPECT_TRUE(completeBoth(engine, send, recv, sendDone, recvDone));
  EXPECT_EQ(sendDone.sizes[0], out.size());
  EXPECT_EQ(recvDone.nSizes, 1);
  return recvDone.sizes[0];
}

class NetSocketStreams : public ::testing::TestWithParam<int> {};

TEST_P(NetSocketStreams, RandomSizesAndTagsArriveIntact) {
  SocketEngineOptions options;
  options.streams = GetParam();
  options.chunkBytes = 64 * 1024;
  auto engine = loopbackEngine(options);
  Pair pair = connectPair(*engine);
  std::mt19937 random(1234 + static_cast<unsigned>(GetParam()));
  // Sizes cover 0, one byte, chunk boundaries and (once) 64 MiB, the largest NCCL step we test.
  std::vector<size_t> sizes{0, 1, 4095, 65536, 65537, 3 * 65536 + 17, size_t{64} << 20};
  for (int i = 0; i < 12; ++i) sizes.push_back(std::uniform_int_distribution<size_t>(0, 4 << 20)(random));
  for (size_t i = 0; i < sizes.size(); ++i) {
    auto out = pattern(sizes[i], static_cast<unsigned>(i));
    std::vector<std::byte> in(sizes[i] + 32, std::byte{0xee});
    const int tag = std::uniform_int_distribution<int>(0, 1 << 20)(random);
    ASSERT_EQ(transfer(*engine, pair, out, in, tag), sizes[i]);
    ASSERT_TRUE(std::equal(out.begin(), out.end(), in.begin())) << "message " << i << " of " << sizes[i] << " bytes";
    ASSERT_EQ(in[sizes[i]], std::byte{0xee}) << "wrote past the message";
  }
}

INSTANTIATE_TEST_SUITE_P(Counts, NetSocketStreams, ::testing::Values(1, 2, 4, 16));

TEST(NetSocketData, ManyMessagesInFlightReassembleInOrder) {
  SocketEngineOptions options;
  options.streams = 4;
  options.chunkBytes = 4096;
  auto engine = loopbackEngine(options);
  Pair pair = connectPair(*engine);
  constexpr int kMessages = kMaxRequests;
  std::vector<std::vector<std::byte>> out, in;
  std::vector<Request*> sends, recvs;
  for (int i = 0; i < kMessages; ++i) {
    out.push_back(pattern(1000 + static_cast<size_t>(i) * 7919, static_cast<unsigned>(i)));
    in.emplace_back(out.back().size());
  }
  for (int i = 0; i < kMessages; ++i) {
    std::vector<RecvBuffer> buffers{{in[i].data(), in[i].size(), 5, nullptr, nullptr}};
    recvs.push_back(postRecv(*engine, pair.recv, buffers));
    sends.push_back(engine->isend(pair.send, out[i].data(), out[i].size(), 5, nullptr, nullptr));
    ASSERT_NE(recvs.back(), nullptr);
    ASSERT_NE(sends.back(), nullptr);
  }
  std::vector<Completion> sendDone(kMessages), recvDone(kMessages);
  ASSERT_TRUE(pumpUntil([&] {
    bool all = true;
    for (int i = 0; i < kMessages; ++i) {
      if (!sendDone[i].done) sendDone[i] = engine->test(sends[i]);
      if (!recvDone[i].done) recvDone[i] = engine->test(recvs[i]);
      all = all && sendDone[i].done && recvDone[i].done;
    }
    return all;
  }));
  for (int i = 0; i < kMessages; ++i) EXPECT_EQ(in[i], out[i]) << "message " << i;
}

TEST(NetSocketData, GroupedReceiveMatchesByTagInPostingOrder) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  constexpr int n = kMaxRecvs;
  std::vector<std::vector<std::byte>> out, in;
  std::vector<RecvBuffer> buffers;
  for (int i = 0; i < n; ++i) {
    out.push_back(pattern(static_cast<size_t>(i) * 100000, static_cast<unsigned>(i)));
    in.emplace_back(out.back().size() + 10);
  }
  for (int i = 0; i < n; ++i) buffers.push_back({in[i].data(), in[i].size(), 100 + i, nullptr, nullptr});
  Request* recv = postRecv(*engine, pair.recv, buffers);
  std::vector<Request*> sends;
  for (int i = n - 1; i >= 0; --i) {  // the sender goes in reverse tag order: tags pick the buffer
    sends.push_back(engine->isend(pair.send, out[i].data(), out[i].size(), 100 + i, nullptr, nullptr));
  }
  Completion recvDone;
  std::vector<Completion> sendDone(n);
  ASSERT_TRUE(pumpUntil([&] {
    bool all = true;
    for (int i = 0; i < n; ++i) {
      if (!sendDone[i].done) sendDone[i] = engine->test(sends[i]);
      all = all && sendDone[i].done;
    }
    if (!recvDone.done) recvDone = engine->test(recv);
    return all && recvDone.done;
  }));
  ASSERT_EQ(recvDone.nSizes, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(recvDone.sizes[i], out[i].size());
    EXPECT_TRUE(std::equal(out[i].begin(), out[i].end(), in[i].begin())) << "buffer " << i;
  }
}

TEST(NetSocketData, SmallerSendReportsItsSizeAndLargerIsAnError) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  auto out = pattern(1000, 1);
  std::vector<std::byte> in(4096);
  EXPECT_EQ(transfer(*engine, pair, out, in, 0), 1000u);
  std::vector<std::byte> empty;
  EXPECT_EQ(transfer(*engine, pair, empty, in, 0), 0u) << "zero-size messages complete";

  std::vector<std::byte> small(100);
  std::vector<RecvBuffer> buffers{{small.data(), small.size(), 0, nullptr, nullptr}};
  Request* recv = postRecv(*engine, pair.recv, buffers);
  Request* send = engine->isend(pair.send, out.data(), out.size(), 0, nullptr, nullptr);
  ASSERT_NE(send, nullptr);
  try {
    pumpUntil([&] { return engine->test(recv).done; });
    FAIL() << "an oversized message was accepted";
  } catch (const NetError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidUsage);
    EXPECT_NE(std::string(error.what()).find("exceeds the posted buffer of 100 bytes"), std::string::npos)
        << error.what();
  }
}

TEST(NetSocketData, AnUnpostedTagIsAnError) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  std::vector<std::byte> buffer(16);
  std::vector<RecvBuffer> buffers{{buffer.data(), buffer.size(), 1, nullptr, nullptr}};
  Request* recv = postRecv(*engine, pair.recv, buffers);
  ASSERT_NE(engine->isend(pair.send, buffer.data(), 16, 2, nullptr, nullptr), nullptr);
  EXPECT_THROW(pumpUntil([&] { return engine->test(recv).done; }), NetError);
}

TEST(NetSocketData, RequestLimitsReturnNullAndRecover) {
  SocketEngineOptions options;
  options.chunkBytes = 4096;
  auto engine = loopbackEngine(options);
  Pair pair = connectPair(*engine);
  std::vector<std::byte> byte(1);
  std::vector<RecvBuffer> buffers{{byte.data(), 1, 0, nullptr, nullptr}};
  std::vector<Request*> recvs;
  for (int i = 0; i < kMaxRequests; ++i) recvs.push_back(postRecv(*engine, pair.recv, buffers));
  for (Request* r : recvs) ASSERT_NE(r, nullptr);
  EXPECT_EQ(postRecv(*engine, pair.recv, buffers), nullptr) << "the 33rd receive must wait";

  // Sends: NCCL's 32 x maxRecvs; nothing is received yet, so large ones stay in flight.
  auto big = pattern(1 << 20, 3);
  std::vector<Request*> sends;
  for (int i = 0; i < kMaxRequests * kMaxRecvs; ++i) {
    sends.push_back(engine->isend(pair.send, big.data(), big.size(), 0, nullptr, nullptr));
    ASSERT_NE(sends.back(), nullptr) << "send " << i;
  }
  EXPECT_EQ(engine->isend(pair.send, big.data(), big.size(), 0, nullptr, nullptr), nullptr);
  engine->closeSend(pair.send);  // abandon them: the receive side sees the sizes are too large anyway

  // A completed receive frees its slot.
  SocketEngine& e = *engine;
  Pair fresh = connectPair(e);
  std::vector<Request*> held;
  for (int i = 0; i < kMaxRequests; ++i) held.push_back(postRecv(e, fresh.recv, buffers));
  ASSERT_EQ(postRecv(e, fresh.recv, buffers), nullptr);
  Request* send = e.isend(fresh.send, byte.data(), 1, 0, nullptr, nullptr);
  Completion sendDone, recvDone;
  ASSERT_TRUE(completeBoth(e, send, held[0], sendDone, recvDone));
  EXPECT_NE(postRecv(e, fresh.recv, buffers), nullptr);
}

// Two processes may disagree on streams and chunk size (configured apart): the receiver follows the
// sender's, which its hellos announce.
TEST(NetSocketData, TheReceiverFollowsTheSendersStreamsAndChunking) {
  SocketEngineOptions senderOptions;
  senderOptions.streams = 3;
  senderOptions.chunkBytes = 4096;
  SocketEngineOptions receiverOptions;
  receiverOptions.streams = 1;
  receiverOptions.chunkBytes = 1 << 20;
  auto sender = loopbackEngine(senderOptions);
  auto receiver = loopbackEngine(receiverOptions);
  std::array<std::byte, kHandleBytes> handle{};
  ListenComm* listener = receiver->listen(0, CommConfig{}, handle);
  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
  ASSERT_TRUE(pumpUntil([&] {
    if (send == nullptr) send = sender->connect(0, CommConfig{}, handle);
    if (recv == nullptr) recv = receiver->accept(listener);
    return send != nullptr && recv != nullptr;
  }));
  auto out = pattern(100000, 5);
  std::vector<std::byte> in(out.size());
  RecvBuffer one{in.data(), in.size(), 0, nullptr, nullptr};
  Request* r = receiver->irecv(recv, std::span<const RecvBuffer>(&one, 1));
  Request* s = sender->isend(send, out.data(), out.size(), 0, nullptr, nullptr);
  Completion sendDone, recvDone;
  ASSERT_TRUE(pumpUntil([&] {
    if (!sendDone.done) sendDone = sender->test(s);
    if (!recvDone.done) recvDone = receiver->test(r);
    return sendDone.done && recvDone.done;
  }));
  EXPECT_EQ(in, out);
}

TEST(NetSocketData, TestingARequestAgainAfterDoneIsAnError) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  std::vector<std::byte> out = pattern(10, 1), in(10);
  RecvBuffer one{in.data(), in.size(), 0, nullptr, nullptr};
  Request* recv = engine->irecv(pair.recv, std::span<const RecvBuffer>(&one, 1));
  Request* send = engine->isend(pair.send, out.data(), out.size(), 0, nullptr, nullptr);
  Completion sendDone, recvDone;
  ASSERT_TRUE(completeBoth(*engine, send, recv, sendDone, recvDone));
  try {
    engine->test(send);
    FAIL() << "a reported request was tested again";
  } catch (const NetError& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidUsage);
    EXPECT_NE(std::string(error.what()).find("not in flight"), std::string::npos);
  }
}

TEST(NetSocketData, FlushOfHostMemoryCompletesAtOnce) {
  auto engine = loopbackEngine();
  Pair pair = connectPair(*engine);
  std::vector<std::byte> buffer(8);
  RecvBuffer one{buffer.data(), buffer.size(), 0, nullptr, nullptr};
  Request* flush = engine->iflush(pair.recv, std::span<const RecvBuffer>(&one, 1));
  ASSERT_NE(flush, nullptr);
  EXPECT_TRUE(engine->test(flush).done);
}

TEST(NetSocketData, OversizedSendAndTooManyBuffersAreRefused) {
  SocketEngineOptions options;
  options.maxMessageBytes = 1 << 20;
  auto engine = loopbackEngine(options);
  Pair pair = connectPair(*engine);
  std::vector<std::byte> buffer((1 << 20) + 1);
  EXPECT_THROW(engine->isend(pair.send, buffer.data(), buffer.size(), 0, nullptr, nullptr), NetError);
  std::vector<RecvBuffer> buffers(kMaxRecvs + 1, RecvBuffer{buffer.data(), 1, 0, nullptr, nullptr});
  EXPECT_THROW(postRecv(*engine, pair.recv, buffers), NetError);
}

// Each side on its own thread, as NCCL's proxies drive them (TSan checks the comms share nothing).
TEST(NetSocketData, TwoThreadsStreamInBothDirections) {
  SocketEngineOptions options;
  options.streams = 3;
  options.chunkBytes = 8192;
  auto engine = loopbackEngine(options);
  Pair forward = connectPair(*engine);
  Pair backward = connectPair(*engine);
  auto side = [&](SendComm* send, RecvComm* recv, unsigned seed, bool& ok) {
    std::mt19937 random(seed);
    ok = true;
    for (int i = 0; i < 40 && ok; ++i) {
      const size_t size = std::uniform_int_distribution<size_t>(0, 300000)(random);
      auto out = pattern(size, seed + static_cast<unsigned>(i));
      std::vector<std::byte> in(300000);
      RecvBuffer buffer{in.data(), in.size(), 9, nullptr, nullptr};
      Request* r = engine->irecv(recv, std::span<const RecvBuffer>(&buffer, 1));
      Request* s = engine->isend(send, out.data(), out.size(), 9, nullptr, nullptr);
      Completion sd, rd;
      ok = r != nullptr && s != nullptr && completeBoth(*engine, s, r, sd, rd) && rd.sizes[0] == size;
    }
  };
  // Thread A sends on forward and receives on backward; B the reverse. Sizes agree by seed.
  bool okA = false, okB = false;
  std::thread a([&] { side(forward.send, backward.recv, 7, okA); });
  std::thread b([&] { side(backward.send, forward.recv, 7, okB); });
  a.join();
  b.join();
  EXPECT_TRUE(okA);
  EXPECT_TRUE(okB);
}

}  // namespace
}  // namespace railtune::net::socket
