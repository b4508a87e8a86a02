// The async-event watcher of the verbs transport: one thread for all open ports (NCCL runs one per port,
// src/transport/net_ib/common.cc, ncclIbAsyncThreadMain), waiting in poll() on each context's async fd so that
// it can also be stopped, then reading the event, acting on it and acknowledging it (the real libibverbs makes
// destroy_qp/destroy_cq wait for every event of theirs to be acknowledged). What it does with each event:
//   - port error: recorded on the port (down, since when) and one WARN; not fatal, as in NCCL's async thread
//     (src/transport/net_ib/common.cc:168-178@v2.30.7): connections go on, and fail only through a completion
//     in error (RETRY_EXC when the port stays down past the QPs' retries), whose WARN then names the event;
//   - port active: the port is up again (INFO); new connections never waited for it;
//   - device fatal: the port is marked failed; every call on its comms fails naming HCA and port;
//   - QP fatal / request error / access error, CQ error: the connection whose QP or CQ it is fails (the
//     object's context pointer is the connection's FatalState);
//   - communication established, the rest: an INFO line.
// A failure is seen by the next call NCCL makes on the connection, within the watcher's 100 ms poll period.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "net_plugin/transports/ib/ib_devices.h"

namespace railtune::net::ib {

class AsyncWatcher {
 public:
  using Note = std::function<void(bool warn, const std::string& line)>;
  AsyncWatcher(const VerbsTable& verbs, std::vector<IbPort*> ports, Note note);
  ~AsyncWatcher();  // stops and joins the thread
  AsyncWatcher(const AsyncWatcher&) = delete;
  AsyncWatcher& operator=(const AsyncWatcher&) = delete;

  // Handles one event of `port` (also what the thread calls): exposed for tests.
  void handle(IbPort& port, const IbvAsyncEvent& event);

 private:
  void run();
  const VerbsTable& verbs_;
  std::vector<IbPort*> ports_;
  Note note_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// "IBV_EVENT_PORT_ERR", or the library's own text where it has one.
std::string asyncEventName(const VerbsTable& verbs, int type);

}  // namespace railtune::net::ib
