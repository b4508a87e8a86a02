// Shared by boundary.cc (init, properties, finalize) and boundary_data.cc (connections and the
// data path): the process state, the per-communicator context and the one catch-all.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>

#include "common/fault.h"
#include "common/log.h"
#include "net_plugin/engine.h"

namespace railtune::net::boundary::detail {

constexpr unsigned long kFlags = NCCL_NET;

struct NetContext {
  explicit NetContext(const Log& l) : log(l) {}
  Log log;
  std::optional<uint64_t> commId;
  CommConfig config;
  std::shared_ptr<Engine> engine;
  int abiVersion = 0;
};

struct ProcessState {
  std::mutex mutex;  // init and finalize only; the data path reads activeEngine
  Log log{"net"};    // the latest init's logger: the data path has no context to log through
  std::weak_ptr<Engine> engine;
  std::atomic<Engine*> activeEngine{nullptr};
  std::unique_ptr<NetContext> legacy;  // v6..v10; freed when the library unloads
  std::atomic<NetContext*> legacyView{nullptr};
};
ProcessState& processState();

// Throws NetError(InvalidUsage) when no init succeeded: nothing NCCL passes can be ours then.
Engine& requireEngine();
// Throws NetError(InvalidArgument) naming the problem: wrong use of the ABI.
void requireArgument(bool ok, const char* reason);

ncclResult_t reportFailure(const char* entry, ErrorKind kind, const char* peer, int device,
                           const char* reason) noexcept;

// Runs one entry point's body; every failure becomes one WARN and the matching NCCL code. An
// injected fault stands for a failed system call inside a transport.
template <typename Body>
ncclResult_t guarded(const char* entry, Body&& body) noexcept {
  try {
    body();
    return ncclSuccess;
  } catch (const NetError& e) {
    return reportFailure(entry, e.kind(), e.peer().c_str(), e.device(), e.what());
  } catch (const InjectedFault& e) {
    return reportFailure(entry, ErrorKind::System, "unknown", -1, e.what());
  } catch (const std::bad_alloc&) {
    return reportFailure(entry, ErrorKind::System, "unknown", -1, "out of memory");
  } catch (const std::exception& e) {
    return reportFailure(entry, ErrorKind::Internal, "unknown", -1, e.what());
  } catch (...) {
    return reportFailure(entry, ErrorKind::Internal, "unknown", -1, "unknown exception");
  }
}

}  // namespace railtune::net::boundary::detail
