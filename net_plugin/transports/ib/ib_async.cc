// The async-event watcher. See ib_async.h.
#include "net_plugin/transports/ib/ib_async.h"

#include <poll.h>

#include <cerrno>

namespace railtune::net::ib {

std::string asyncEventName(const VerbsTable& verbs, int type) {
  switch (type) {
    case kIbvEventCqErr:
      return "IBV_EVENT_CQ_ERR";
    case kIbvEventQpFatal:
      return "IBV_EVENT_QP_FATAL";
    case kIbvEventQpReqErr:
      return "IBV_EVENT_QP_REQ_ERR";
    case kIbvEventQpAccessErr:
      return "IBV_EVENT_QP_ACCESS_ERR";
    case kIbvEventCommEst:
      return "IBV_EVENT_COMM_EST";
    case kIbvEventDeviceFatal:
      return "IBV_EVENT_DEVICE_FATAL";
    case kIbvEventPortActive:
      return "IBV_EVENT_PORT_ACTIVE";
    case kIbvEventPortErr:
      return "IBV_EVENT_PORT_ERR";
    default:
      break;
  }
  const char* text = verbs.eventTypeStr != nullptr ? verbs.eventTypeStr(type) : nullptr;
  return text != nullptr ? std::string(text) : "async event " + std::to_string(type);
}

AsyncWatcher::AsyncWatcher(const VerbsTable& verbs, std::vector<IbPort*> ports, Note note)
    : verbs_(verbs), ports_(std::move(ports)), note_(std::move(note)) {
  thread_ = std::thread([this] { run(); });
}

AsyncWatcher::~AsyncWatcher() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

void AsyncWatcher::handle(IbPort& port, const IbvAsyncEvent& event) {
  const std::string name = asyncEventName(verbs_, event.eventType);
  switch (event.eventType) {
    case kIbvEventPortErr: {
      // Recorded, not fatal (NCCL's async thread, common.cc:168-178@v2.30.7): a flap shorter than the QPs'
      // retries (NCCL_IB_TIMEOUT x NCCL_IB_RETRY_CNT) costs the job nothing; a longer one fails the connections
      // through their completions (RETRY_EXC), each naming the port.
      port.downSinceMs.store(steadyMs(), std::memory_order_release);
      port.downEvents.fetch_add(1, std::memory_order_relaxed);
      port.down.store(true, std::memory_order_release);
      note_(true, name + " on " + port.where() +
                      ": the port went down; its connections go on retrying and fail only if a work request "
                      "exhausts its retries before the port is active again");
      return;
    }
    case kIbvEventPortActive: {
      const bool wasDown = port.down.exchange(false, std::memory_order_acq_rel);
      const uint64_t since = port.downSinceMs.load(std::memory_order_acquire);
      note_(false, name + " on " + port.where() +
                       (wasDown ? ": the port is active again after " + std::to_string(steadyMs() - since) + " ms"
                                : ": the port is active"));
      return;
    }
    case kIbvEventDeviceFatal: {
      const std::string what = name + " on " + port.where() + ": the device failed";
      port.fatal.set(what);
      note_(true, what);
      return;
    }
    case kIbvEventQpFatal:
    case kIbvEventQpReqErr:
    case kIbvEventQpAccessErr: {
      IbvQp* qp = event.element.qp;
      const std::string what = name + " on QP " + std::to_string(qp != nullptr ? qp->qpNum : 0) + " of " + port.where();
      if (qp != nullptr && qp->qpContext != nullptr) static_cast<FatalState*>(qp->qpContext)->set(what);
      note_(true, what);
      return;
    }
    case kIbvEventCqErr: {
      IbvCq* cq = event.element.cq;
      const std::string what = name + " on " + port.where() + " (a completion queue overran)";
      if (cq != nullptr && cq->cqContext != nullptr) static_cast<FatalState*>(cq->cqContext)->set(what);
      note_(true, what);
      return;
    }
    default:
      note_(false, name + " on " + port.where());
      return;
  }
}

void AsyncWatcher::run() {
  std::vector<pollfd> fds(ports_.size());
  for (size_t i = 0; i < ports_.size(); ++i) fds[i] = pollfd{ports_[i]->context->asyncFd, POLLIN, 0};
  while (!stop_.load(std::memory_order_relaxed)) {
    const int ready = poll(fds.data(), fds.size(), 100);
    if (ready <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & POLLIN) == 0) continue;
      IbvAsyncEvent event{};
      if (verbs_.getAsyncEvent(ports_[i]->context, &event) != 0) continue;
      handle(*ports_[i], event);
      verbs_.ackAsyncEvent(&event);  // last, as NCCL does: the objects stay valid while we look at them
    }
  }
}

}  // namespace railtune::net::ib
