// The agent's connections (sim_agent.h): Unix-domain stream sockets to the other agents of the rendezvous
// directory, found through the QP registry, with their input and output buffers. The socket calls are the
// agent thread's alone and run without the simulator's lock.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "emulator/verbs_sim/sim_agent.h"

namespace railtune::verbs_sim {

void closeConn(Conn* c) {
  if (c->fd >= 0) close(c->fd);
  c->fd = -1;
  c->dead = true;
}

Conn* connTo(Agent& a, const std::string& path) {
  for (auto& c : a.conns) {
    if (!c->dead && c->peer == path) return c.get();
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);  // the peer process is gone: its packets are lost, the requester's timer does the rest
    return nullptr;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  auto c = std::make_unique<Conn>();
  c->fd = fd;
  c->peer = path;
  a.conns.push_back(std::move(c));
  return a.conns.back().get();
}

void compactOut(Conn* c) {
  if (c->outSent == c->out.size()) {
    c->out.clear();
    c->outSent = 0;
  } else if (c->outSent > (256u << 10)) {
    c->out.erase(c->out.begin(), c->out.begin() + static_cast<std::ptrdiff_t>(c->outSent));
    c->outSent = 0;
  }
}

void queueMessage(Conn* c, const WireHeader& h, const uint8_t* payload) {
  if (c == nullptr || c->dead) return;
  compactOut(c);
  const auto* hb = reinterpret_cast<const uint8_t*>(&h);
  c->out.insert(c->out.end(), hb, hb + sizeof h);
  if (h.payloadLength > 0) c->out.insert(c->out.end(), payload, payload + h.payloadLength);
}

void flushConn(Conn* c) {
  while (!c->dead && c->outSent < c->out.size()) {
    ssize_t n = send(c->fd, c->out.data() + c->outSent, c->out.size() - c->outSent, MSG_NOSIGNAL);
    if (n > 0) {
      c->outSent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      closeConn(c);
    }
  }
}

WireHeader replyTo(const WireHeader& req, uint8_t type) {
  WireHeader r{};
  r.magic = kMagic;
  r.type = type;
  r.opcode = req.opcode;
  r.srcGuid = req.dstGuid;
  r.srcQpn = req.dstQpn;
  r.dstGuid = req.srcGuid;
  r.dstQpn = req.srcQpn;
  r.psn = req.psn;
  return r;
}

// The peer agent's connection, resolving the peer QP's registry file on first use.
Conn* peerConn(Sim& s, Qp* qp) {
  if (qp->peerGuid == 0) return nullptr;
  if (qp->peerSocket.empty()) {
    std::ifstream in(registryPath(s, qp->peerGuid, qp->destQpn));
    std::string path;
    if (!in || !std::getline(in, path) || path.empty()) return nullptr;
    qp->peerSocket = path;
  }
  return connTo(*s.agent, qp->peerSocket);
}

bool receive(Conn* c) {
  bool got = false;
  for (;;) {
    if (c->in.size() - c->inUsed < 65536) c->in.resize(c->inUsed + 65536);
    ssize_t n = recv(c->fd, c->in.data() + c->inUsed, c->in.size() - c->inUsed, 0);
    if (n > 0) {
      c->inUsed += static_cast<size_t>(n);
      got = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    closeConn(c);  // the peer process is gone
    break;
  }
  return got;
}

}  // namespace railtune::verbs_sim
