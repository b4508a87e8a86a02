// Connection setup of the verbs transport, never blocking: NCCL calls connect and accept again until they
// return a comm. The out-of-band part is the TCP setup both transports use (one stream, the railtune
// preamble crossing first, transports/tcp_setup/tcp_setup.h); then, on that stream:
//   connector: creates its CQ and QPs (INIT) and its FIFO, sends its metadata (ib_wire.h);
//   acceptor:  reads it, creates as many QPs, takes them to RTR and RTS, registers its control memory (and a
//              loopback flush QP when GPU memory needs flushing), sends its metadata;
//   connector: reads it, takes its QPs to RTR and RTS, sends "ready";
//   acceptor:  reads "ready": only now may it post a clear-to-send, since every QP of both ends is in RTS.
// That is NCCL's order (src/transport/net_ib/connect.cc@v2.30.7), so no packet reaches a QP not yet ready.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net_plugin/transports/ib/ib_comm.h"
#include "net_plugin/transports/tcp_setup/tcp_setup.h"

namespace railtune::net::ib {

// What the connections read of the QP policy (common/qp_policy.h), without its reasons and warnings: the QPs per
// connection and how data spreads over them (the sender's rules both ends: the receiver follows its metadata),
// adaptive routing and its threshold. The defaults are the policy's.
struct QpLayout {
  int qpsPerConnection = 1;  // 1..kMaxQps
  bool splitDataOnQps = false;
  size_t splitMinBytes = 0;  // split on: messages below travel on one QP
  bool adaptiveRouting = true;
  size_t arThresholdBytes = qp::kNcclArThresholdBytes;
};
inline QpLayout qpLayoutOf(const qp::QpPolicy& policy) {
  return {policy.qpsPerConnection, policy.splitDataOnQps, policy.splitMinBytes, policy.adaptiveRouting,
          policy.arThresholdBytes};
}

struct ConnectionOptions {
  QpOptions qp;
  QpLayout layout;
  int trafficClass = -1;  // the communicator's (net v10+ config)
};

using Preamble = std::array<std::byte, kPreambleBytes>;

// Moves bytes over the out-of-band stream without blocking: true when all of [0, total) have moved.
// Throws NetError(Remote) when the peer closed or reset.
bool moveBytes(int fd, bool sending, std::byte* data, size_t total, size_t& done, const std::string& peer, int device,
               const char* what);

class IbConnecting {
 public:
  IbConnecting(const VerbsTable& verbs, IbPort& port, int device, std::unique_ptr<tcp_setup::PendingConnect> oob,
               const ConnectionOptions& options);
  ~IbConnecting();
  // The send comm once connected, else NULL. Throws NetError naming the step that failed.
  std::unique_ptr<IbSendComm> progress();

 private:
  enum class Step { Oob, SendMeta, RecvMeta, SendReady };
  void createQps();
  void connectQps(const ConnectionMeta& remote);

  const VerbsTable& verbs_;
  IbPort& port_;
  int device_;
  ConnectionOptions options_;
  std::unique_ptr<tcp_setup::PendingConnect> oob_;
  tcp_setup::SetupStreams stream_;
  std::unique_ptr<IbSendComm> comm_;
  Step step_ = Step::Oob;
  MetaBytes out_{}, in_{};
  size_t moved_ = 0;
  std::array<std::byte, 4> ready_{};
  uint8_t sl_ = 0, tc_ = 0;
};

class IbAccepting {
 public:
  IbAccepting(const VerbsTable& verbs, IbPort& port, int device, tcp_setup::SetupListener::Accepted accepted,
              const ConnectionOptions& options, bool flush);
  ~IbAccepting();
  std::unique_ptr<IbRecvComm> progress();
  const std::string& peer() const { return peer_; }

 private:
  enum class Step { RecvMeta, SendMeta, RecvReady };
  void build(const ConnectionMeta& remote);

  const VerbsTable& verbs_;
  IbPort& port_;
  int device_;
  ConnectionOptions options_;
  bool flush_;
  tcp_setup::SetupStreams stream_;
  std::string peer_;
  Preamble peerPreamble_{};
  std::unique_ptr<IbRecvComm> comm_;
  Step step_ = Step::RecvMeta;
  MetaBytes out_{}, in_{};
  size_t moved_ = 0;
  std::array<std::byte, 4> ready_{};
};

class IbListenComm {
 public:
  IbListenComm(int device, std::unique_ptr<tcp_setup::SetupListener> listener) : oob(std::move(listener)) {
    base.device = device;
    base.object = this;
  }
  IbCommBase base{IbCommKind::Listen};
  std::unique_ptr<tcp_setup::SetupListener> oob;
  std::vector<std::unique_ptr<IbAccepting>> accepting;
};

// What a comm's QPs are called in logs and the path log: "QPN 0x1a2b" lists.
std::string qpList(const QpSet& set);

}  // namespace railtune::net::ib
