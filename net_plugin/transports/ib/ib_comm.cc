// What the send and receive comms share: control memory, QP lookup, error text. See ib_comm.h.
#include "net_plugin/transports/ib/ib_comm.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace railtune::net::ib {

int QpSet::dataQpsFor(size_t bytes) const {
  if (perMessage <= 1 || bytes == 0 || bytes < splitMinBytes) return 1;
  const size_t chunk = qp::chunkBytesFor(bytes, perMessage);
  return static_cast<int>(bytes / chunk + (bytes % chunk != 0 ? 1 : 0));
}

int cqEntriesFor(int qps, int sendDepth, int recvDepth, int extra) {
  return qps * (sendDepth + recvDepth) + extra;
}

int QpSet::indexOf(uint32_t qpn) const {
  for (int q = 0; q < count; ++q)
    if (qps[static_cast<size_t>(q)] != nullptr && qps[static_cast<size_t>(q)]->qpNum == qpn) return q;
  return -1;
}

void ControlMemory::allocate(const VerbsTable& verbs, IbPort& port, size_t size, int access) {
  const long page = sysconf(_SC_PAGESIZE);
  bytes = (size + static_cast<size_t>(page) - 1) / static_cast<size_t>(page) * static_cast<size_t>(page);
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::runtime_error(std::string("mmap of control memory: ") + std::strerror(errno));
  data = static_cast<std::byte*>(memory);
  errno = 0;
  mr = verbs.regMr(port.pd, data, bytes, access);
  if (mr == nullptr) {
    const int error = errno;
    munmap(data, bytes);
    data = nullptr;
    throw std::runtime_error("ibv_reg_mr of control memory on " + port.where() + ": " +
                             (error != 0 ? std::strerror(error) : "no reason given"));
  }
}

void ControlMemory::release(const VerbsTable& verbs, std::string& failures) {
  if (mr != nullptr) {
    if (const int rc = verbs.deregMr(mr); rc != 0)
      failures += "ibv_dereg_mr(control memory): " + std::string(std::strerror(rc)) + "; ";
  }
  if (data != nullptr && munmap(data, bytes) != 0)
    failures += "munmap(control memory): " + std::string(std::strerror(errno)) + "; ";
  mr = nullptr;
  data = nullptr;
}

void throwIfFailed(const IbCommBase& base, const QpSet& set) {
  if (set.fatal.failed()) throw connectionError(base, set, ErrorKind::Remote, set.fatal.reason());
  if (set.port->fatal.failed()) throw connectionError(base, set, ErrorKind::System, set.port->fatal.reason());
}

void releaseQpSet(const VerbsTable& verbs, QpSet& set, std::string& failures) {
  for (IbvQp*& qp : set.qps) {
    if (qp == nullptr) continue;
    const uint32_t qpn = qp->qpNum;
    if (const int rc = verbs.destroyQp(qp); rc != 0)
      failures += "ibv_destroy_qp(QP " + std::to_string(qpn) + "): " + std::strerror(rc) + "; ";
    qp = nullptr;
  }
  if (set.cq != nullptr) {
    if (const int rc = verbs.destroyCq(set.cq); rc != 0)
      failures += "ibv_destroy_cq: " + std::string(std::strerror(rc)) + "; ";
  }
  set.cq = nullptr;
  set.oob.reset();  // the peer's watchPeer sees the close: a send or receive still waiting there fails
}

void watchPeer(const IbCommBase& base, QpSet& set) {
  if (!set.oob.valid()) return;
  const uint64_t now = tcp_setup::monotonicMs();
  if (now - set.oobCheckedMs < 100) return;
  set.oobCheckedMs = now;
  char byte = 0;
  const ssize_t got = recv(set.oob.get(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got > 0 || (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))) return;
  const std::string what = got == 0 ? "the peer closed its out-of-band connection with a transfer pending (its "
                                      "process exited or closed the comm)"
                                    : "the peer's out-of-band connection failed: " + tcp_setup::errorText(errno);
  set.fatal.set(what);
  throw connectionError(base, set, ErrorKind::Remote, what);
}

std::string completionStatusText(int status) {
  const char* name = "an unknown status";
  const char* hint = "";
  switch (status) {
    case kIbvWcLocLenErr:
      name = "IBV_WC_LOC_LEN_ERR";
      break;
    case kIbvWcLocQpOpErr:
      name = "IBV_WC_LOC_QP_OP_ERR";
      break;
    case kIbvWcLocProtErr:
      name = "IBV_WC_LOC_PROT_ERR";
      hint =
          ": a buffer outside its registration (or GPU memory the HCA cannot reach: check ACS and NCCL_NET_GDR_LEVEL)";
      break;
    case kIbvWcWrFlushErr:
      name = "IBV_WC_WR_FLUSH_ERR";
      hint = ": the QP was already in error";
      break;
    case kIbvWcRemInvReqErr:
      name = "IBV_WC_REM_INV_REQ_ERR";
      break;
    case kIbvWcRemAccessErr:
      name = "IBV_WC_REM_ACCESS_ERR";
      hint = ": the peer refused the key or range (a buffer it deregistered, or a mismatched build)";
      break;
    case kIbvWcRemOpErr:
      name = "IBV_WC_REM_OP_ERR";
      break;
    case kIbvWcRetryExcErr:
      name = "IBV_WC_RETRY_EXC_ERR";
      hint =
          ": the peer stopped answering (it died, or its port or the fabric path is down; NCCL_IB_TIMEOUT sets "
          "how long to wait)";
      break;
    case kIbvWcRnrRetryExcErr:
      name = "IBV_WC_RNR_RETRY_EXC_ERR";
      hint = ": the peer posted no receive";
      break;
    case kIbvWcFatalErr:
      name = "IBV_WC_FATAL_ERR";
      break;
    case kIbvWcGeneralErr:
      name = "IBV_WC_GENERAL_ERR";
      break;
    default:
      break;
  }
  return std::string(name) + " (" + std::to_string(status) + ")" + hint;
}

NetError connectionError(const IbCommBase& base, const QpSet& set, ErrorKind kind, const std::string& what) {
  const std::string where = set.port != nullptr ? set.port->where() + " (" + set.port->linkLayerName() + ")" : "?";
  const std::string link = set.port != nullptr ? set.port->linkNote() : "";
  return NetError(kind, base.peer, base.device, "verbs connection on " + where + ": " + what + link);
}

}  // namespace railtune::net::ib
