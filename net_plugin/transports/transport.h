// The seam between the net plugin's engine (plugin_engine.h) and a transport that carries the bytes:
// sockets today (transports/socket/), verbs next (transports/ib/). A transport is a net::Engine over
// physical devices; the plugin engine owns exactly one, behind this interface, and adds what every
// transport shares on top of it: the device table and NIC fusion, the handshake header in each
// connection's preamble, the rail check, the path log and the profiler events. A transport knows
// nothing of those; it carries the preamble the plugin gives each device, hands back what the peer
// sent, and bumps the counters and tells the observer the plugin attaches to each connection.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "formats/handshake.h"
#include "formats/path_log.h"
#include "net_plugin/engine.h"
#include "net_plugin/pathlog/counters.h"

namespace railtune::net {

// Every connection's first bytes each way: the railtune handshake header (formats/handshake.h).
inline constexpr size_t kPreambleBytes = formats::path_log::kHandshakeBytes;

// Told when each transfer that NCCL posted with a profiler handle starts and ends.
class TransferObserver {
 public:
  // A transfer begins: returns the event to stop, or NULL. Called on the data path: must neither
  // block nor throw.
  virtual void* started(void* parentHandle, size_t bytes) noexcept = 0;
  virtual void stopped(void* event) noexcept = 0;
  // The verbs transport's per-QP work (NCCL's IB descriptor, ncclProfilerNetIbDescr_v1_t): one start per QP a
  // transfer is posted on, stopped with stopped(). opcode -1 and length 0 for a receive, as NCCL's IB transport.
  virtual void* startedQp(void* parentHandle, int device, uint64_t wrId, int opcode, int qpNum,
                          size_t length) noexcept = 0;

 protected:
  ~TransferObserver() = default;
};

// What the plugin hangs on a connection: counters its data path bumps, an observer of its transfers,
// and one pointer of the caller's own. All must outlive the connection's comm; all may be NULL.
struct Attachments {
  pathlog::ConnectionCounters* counters = nullptr;
  TransferObserver* observer = nullptr;
  void* user = nullptr;
};

class Transport : public Engine {
 public:
  // name() is what the path log writes as the connection's transport: "socket", "ib".

  // What an established send or receive comm knows of its other end. Throws NetError(InvalidArgument)
  // for anything else.
  struct ConnectionFacts {
    std::string peer;                                         // "10.0.0.7:43122", or the peer's GID and QPN
    int streams = 0;                                          // TCP streams or QPs
    std::span<const std::byte, kPreambleBytes> peerPreamble;  // what the peer's device sent
    formats::path_log::VerbsFacts verbs{};                    // the verbs transport's: HCA port, GID, QPs
  };
  virtual ConnectionFacts describe(void* comm) const = 0;
  // Attaches (or, with an empty Attachments, detaches) the caller's objects to a send or receive comm.
  virtual void attach(void* comm, const Attachments& attachments) = 0;
  // The user pointer attached to a send or receive comm (NULL when none, or after close). Throws
  // NetError(InvalidArgument) when comm is not one of this transport's send or receive comms.
  virtual void* userOf(void* comm) const = 0;
};

}  // namespace railtune::net
