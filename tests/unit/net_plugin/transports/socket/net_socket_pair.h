// Test support for the socket transport: an engine on 127.0.0.1, a connected send/receive pair
// and a pump that drives both ends from one thread until requests complete or a deadline passes.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "net_plugin/transports/socket/socket_engine.h"

namespace railtune::net::socket::testing {

using Clock = std::chrono::steady_clock;
inline constexpr auto kDeadline = std::chrono::seconds(30);

inline std::unique_ptr<SocketEngine> loopbackEngine(SocketEngineOptions options = {}) {
  std::vector<SocketDevice> devices;
  devices.push_back(SocketDevice{"lo0", "lo", "127.0.0.1", 100000, 0, 0, "", {}});
  return std::make_unique<SocketEngine>(std::move(devices), options);
}

struct Pair {
  ListenComm* listener = nullptr;
  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
};

// Repeats step until it returns true; false when the deadline passes first. Sleeps a little between
// tries so that a stuck side cannot spin a core for the whole deadline.
inline bool pumpUntil(const std::function<bool()>& step, std::chrono::milliseconds limit = kDeadline) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (step()) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return false;
}

inline Pair connectPair(Engine& engine, int dev = 0) {
  Pair pair;
  std::array<std::byte, kHandleBytes> handle{};
  pair.listener = engine.listen(dev, CommConfig{}, handle);
  const bool connected = pumpUntil([&] {
    if (pair.send == nullptr) pair.send = engine.connect(dev, CommConfig{}, handle);
    if (pair.recv == nullptr) pair.recv = engine.accept(pair.listener);
    return pair.send != nullptr && pair.recv != nullptr;
  });
  EXPECT_TRUE(connected) << "handshake did not complete";
  return pair;
}

// Tests both requests until both are done; the completions through out-parameters.
inline bool completeBoth(Engine& engine, Request* send, Request* recv, Completion& sendDone, Completion& recvDone) {
  return pumpUntil([&] {
    if (!sendDone.done) sendDone = engine.test(send);
    if (!recvDone.done) recvDone = engine.test(recv);
    return sendDone.done && recvDone.done;
  });
}

inline std::vector<std::byte> pattern(size_t size, unsigned seed) {
  std::vector<std::byte> bytes(size);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : bytes) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return bytes;
}

}  // namespace railtune::net::socket::testing
