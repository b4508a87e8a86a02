// RC queue pairs: creation with its limits and the QP number it claims in the rendezvous directory's
// registry, and destruction. The state machine is sim_qp_modify.cc's, posting and the completion rules
// sim_qp_post.cc's; moving the WRs between QPs is the agent's (sim_agent.cc).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {
namespace {

constexpr uint32_t kMaxQpWr = 32768;
constexpr uint32_t kMaxSge = 30;
constexpr uint32_t kMaxInline = 256;

// A QPN unique on the device across the processes: the registry file's O_EXCL creation claims it, and the
// file names this process's agent socket. 0 (errno set) when none can be had.
uint32_t claimQpn(Sim& s, uint64_t guid, std::string* path) {
  uint32_t& next = s.nextQpn[guid];
  if (next == 0) next = 0x100 + ((static_cast<uint32_t>(getpid()) & 0xfff) << 8);
  for (int tries = 0; tries < 100000; ++tries) {
    uint32_t candidate = next;
    next = next >= 0xfffffe ? 0x100 : next + 1;
    *path = registryPath(s, guid, candidate);
    int fd = open(path->c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return 0;  // errno from open: the directory is unusable
    }
    std::string socket = agentSocketPath(s);
    ssize_t written = write(fd, socket.data(), socket.size());
    close(fd);
    if (written != static_cast<ssize_t>(socket.size())) {
      unlink(path->c_str());
      errno = EIO;
      return 0;
    }
    return candidate;
  }
  errno = ENOMEM;
  return 0;
}

// The QP object: its queues sized exactly as `init` asks, its ABI struct as rdma-core fills it.
Qp* newQp(Sim& s, Pd* pd, Cq* sendCq, Cq* recvCq, const ib::IbvQpInitAttr& init, uint32_t qpn) {
  const ib::IbvQpCap& c = init.cap;
  auto* qp = new Qp;
  qp->context = pd->context;
  qp->pd = pd;
  qp->sendCq = sendCq;
  qp->recvCq = recvCq;
  qp->cap = c;
  qp->sigAll = init.sqSigAll != 0;
  qp->sq.resize(std::max<uint32_t>(c.maxSendWr, 1));
  qp->sqSges.resize(static_cast<size_t>(std::max<uint32_t>(c.maxSendWr, 1)) * std::max<uint32_t>(c.maxSendSge, 1));
  qp->sqInline.resize(static_cast<size_t>(std::max<uint32_t>(c.maxSendWr, 1)) * c.maxInlineData);
  qp->rq.resize(std::max<uint32_t>(c.maxRecvWr, 1));
  qp->rqSges.resize(static_cast<size_t>(std::max<uint32_t>(c.maxRecvWr, 1)) * std::max<uint32_t>(c.maxRecvSge, 1));
  qp->abi.context = &pd->context->abi;
  qp->abi.qpContext = init.qpContext;
  qp->abi.pd = &pd->abi;
  qp->abi.sendCq = &sendCq->abi;
  qp->abi.recvCq = &recvCq->abi;
  qp->abi.srq = nullptr;
  qp->abi.handle = s.nextKey++;
  qp->abi.qpNum = qpn;
  qp->abi.state = ib::kIbvQpsReset;
  qp->abi.qpType = ib::kIbvQptRc;
  pthread_mutex_init(&qp->abi.mutex, nullptr);
  pthread_cond_init(&qp->abi.cond, nullptr);
  return qp;
}

}  // namespace

std::string registryPath(const Sim& s, uint64_t guid, uint32_t qpn) {
  char name[64];
  std::snprintf(name, sizeof name, "/qp-%016llx-%u", static_cast<unsigned long long>(guid), qpn);
  return s.dir + name;
}

ib::IbvQp* createQp(ib::IbvPd* pdAbi, ib::IbvQpInitAttr* init) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Pd* pd = live<Pd>(s.pds, pdAbi);
  if (pd == nullptr || init == nullptr) return failNull<ib::IbvQp>(EINVAL);
  if (init->qpType != ib::kIbvQptRc || init->srq != nullptr) return failNull<ib::IbvQp>(EOPNOTSUPP);  // RC only, no SRQ
  Cq* sendCq = live<Cq>(s.cqs, init->sendCq);
  Cq* recvCq = live<Cq>(s.cqs, init->recvCq);
  if (sendCq == nullptr || recvCq == nullptr || sendCq->context != pd->context || recvCq->context != pd->context) {
    return failNull<ib::IbvQp>(EINVAL);
  }
  const ib::IbvQpCap& c = init->cap;
  if (c.maxSendWr > kMaxQpWr || c.maxRecvWr > kMaxQpWr || c.maxSendSge > kMaxSge || c.maxRecvSge > kMaxSge ||
      c.maxInlineData > kMaxInline) {
    return failNull<ib::IbvQp>(EINVAL);
  }
  if (!ensureAgent(s)) return nullptr;  // errno set
  uint64_t guid = pd->context->device->desc->nodeGuid;
  std::string path;
  uint32_t qpn = claimQpn(s, guid, &path);
  if (qpn == 0) return nullptr;  // errno set
  Qp* qp = newQp(s, pd, sendCq, recvCq, *init, qpn);
  qp->guid = guid;
  qp->registryFile = path;
  ++pd->qps;
  ++sendCq->users;
  ++recvCq->users;
  s.qps.insert(qp);
  s.qpByAddress[{guid, qpn}] = qp;
  s.qpList.push_back(qp);
  return &qp->abi;  // init->cap already holds the actual sizes: exactly those asked for
}

int destroyQp(ib::IbvQp* qpAbi) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Qp* qp = live<Qp>(s.qps, qpAbi);
  if (qp == nullptr) return EINVAL;
  if (qp->eventsReported != qp->abi.eventsCompleted) {
    std::fprintf(stderr, "railtune verbs sim: ibv_destroy_qp(qpn 0x%x): %u async event(s) not acked: EBUSY\n",
                 qp->abi.qpNum, qp->eventsReported - qp->abi.eventsCompleted);
    return EBUSY;
  }
  auto& events = qp->context->events;
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const ib::IbvAsyncEvent& e) {
                                return e.eventType >= ib::kIbvEventQpFatal && e.eventType <= ib::kIbvEventCommEst &&
                                       e.element.qp == &qp->abi;
                              }),
               events.end());
  purgeCompletions(qp->sendCq, qp);
  if (qp->recvCq != qp->sendCq) purgeCompletions(qp->recvCq, qp);
  if (!qp->registryFile.empty()) unlink(qp->registryFile.c_str());
  --qp->pd->qps;
  --qp->sendCq->users;
  --qp->recvCq->users;
  s.qps.erase(qp);
  s.qpByAddress.erase({qp->guid, qp->abi.qpNum});
  s.qpList.erase(std::find(s.qpList.begin(), s.qpList.end(), qp));
  pthread_mutex_destroy(&qp->abi.mutex);
  pthread_cond_destroy(&qp->abi.cond);
  delete qp;
  return 0;
}

}  // namespace railtune::verbs_sim
