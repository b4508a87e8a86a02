// Completion queues: a ring sized at creation, overrun raising IBV_EVENT_CQ_ERR, and ibv_poll_cq(3) with a
// lock-free answer for an empty CQ (Cq::available).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <vector>

#include "emulator/verbs_sim/sim_state.h"
#include "emulator/verbs_sim/sim_verbs.h"

namespace railtune::verbs_sim {

ib::IbvCq* createCq(ib::IbvContext* context, int cqe, void* cqContext, ib::IbvCompChannel* channel, int vector) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Context* ctx = live<Context>(s.contexts, context);
  if (ctx == nullptr || cqe < 1 || cqe > kMaxCqe || vector < 0 || vector >= kCompVectors) {
    return failNull<ib::IbvCq>(EINVAL);
  }
  if (channel != nullptr) return failNull<ib::IbvCq>(EOPNOTSUPP);  // no completion channels
  auto* cq = new Cq;
  cq->context = ctx;
  cq->ring.resize(static_cast<size_t>(cqe));
  cq->abi.context = &ctx->abi;
  cq->abi.cqContext = cqContext;
  cq->abi.handle = s.nextKey++;
  cq->abi.cqe = cqe;
  pthread_mutex_init(&cq->abi.mutex, nullptr);
  pthread_cond_init(&cq->abi.cond, nullptr);
  ++ctx->objects;
  s.cqs.insert(cq);
  cq->live.store(kLiveCq, std::memory_order_release);
  return &cq->abi;
}

int destroyCq(ib::IbvCq* cqAbi) {
  Sim& s = sim();
  std::lock_guard lock(s.mu);
  Cq* cq = live<Cq>(s.cqs, cqAbi);
  if (cq == nullptr) return fail(EINVAL);
  if (cq->users != 0) return fail(EBUSY);
  if (cq->eventsReported != cq->abi.asyncEventsCompleted) {
    // The real library waits forever for the missing ibv_ack_async_event; failing says which.
    std::fprintf(stderr, "railtune verbs sim: ibv_destroy_cq(handle %u): %u async event(s) not acked: EBUSY\n",
                 cq->abi.handle, cq->eventsReported - cq->abi.asyncEventsCompleted);
    return fail(EBUSY);
  }
  auto& events = cq->context->events;
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const ib::IbvAsyncEvent& e) {
                                return e.eventType == ib::kIbvEventCqErr && e.element.cq == &cq->abi;
                              }),
               events.end());
  --cq->context->objects;
  s.cqs.erase(cq);
  pthread_mutex_destroy(&cq->abi.mutex);
  pthread_cond_destroy(&cq->abi.cond);
  cq->live.store(0, std::memory_order_release);
  std::vector<CqEntry>().swap(cq->ring);
  s.retiredCqs.emplace_back(cq);
  return 0;
}

void pushCompletion(Sim& s, Cq* cq, const CqEntry& entry) {
  if (cq->overrun) return;  // lost, as on hardware
  if (cq->count == cq->ring.size()) {
    cq->overrun = true;
    cq->available.store(~size_t{0}, std::memory_order_release);
    ib::IbvAsyncEvent event{};
    event.element.cq = &cq->abi;
    event.eventType = ib::kIbvEventCqErr;
    queueEvent(cq->context, event);
    for (Qp* qp : s.qpList) {
      if ((qp->sendCq == cq || qp->recvCq == cq) && qp->state != ib::kIbvQpsErr && qp->state != ib::kIbvQpsReset) {
        moveToError(s, qp, ib::kIbvWcWrFlushErr);
      }
    }
    return;
  }
  cq->ring[(cq->head + cq->count) % cq->ring.size()] = entry;
  ++cq->count;
  cq->available.store(cq->count, std::memory_order_release);
}

int pollCq(ib::IbvCq* cqAbi, int entries, ib::IbvWc* wc) {
  Sim& s = sim();
  if (cqAbi != nullptr && entries > 0 && wc != nullptr) {
    const Cq* quick = reinterpret_cast<const Cq*>(cqAbi);
    if (quick->live.load(std::memory_order_acquire) == kLiveCq &&
        quick->available.load(std::memory_order_acquire) == 0) {
      return 0;
    }
  }
  std::lock_guard lock(s.mu);
  Cq* cq = live<Cq>(s.cqs, cqAbi);
  if (cq == nullptr || entries < 0 || (entries > 0 && wc == nullptr)) {
    errno = EINVAL;
    return -1;
  }
  if (cq->overrun) {
    errno = EIO;  // ibv_poll_cq(3): after IBV_EVENT_CQ_ERR the CQ cannot be used
    return -1;
  }
  int n = 0;
  while (n < entries && cq->count > 0) {
    const CqEntry& e = cq->ring[cq->head];
    wc[n++] = e.wc;
    // Polling a completion retires its slot and, on the send queue, every earlier (unsignaled) one.
    if (e.recv) {
      ++e.qp->rqRetired;
    } else {
      e.qp->sqRetired = std::max(e.qp->sqRetired, e.wrIndex + 1);
    }
    cq->head = (cq->head + 1) % cq->ring.size();
    --cq->count;
  }
  cq->available.store(cq->count, std::memory_order_release);
  return n;
}

void purgeCompletions(Cq* cq, const Qp* qp) {
  if (cq == nullptr || cq->count == 0) return;
  std::vector<CqEntry> kept;
  for (size_t i = 0; i < cq->count; ++i) {
    const CqEntry& e = cq->ring[(cq->head + i) % cq->ring.size()];
    if (e.qp != qp) kept.push_back(e);
  }
  cq->head = 0;
  cq->count = kept.size();
  if (!cq->overrun) cq->available.store(cq->count, std::memory_order_release);
  std::copy(kept.begin(), kept.end(), cq->ring.begin());
}

const char* wcStatusString(int status) {
  static const char* const names[] = {"success",
                                      "local length error",
                                      "local QP operation error",
                                      "local EE context operation error",
                                      "local protection error",
                                      "Work Request Flushed Error",
                                      "memory management operation error",
                                      "bad response error",
                                      "local access error",
                                      "remote invalid request error",
                                      "remote access error",
                                      "remote operation error",
                                      "transport retry counter exceeded",
                                      "RNR retry counter exceeded",
                                      "local RDD violation error",
                                      "remote invalid RD request",
                                      "aborted error",
                                      "invalid EE context number",
                                      "invalid EE context state",
                                      "fatal error",
                                      "response timeout error",
                                      "general error",
                                      "TM error",
                                      "TM rendezvous error"};
  if (status < 0 || status >= static_cast<int>(sizeof names / sizeof names[0])) return "unknown";
  return names[status];
}

}  // namespace railtune::verbs_sim
