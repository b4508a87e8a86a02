// Support for the net plugin's fault and version tests: the real libnccl-net-railtune.so bound at
// one ABI version through the emulator's loader and driven through emulator/net_driver.h as NCCL's
// proxy drives it; a forked peer process with a control channel; and a watchdog, so that a test
// that would hang ends with a message instead.
//
// Fork rule: a test forks before it loads the plugin, so the parent is single-threaded at the fork
// (the plugin's background threads would not survive into the child).
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "emulator/loader.h"
#include "emulator/net_driver.h"
#include "tests/e2e/emulated_fixture.h"

namespace railtune::testing::netfault {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;
using Handle = std::array<std::byte, NCCL_NET_HANDLE_MAXSIZE>;

// Bounds the fault tests share. Generous for a loaded 2-core runner: a call that does block on a
// stalled peer never returns at all, and the watchdog ends the test.
inline constexpr int kVersion = 12;         // the net ABI the fault tests bind
inline constexpr Millis kStepLimit(10000);  // one step of a test: connect, a transfer, a close
inline constexpr Millis kFaultBound(5000);  // from a fault to the error it causes
inline constexpr Millis kNonBlocking(250);  // a call that takes longer is taken to block

// Ends the whole process with a message if it is still alive after `seconds` (SIGALRM). One per
// process at a time; a forked child sets its own, since alarms do not survive fork.
class Watchdog {
 public:
  Watchdog(unsigned seconds, const char* what);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
};

// One process's plugin: bound at one version, initialised for one communicator, finalized once.
class NetEndpoint {
 public:
  explicit NetEndpoint(int version);
  ~NetEndpoint();
  NetEndpoint(const NetEndpoint&) = delete;
  NetEndpoint& operator=(const NetEndpoint&) = delete;

  bool bound() const { return driver_ != nullptr; }
  emu::NetDriver& net() { return *driver_; }
  ncclResult_t init(uint64_t commId = 0x7e57);
  ncclResult_t finalize();

 private:
  emu::Binding binding_;
  std::unique_ptr<emu::NetDriver> driver_;
  bool live_ = false;  // init succeeded and finalize has not run
};

// Repeats step (true: finished) with short sleeps in between until it finishes or `limit` passes.
// Returns whether it finished.
bool pollUntil(const std::function<bool()>& step, Millis limit);

// connect until it hands out a comm, fails, or `limit` passes (the peer accepts in another
// process). Timing out is ncclSuccess with *sendComm still NULL.
ncclResult_t connectTo(emu::NetDriver& net, int dev, Handle& handle, void** sendComm, Millis limit);
ncclResult_t acceptFrom(emu::NetDriver& net, void* listenComm, void** recvComm, Millis limit);

// Both ends in this process, progressed from one loop as a single-threaded proxy would.
struct LocalLink {
  void* listen = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};
ncclResult_t connectLocal(emu::NetDriver& net, int dev, LocalLink& link, Millis limit);

// test() on one request until it reports done, fails, or `limit` passes.
struct TestOutcome {
  ncclResult_t result = ncclSuccess;
  bool done = false;
  Millis elapsed{0};
  int sizes[NCCL_NET_MAX_REQUESTS] = {};
};
TestOutcome testUntil(emu::NetDriver& net, void* request, Millis limit);

// One end of a stream socket pair between a test and its forked peer. Every call throws
// std::runtime_error when the other side is gone or `limit` passes, naming what was expected.
class Control {
 public:
  explicit Control(int fd) : fd_(fd) {}
  void send(const void* data, size_t size);
  void receive(void* data, size_t size, Millis limit, const char* what);
  void sendWord(uint64_t word) { send(&word, sizeof word); }
  uint64_t receiveWord(Millis limit, const char* what);
  void sendText(const std::string& text);
  std::string receiveText(Millis limit, const char* what);
  bool readable() const;  // something (or the other side's exit) is waiting to be read
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A forked peer: runs body(control) under its own watchdog and exits with its return value (an
// escaped exception: 100). The destructor kills and reaps a peer still running.
class PeerProcess {
 public:
  PeerProcess(const std::function<int(Control&)>& body, unsigned watchdogSeconds);
  ~PeerProcess();
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  Control& control() { return control_; }
  pid_t pid() const { return pid_; }
  void kill(int signal);
  // The exit code (or 128 + the signal) once it ended within `limit`, else nullopt.
  std::optional<int> wait(Millis limit);

 private:
  pid_t pid_ = -1;
  Control control_{-1};
  bool reaped_ = false;
};

// A message size that cannot fit into the kernel's buffers between two ends of a one-stream
// connection (twice the tcp_rmem and tcp_wmem maxima), at least 64 MiB and at most 512 MiB: a send
// of it stays pending until the receiver drains it.
size_t bytesBeyondSocketBuffers();

// Sets the environment every test runs under: the socket transport on the loopback interface,
// `streams` TCP streams per connection, no rail map, no path log, no injected faults.
void useLoopbackSocket(ScopedEnv& env, int streams = 2);

// The plugin's WARN lines logged since the last call (the emulator's logger keeps them), and all
// lines for assertion messages.
std::vector<std::string> takeWarnings(std::string* allLines = nullptr);

class NetFaultTest : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    useLoopbackSocket(env);
    takeWarnings();  // drop what earlier tests left in the emulator's logger
  }
};

}  // namespace railtune::testing::netfault
