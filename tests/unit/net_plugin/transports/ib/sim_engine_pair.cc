// One engine, device 0 connected to itself, on the verbs simulator. See sim_engine_pair.h.
#include "tests/unit/net_plugin/transports/ib/sim_engine_pair.h"

#include <stdlib.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace railtune::net::ib::testing {

void useSimulatedHost() {
  // A plain buffer, so that the exit handler never sees a destroyed string.
  static char dir[] = "/tmp/railtune-ib-sim-XXXXXX";
  static const bool made = [] {
    if (mkdtemp(dir) == nullptr) return false;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    });
    return true;
  }();
  if (!made) throw std::runtime_error("mkdtemp failed for the simulator's folder");
  setenv("RAILTUNE_VERBS_SIM_DIR", dir, 1);
  setenv("RAILTUNE_VERBS_SIM_FABRIC", "gb300", 1);
  setenv("RAILTUNE_VERBS_SIM_HOST", "host0", 1);
}

EnginePair connectedPair(LoadedVerbs verbs, const IbEngineOptions& options) {
  EnginePair pair;
  IbDevice device{"mlx5_0", 1, "127.0.0.1", "", 0, -1, std::vector<std::byte>(kPreambleBytes)};
  pair.engine = std::make_unique<IbEngine>(std::move(verbs), std::vector<IbDevice>{device}, options);
  std::array<std::byte, kHandleBytes> handle{};
  pair.listen = pair.engine->listen(0, CommConfig{}, handle);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((pair.send == nullptr || pair.recv == nullptr) && std::chrono::steady_clock::now() < deadline) {
    if (pair.send == nullptr) pair.send = pair.engine->connect(0, CommConfig{}, handle);
    if (pair.recv == nullptr) pair.recv = pair.engine->accept(pair.listen);
  }
  if (pair.send == nullptr || pair.recv == nullptr) {
    pair.close();
    throw std::runtime_error("the engine's connection to itself did not complete within 20 s");
  }
  return pair;
}

void EnginePair::close() {
  if (!engine) return;
  if (send != nullptr) engine->closeSend(send);
  if (recv != nullptr) engine->closeRecv(recv);
  if (listen != nullptr) engine->closeListen(listen);
  send = nullptr;
  recv = nullptr;
  listen = nullptr;
  engine.reset();
}

}  // namespace railtune::net::ib::testing
