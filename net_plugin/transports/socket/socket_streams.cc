#include <cerrno>

#include "net_plugin/transports/socket/socket_comm.h"

namespace railtune::net::socket {

void StreamSet::updateTimeouts(bool pending, int timeoutSeconds, bool now) {
  if (pending == timeoutsArmed) return;  // the common case: no clock, no syscall
  const uint64_t nowMs = tcp_setup::monotonicMs();
  if (!pending && !now && nowMs - armedAtMs < 1000) return;
  const bool arm = pending;
  if (arm) armedAtMs = nowMs;
  // A failed setsockopt only loses the early detection of a silent peer (the kernel's own
  // retransmission limit still applies), so it does not fail the transfer.
  for (int k = 0; k < count; ++k)
    (void)tcp_setup::setPendingTimeouts(fds[static_cast<size_t>(k)].get(), arm, timeoutSeconds);
  timeoutsArmed = arm;
}

void StreamSet::updateBusy(bool busyNow, pathlog::ConnectionCounters* counters) {
  if (busyNow == busy || counters == nullptr) return;
  const uint64_t now = tcp_setup::monotonicNs();
  if (busyNow) {
    busySinceNs = now;
  } else {
    counters->addBusy(now - busySinceNs);
  }
  busy = busyNow;
}

void StreamSet::closeAll() {
  for (tcp_setup::Fd& fd : fds) fd.reset();
}

NetError streamError(const CommBase& comm, int k, long result, const char* doing) {
  const std::string where = std::string(doing) + " on stream " + std::to_string(k) + ": ";
  if (result == tcp_setup::kClosed) {
    return NetError(ErrorKind::Remote, comm.peer, comm.device, where + "the peer closed the connection mid-transfer");
  }
  const int error = static_cast<int>(-result);
  const bool remote = error == ECONNRESET || error == EPIPE || error == ETIMEDOUT || error == EHOSTUNREACH ||
                      error == ENETUNREACH || error == ECONNREFUSED || error == ECONNABORTED;
  const std::string cause = error == ETIMEDOUT ? "the peer stopped answering (timeout)" : tcp_setup::errorText(error);
  return NetError(remote ? ErrorKind::Remote : ErrorKind::System, comm.peer, comm.device, where + cause);
}

}  // namespace railtune::net::socket
