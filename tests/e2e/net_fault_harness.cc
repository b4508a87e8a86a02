#include "tests/e2e/net_fault_harness.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "emulator/logger.h"

namespace railtune::testing::netfault {
namespace {

const char* gWatchdogWhat = "";

// Async-signal-safe: write(2) and _exit(2) only.
extern "C" void watchdogFired(int) {
  const char prefix[] = "\nwatchdog: still running past its bound: ";
  (void)!write(STDERR_FILENO, prefix, sizeof prefix - 1);
  (void)!write(STDERR_FILENO, gWatchdogWhat, std::strlen(gWatchdogWhat));
  (void)!write(STDERR_FILENO, "\n", 1);
  _exit(97);
}

Millis since(Clock::time_point start) {
  return std::chrono::duration_cast<Millis>(Clock::now() - start);
}

// A short pause between polls: long enough that a stuck test does not spin a core on a 2-core
// runner, short enough not to slow the transfers down.
void shortPause() {
  std::this_thread::sleep_for(std::chrono::microseconds(50));
}

}  // namespace

Watchdog::Watchdog(unsigned seconds, const char* what) {
  gWatchdogWhat = what;
  struct sigaction action {};
  action.sa_handler = watchdogFired;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, nullptr);
  alarm(seconds);
}

Watchdog::~Watchdog() {
  alarm(0);
}

NetEndpoint::NetEndpoint(int version)
    : binding_(emu::Loader::bindVersion(emu::PluginKind::Net, pluginPath("net"), version)) {
  if (binding_) driver_ = std::make_unique<emu::NetDriver>(binding_);
}

NetEndpoint::~NetEndpoint() {
  if (live_) (void)finalize();
  driver_.reset();  // before the binding lets go of the library
}

ncclResult_t NetEndpoint::init(uint64_t commId) {
  const ncclResult_t result =
      driver_->init(commId, NCCL_NET_TRAFFIC_CLASS_UNDEF, emu::pluginLogger(), emu::idleProfilerCallback());
  live_ = result == ncclSuccess;
  return result;
}

ncclResult_t NetEndpoint::finalize() {
  live_ = false;
  return driver_->finalize();
}

bool pollUntil(const std::function<bool()>& step, Millis limit) {
  const auto end = Clock::now() + limit;
  for (;;) {
    if (step()) return true;
    if (Clock::now() >= end) return false;
    shortPause();
  }
}

ncclResult_t connectTo(emu::NetDriver& net, int dev, Handle& handle, void** sendComm, Millis limit) {
  ncclResult_t result = ncclSuccess;
  *sendComm = nullptr;
  pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        result = net.connect(dev, handle.data(), sendComm, &device);
        return result != ncclSuccess || *sendComm != nullptr;
      },
      limit);
  return result;
}

ncclResult_t acceptFrom(emu::NetDriver& net, void* listenComm, void** recvComm, Millis limit) {
  ncclResult_t result = ncclSuccess;
  *recvComm = nullptr;
  pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        result = net.accept(listenComm, recvComm, &device);
        return result != ncclSuccess || *recvComm != nullptr;
      },
      limit);
  return result;
}

ncclResult_t connectLocal(emu::NetDriver& net, int dev, LocalLink& link, Millis limit) {
  Handle handle{};
  ncclResult_t result = net.listen(dev, handle.data(), &link.listen);
  if (result != ncclSuccess) return result;
  pollUntil(
      [&] {
        ncclNetDeviceHandle_v12_t* device = nullptr;
        if (link.send == nullptr) result = net.connect(dev, handle.data(), &link.send, &device);
        if (result == ncclSuccess && link.recv == nullptr) result = net.accept(link.listen, &link.recv, &device);
        return result != ncclSuccess || (link.send != nullptr && link.recv != nullptr);
      },
      limit);
  return result;
}

TestOutcome testUntil(emu::NetDriver& net, void* request, Millis limit) {
  TestOutcome outcome;
  const auto start = Clock::now();
  pollUntil(
      [&] {
        int done = 0;
        outcome.result = net.test(request, &done, outcome.sizes);
        outcome.done = done != 0;
        return outcome.result != ncclSuccess || outcome.done;
      },
      limit);
  outcome.elapsed = since(start);
  return outcome;
}

void Control::send(const void* data, size_t size) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t sent = ::send(fd_, bytes, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) throw std::runtime_error("control channel: the other process is gone");
    bytes += sent;
    size -= static_cast<size_t>(sent);
  }
}

void Control::receive(void* data, size_t size, Millis limit, const char* what) {
  auto* bytes = static_cast<char*>(data);
  const auto end = Clock::now() + limit;
  while (size > 0) {
    const auto left = std::chrono::duration_cast<Millis>(end - Clock::now()).count();
    pollfd ready{fd_, POLLIN, 0};
    if (left <= 0 || ::poll(&ready, 1, static_cast<int>(left)) == 0) {
      throw std::runtime_error(std::string("control channel: no ") + what + " within " + std::to_string(limit.count()) +
                               " ms");
    }
    const ssize_t got = ::recv(fd_, bytes, size, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw std::runtime_error(std::string("control channel: the other process left before ") + what);
    bytes += got;
    size -= static_cast<size_t>(got);
  }
}

bool Control::readable() const {
  pollfd ready{fd_, POLLIN, 0};
  return ::poll(&ready, 1, 0) > 0;
}

uint64_t Control::receiveWord(Millis limit, const char* what) {
  uint64_t word = 0;
  receive(&word, sizeof word, limit, what);
  return word;
}

void Control::sendText(const std::string& text) {
  sendWord(text.size());
  send(text.data(), text.size());
}

std::string Control::receiveText(Millis limit, const char* what) {
  const uint64_t size = receiveWord(limit, what);
  if (size > (1u << 20)) throw std::runtime_error(std::string("control channel: oversized ") + what);
  std::string text(size, '\0');
  receive(text.data(), text.size(), limit, what);
  return text;
}

PeerProcess::PeerProcess(const std::function<int(Control&)>& body, unsigned watchdogSeconds) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) throw std::runtime_error("socketpair failed");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::close(fds[0]);
    int code = 100;
    try {
      Watchdog watchdog(watchdogSeconds, "forked peer process");
      Control control(fds[1]);
      code = body(control);
    } catch (...) {
      code = 100;
    }
    _exit(code);  // no gtest teardown, no static destructors in the child
  }
  ::close(fds[1]);
  control_ = Control(fds[0]);
}

PeerProcess::~PeerProcess() {
  if (!reaped_) {
    kill(SIGKILL);
    (void)wait(Millis(5000));
  }
  ::close(control_.fd());
}

void PeerProcess::kill(int signal) {
  if (!reaped_) ::kill(pid_, signal);
}

std::optional<int> PeerProcess::wait(Millis limit) {
  std::optional<int> code;
  pollUntil(
      [&] {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
        reaped_ = true;
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
      },
      limit);
  return code;
}

namespace {

// The last of the three numbers in /proc/sys/net/ipv4/tcp_{r,w}mem (the autotuning maximum), or 0.
size_t sysctlMaximum(const char* path) {
  std::ifstream file(path);
  size_t minimum = 0, initial = 0, maximum = 0;
  file >> minimum >> initial >> maximum;
  return file ? maximum : 0;
}

}  // namespace

size_t bytesBeyondSocketBuffers() {
  const size_t buffers = sysctlMaximum("/proc/sys/net/ipv4/tcp_rmem") + sysctlMaximum("/proc/sys/net/ipv4/tcp_wmem");
  return std::clamp(2 * buffers, size_t{64} << 20, size_t{512} << 20);
}

void useLoopbackSocket(ScopedEnv& env, int streams) {
  env.set("RAILTUNE_NET_TRANSPORT", "socket");
  env.set("NCCL_SOCKET_IFNAME", "lo");
  env.set("RAILTUNE_NET_STREAMS", std::to_string(streams));
  // Cleared, each for a reason (ScopedEnv restores them after the test): the fault tests time their own peers
  // (RAILTUNE_NET_TIMEOUT); the devices are the loopback interface or the simulated host's, which a user's rail
  // map, address file, sysfs root, host name, HCA filter or local rank would replace with the user's own
  // (RAILTUNE_RAIL_MAP, RAILTUNE_NET_ADDRESS_FILE, RAILTUNE_NET_SYSFS_ROOT, RAILTUNE_HOST, NCCL_IB_HCA,
  // LOCAL_RANK); a path log or an injected misbinding would add records and WARNs the tests count. NCCL's tuning
  // variables (QPs, split, timeouts, SL/TC) are not cleared: the tests run under whatever the user set.
  for (const char* name :
       {"RAILTUNE_NET_TIMEOUT", "RAILTUNE_RAIL_MAP", "RAILTUNE_PATH_LOG_DIR", "RAILTUNE_NET_FAULT_MISBIND",
        "RAILTUNE_NET_ADDRESS_FILE", "RAILTUNE_NET_SYSFS_ROOT", "RAILTUNE_HOST", "NCCL_IB_HCA", "LOCAL_RANK"}) {
    env.unset(name);
  }
}

std::vector<std::string> takeWarnings(std::string* allLines) {
  std::vector<std::string> warnings;
  for (std::string& line : emu::takePluginLog()) {
    if (allLines != nullptr) *allLines += line + "\n";
    if (line.rfind("WARN ", 0) == 0) warnings.push_back(std::move(line));
  }
  return warnings;
}

}  // namespace railtune::testing::netfault
