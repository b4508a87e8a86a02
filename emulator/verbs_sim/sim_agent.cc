// The per-process agent: one thread that moves WRs between QPs over Unix-domain stream sockets in the
// rendezvous directory (sim_wire.cc), plays the responder for this process's QPs (sim_responder.cc), and
// keeps the requester's timers (sim_requester.cc: ACK timeout and retries, RNR waits) on the scaled protocol
// clock (protocolNow: the steady clock, or one a test stops and steps). QPs of one process talk through the
// agent's connection to itself, so there is one code path whatever the processes. This file is the thread:
// its start and stop, and its loop.
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>

#include "emulator/verbs_sim/sim_agent.h"

namespace railtune::verbs_sim {
namespace {

void dispatch(Sim& s, Conn* c, const WireHeader& h, const uint8_t* payload, Clock::time_point now) {
  if (h.type == kReq) {
    handleRequest(s, c, h, payload);
  } else {
    handleReply(s, h, payload, now);
  }
}

// Handles every complete message received. In adversarial mode the messages of one read are handled in a
// random interleaving that keeps each QP's own order, so completions of different QPs on a shared CQ come
// out in no particular order.
void handleReceived(Sim& s, Conn* c, Clock::time_point now) {
  std::vector<size_t>& offsets = s.agent->offsets;  // reused: no allocation per read
  offsets.clear();
  size_t at = 0;
  while (c->inUsed - at >= sizeof(WireHeader)) {
    WireHeader h;
    std::memcpy(&h, c->in.data() + at, sizeof h);
    if (h.magic != kMagic) {
      closeConn(c);
      return;
    }
    if (c->inUsed - at < sizeof h + h.payloadLength) break;
    offsets.push_back(at);
    at += sizeof h + h.payloadLength;
  }
  if (s.adversarial && offsets.size() > 1) {
    std::map<std::pair<uint64_t, uint32_t>, std::deque<size_t>> perQp;
    for (size_t off : offsets) {
      WireHeader h;
      std::memcpy(&h, c->in.data() + off, sizeof h);
      perQp[{h.dstGuid, h.dstQpn}].push_back(off);
    }
    offsets.clear();
    while (!perQp.empty()) {
      auto pick = perQp.begin();
      std::advance(pick, static_cast<long>(s.rng() % perQp.size()));
      offsets.push_back(pick->second.front());
      pick->second.pop_front();
      if (pick->second.empty()) perQp.erase(pick);
    }
  }
  for (size_t off : offsets) {
    WireHeader h;
    std::memcpy(&h, c->in.data() + off, sizeof h);
    dispatch(s, c, h, c->in.data() + off + sizeof h, now);
  }
  if (at > 0) {
    std::memmove(c->in.data(), c->in.data() + at, c->inUsed - at);
    c->inUsed -= at;
  }
}

void applyDueFaults(Sim& s, Clock::time_point now) {
  for (auto it = s.faults.begin(); it != s.faults.end();) {
    if (it->at > now) {
      ++it;
      continue;
    }
    std::string error = applyControl(s, it->command);
    if (!error.empty())
      std::fprintf(stderr, "railtune verbs sim: fault '%s': %s\n", it->command.c_str(), error.c_str());
    it = s.faults.erase(it);
  }
}

// How long the agent may sleep: until the next fault (real time) or protocol timer. A stopped clock fires no
// timer until a `clock step`, which wakes the agent.
Clock::duration nextWait(Sim& s, Clock::time_point realNow, Clock::time_point now) {
  Clock::duration wait = std::chrono::milliseconds(100);
  for (const ScheduledFault& f : s.faults) wait = std::min(wait, f.at - realNow);
  if (s.clockStopped) return std::max<Clock::duration>(wait, Clock::duration::zero());
  for (const Qp* qp : s.qpList) {
    if (qp->state != ib::kIbvQpsRts) continue;
    if (qp->rnrResume > now) wait = std::min(wait, qp->rnrResume - now);
    if (qp->ackNext < qp->sendNext && qp->timeout != 0) {
      wait = std::min(wait, qp->lastProgress + ackTimeout(s, qp) - now + std::chrono::microseconds(50));
    }
  }
  return std::max<Clock::duration>(wait, Clock::duration::zero());
}

// Under the lock: due faults applied, every QP's queue moved onto the connections (in a random order in
// adversarial mode), a `clock step` answered. Returns the protocol time the timers ran at.
Clock::time_point runQueues(Sim& s, std::vector<Qp*>& order, Clock::time_point realNow) {
  applyDueFaults(s, realNow);
  Clock::time_point now = protocolNow(s);
  order = s.qpList;
  if (s.adversarial) std::shuffle(order.begin(), order.end(), s.rng);
  for (Qp* qp : order) progressQp(s, qp, now);
  if (s.clockStepsSeen != s.clockSteps) {  // the timers ran at the stepped time: `clock step` may return
    s.clockStepsSeen = s.clockSteps;
    s.clockSeen.notify_all();
  }
  return now;
}

// Without the lock: what is queued written, dead connections dropped, and the poll set built: the wake-up
// eventfd, the listening socket, then each connection.
void preparePoll(Agent& a, std::vector<pollfd>& fds) {
  for (auto& c : a.conns) flushConn(c.get());
  a.conns.erase(std::remove_if(a.conns.begin(), a.conns.end(), [](const auto& c) { return c->dead; }), a.conns.end());
  fds.clear();
  fds.push_back({a.wakeFd, POLLIN, 0});
  fds.push_back({a.listenFd, POLLIN, 0});
  for (auto& c : a.conns) {
    fds.push_back({c->fd, static_cast<short>(POLLIN | (c->pendingOut() > 0 ? POLLOUT : 0)), 0});
  }
}

// Without the lock, after the poll: the wake-up consumed, new connections accepted, and what arrived read;
// the connections that got bytes go into `arrived`.
void readSockets(Agent& a, const std::vector<pollfd>& fds, std::vector<Conn*>& arrived) {
  if ((fds[0].revents & POLLIN) != 0) {
    uint64_t value;
    ssize_t ignored = read(a.wakeFd, &value, sizeof value);
    (void)ignored;
  }
  if ((fds[1].revents & POLLIN) != 0) {
    for (;;) {
      int fd = accept4(a.listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) break;
      auto c = std::make_unique<Conn>();
      c->fd = fd;
      a.conns.push_back(std::move(c));
    }
  }
  arrived.clear();
  for (size_t i = 2; i < fds.size(); ++i) {
    if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    for (auto& c : a.conns) {
      if (c->fd == fds[i].fd && !c->dead) {
        if (receive(c.get())) arrived.push_back(c.get());
        break;
      }
    }
  }
}

// The loop: under the lock, apply due faults and move every QP's queue onto the connections; without it,
// write and read the sockets (connections are the agent's alone) and sleep; under it again, handle what
// arrived. Posters therefore wait for the lock only while the agent handles messages, never during its
// system calls.
void agentMain(Sim& s) {
  Agent& a = *s.agent;
  std::vector<pollfd> fds;
  std::vector<Qp*> order;
  std::vector<Conn*> arrived;
  std::unique_lock lock(s.mu);
  while (!a.stop.load()) {
    const Clock::time_point realNow = Clock::now();
    Clock::time_point now = runQueues(s, order, realNow);
    uint64_t postsSeen = s.posts;
    auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(nextWait(s, realNow, now));
    lock.unlock();

    preparePoll(a, fds);
    lock.lock();
    if (s.posts != postsSeen) wait = std::chrono::nanoseconds::zero();  // posted while the lock was free
    a.sleeping = true;  // from here on a poster wakes the agent (wakeAgent)
    lock.unlock();

    timespec ts{static_cast<time_t>(wait.count() / 1000000000), static_cast<long>(wait.count() % 1000000000)};
    ppoll(fds.data(), fds.size(), &ts, nullptr);
    readSockets(a, fds, arrived);

    lock.lock();
    a.sleeping = false;
    now = protocolNow(s);
    for (Conn* c : arrived) handleReceived(s, c, now);
  }
}

void stopAgentAtExit() {
  Sim& s = sim();
  Agent* a = nullptr;
  {
    std::lock_guard lock(s.mu);
    a = s.agent;
    if (a == nullptr || a->pid != getpid()) return;  // a forked child has no agent thread
    a->stop = true;
    uint64_t one = 1;
    ssize_t ignored = write(a->wakeFd, &one, sizeof one);
    (void)ignored;
  }
  if (a->thread.joinable()) a->thread.join();
  std::lock_guard lock(s.mu);
  for (Qp* qp : s.qpList) {
    if (!qp->registryFile.empty()) unlink(qp->registryFile.c_str());
  }
  unlink(a->socketPath.c_str());
}

}  // namespace

void forgetAgentInChild(Sim& s) {
  Agent* a = s.agent;
  if (a == nullptr) return;
  close(a->listenFd);
  close(a->wakeFd);
  for (auto& c : a->conns) {
    if (c->fd >= 0) close(c->fd);
  }
  // The thread object is a copy of the parent's and refers to no thread of this process: it is leaked with
  // the agent, never joined or destroyed.
  s.agent = nullptr;
  for (Qp* qp : s.qpList) qp->registryFile.clear();
}

std::string agentSocketPath(Sim& s) {
  return s.agent != nullptr ? s.agent->socketPath : std::string();
}

bool ensureAgent(Sim& s) {
  if (s.agent != nullptr) return true;
  if (s.dir.empty()) {
    std::fprintf(stderr, "railtune verbs sim: RAILTUNE_VERBS_SIM_DIR is not set: no QP can be created\n");
    errno = EINVAL;
    return false;
  }
  auto* a = new Agent;
  a->pid = getpid();
  char name[96];
  std::snprintf(name, sizeof name, "/agent-%d-%llx.sock", static_cast<int>(a->pid),
                static_cast<unsigned long long>(s.rng() & 0xffffff));
  a->socketPath = s.dir + name;
  sockaddr_un addr{};
  if (a->socketPath.size() >= sizeof addr.sun_path) {
    std::fprintf(stderr, "railtune verbs sim: socket path %s is too long\n", a->socketPath.c_str());
    delete a;
    errno = ENAMETOOLONG;
    return false;
  }
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", a->socketPath.c_str());
  a->listenFd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  a->wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (a->listenFd < 0 || a->wakeFd < 0 || bind(a->listenFd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(a->listenFd, 128) != 0) {
    int error = errno;
    std::fprintf(stderr, "railtune verbs sim: cannot listen on %s: %s\n", a->socketPath.c_str(), std::strerror(error));
    if (a->listenFd >= 0) close(a->listenFd);
    if (a->wakeFd >= 0) close(a->wakeFd);
    delete a;
    errno = error;
    return false;
  }
  s.agent = a;
  a->thread = std::thread([&s] { agentMain(s); });
  static const bool stopsAtExit = std::atexit(stopAgentAtExit) == 0;  // once, whatever agent runs then
  (void)stopsAtExit;
  return true;
}

void stopAgent(Sim& s, std::unique_lock<std::mutex>& lock) {
  Agent* a = s.agent;
  if (a == nullptr) return;
  a->stop = true;
  uint64_t one = 1;
  ssize_t ignored = write(a->wakeFd, &one, sizeof one);
  (void)ignored;
  lock.unlock();
  if (a->thread.joinable()) a->thread.join();
  lock.lock();
  close(a->listenFd);
  close(a->wakeFd);
  for (auto& c : a->conns) closeConn(c.get());
  unlink(a->socketPath.c_str());
  s.agent = nullptr;
  delete a;
}

Clock::time_point protocolNow(const Sim& s) {
  return s.clockStopped ? s.clockStoppedAt : Clock::now() - s.clockBehind;
}

void wakeAgent(Sim& s) {
  ++s.posts;
  if (s.agent == nullptr || !s.agent->sleeping) return;  // awake: it scans the queues before it sleeps
  s.agent->sleeping = false;
  uint64_t one = 1;
  ssize_t ignored = write(s.agent->wakeFd, &one, sizeof one);
  (void)ignored;
}

}  // namespace railtune::verbs_sim
