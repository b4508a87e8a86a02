// The verbs transport's engine in one process on the strict verbs simulator (host0 of the gb300 preset), with device
// 0 connected to itself: a send and a receive comm. Shared by the transport's unit tests that need real QPs (the
// allocation count, NCCL's variables read back with ibv_query_qp, the connections' edges). Each test program is
// its own process: the simulator reads its folder once per process.
#pragma once

#include <memory>
#include <string>

#include "net_plugin/transports/ib/ib_engine.h"

namespace railtune::net::ib::testing {

// Points this process at the simulator: a rendezvous folder made once per process and removed at exit, the
// gb300 preset, host0. Call before the first verbs call.
void useSimulatedHost();

struct EnginePair {
  std::unique_ptr<IbEngine> engine;
  ListenComm* listen = nullptr;
  SendComm* send = nullptr;
  RecvComm* recv = nullptr;
  IbSendComm& sendComm() const { return *static_cast<IbSendComm*>(reinterpret_cast<IbCommBase*>(send)->object); }
  IbRecvComm& recvComm() const { return *static_cast<IbRecvComm*>(reinterpret_cast<IbCommBase*>(recv)->object); }
  // Closes what is still open (a comm a test closed itself is set to NULL by it) and the engine.
  void close();
};

// An engine over `verbs` (the simulator, loaded by the caller, who may wrap its table) with `options`, and device 0
// connected to itself. Throws std::runtime_error when the connection does not complete within 20 s.
EnginePair connectedPair(LoadedVerbs verbs, const IbEngineOptions& options);

}  // namespace railtune::net::ib::testing
