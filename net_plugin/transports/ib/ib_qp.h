// RC queue pairs as NCCL's IB transport creates and connects them (src/transport/net_ib/connect.cc@v2.30.7,
// ncclIbCreateQp/ncclIbRtrQp/ncclIbRtsQp): RESET -> INIT -> RTR -> RTS with exactly the attribute masks the
// kernel requires for RC, every PSN 0, and NCCL's variables for what a user tunes (docs/net-ib.md). Each call
// throws std::runtime_error naming the verbs call and its errno.
#pragma once

#include <cstdint>
#include <functional>

#include "common/nccl_ib_env.h"
#include "common/qp_policy.h"
#include "net_plugin/transports/ib/ib_devices.h"
#include "net_plugin/transports/ib/ib_wire.h"

namespace railtune::net::ib {

struct QpOptions {
  int timeout = 20;        // NCCL_IB_TIMEOUT (0..31): 4.096 us x 2^timeout per try
  int retryCnt = 7;        // NCCL_IB_RETRY_CNT (0..7)
  int pkey = 0;            // NCCL_IB_PKEY (index)
  int sl = -1;             // NCCL_IB_SL (0..15), else the QP policy's; -1: the comm's traffic class, else 0
  int tc = -1;             // NCCL_IB_TC (0..255), else the QP policy's; -1: the comm's traffic class, else 0
  int fifoTc = -1;         // NCCL_IB_FIFO_TC: receiver QPs (they carry the clear-to-send writes); -1: tc
  bool useInline = false;  // NCCL_IB_USE_INLINE
};
// The options from NCCL's variables as read once (common/nccl_ib_env.h: every value already in range) and the QP
// policy, which already holds NCCL_IB_SL and NCCL_IB_TC where the user set them, else the fabric's. The transport
// reads no environment of its own.
QpOptions qpOptionsFrom(const ncclib::NcclIbEnv& env, const qp::QpPolicy& policy);

IbvCq* createCq(const VerbsTable& verbs, IbPort& port, int entries, void* cqContext);
// An RC QP with one SGE each way; access flags are set at INIT.
IbvQp* createQp(const VerbsTable& verbs, IbPort& port, IbvCq* cq, int maxSendWr, int maxRecvWr, bool useInline,
                void* qpContext);
void qpToInit(const VerbsTable& verbs, const IbPort& port, IbvQp* qp, int access, int pkeyIndex);

// What RTR needs of the other end.
struct RemoteQp {
  uint32_t qpn = 0;
  uint16_t lid = 0;
  IbvGid gid{};
  uint8_t linkLayer = kIbvLinkLayerInfiniband;
  int mtu = kIbvMtu4096;
};
void qpToRtr(const VerbsTable& verbs, const IbPort& port, IbvQp* qp, const RemoteQp& remote, int sl, int tc);
void qpToRts(const VerbsTable& verbs, IbvQp* qp, const QpOptions& options);

}  // namespace railtune::net::ib
