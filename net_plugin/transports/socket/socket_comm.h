// The transport's connections: a send comm and a receive comm, each N TCP streams with
// preallocated request slots, progressed only by the thread NCCL calls them from (one proxy
// thread per comm), so the data path takes no lock and allocates nothing.
//
// Wire protocol. Messages go in posting order. Stream 0 carries, per message, a 16-byte header
// (tag, size) and then its share of the data; the data is cut into chunks of chunkBytes and chunk j
// travels on stream j mod N. A message of at most one chunk therefore travels whole on stream 0
// right behind its header. Each stream is in order, so the receiver knows from the headers which
// bytes each stream carries next and writes them straight into the posted buffer.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "net_plugin/engine.h"
#include "net_plugin/transports/socket/socket_engine.h"
#include "net_plugin/transports/socket/socket_wire.h"
#include "net_plugin/transports/tcp_setup/tcp_setup.h"

namespace railtune::net::socket {

enum class CommKind : uint32_t { Send = 0x53454e44, Recv = 0x52454356, Listen = 0x4c49534e };

// Held by every comm; its address is the pointer NCCL gets, so that each call can tell what it was
// given and whether it was closed (a closed comm stays as a small shell until the engine goes).
struct CommBase {
  CommKind kind;
  void* object = nullptr;  // the comm this is the base of
  bool closed = false;
  int device = -1;
  std::string peer = "unknown";
  int streams = 0;
  std::array<std::byte, kPreambleBytes> peerPreamble{};  // send and receive comms: what the peer sent
  Attachments attached{};                                // the plugin's counters, observer, user pointer
};

enum class RequestKind : uint8_t { Send, Recv, Flush };
enum class SlotState : uint8_t { Free, Posted, Reported };

struct RequestBase {
  RequestKind kind = RequestKind::Send;
  SlotState state = SlotState::Free;
  void* owner = nullptr;  // the comm
};

// Where stream k stands: which message, which of its chunks, how far into it.
struct StreamCursor {
  uint64_t message = 0;
  size_t chunk = 0;
  size_t offset = 0;
};

// The setup's streams (count, fds) and what the data path keeps beside them.
struct StreamSet : tcp_setup::SetupStreams {
  StreamSet() = default;
  explicit StreamSet(tcp_setup::SetupStreams&& connected) : tcp_setup::SetupStreams(std::move(connected)) {}
  std::array<StreamCursor, kMaxStreams> cursors{};
  bool timeoutsArmed = false;
  uint64_t armedAtMs = 0;
  bool busy = false;
  uint64_t busySinceNs = 0;
  // Streams whose peer advertised a zero window at their last would-block (bit k: stream k).
  uint32_t closedWindows = 0;

  // Arms keepalive + TCP_USER_TIMEOUT when work becomes pending; disarms at the first idle moment
  // at least a second after arming, so that a ping-pong toggles them at most once a second instead
  // of paying a dozen setsockopt calls per message. `now`: disarm at once (a peer that closed its
  // window is alive: the kernel's TCP_USER_TIMEOUT would also cut its zero-window probing).
  void updateTimeouts(bool pending, int timeoutSeconds, bool now = false);
  // Adds the time with work pending to the connection's counters: one clock read per change.
  void updateBusy(bool busyNow, pathlog::ConnectionCounters* counters);
  void closeAll();
};

// The error a failed transfer on stream k becomes: Remote for a peer that closed, reset or timed
// out, System otherwise.
NetError streamError(const CommBase& comm, int k, long result, const char* doing);

// Chunk geometry shared by both ends.
struct Chunking {
  size_t chunkBytes = 0;
  int streams = 1;
  size_t chunkCount(uint64_t size) const { return (size + chunkBytes - 1) / chunkBytes; }
  size_t chunkLength(uint64_t size, size_t chunk) const {
    const uint64_t start = chunk * chunkBytes;
    return static_cast<size_t>(size - start < chunkBytes ? size - start : chunkBytes);
  }
};

struct SendSlot : RequestBase {
  void* event = nullptr;  // the profiler event of this transfer, when one was started
  const std::byte* data = nullptr;
  uint64_t size = 0;
  int tag = 0;
  uint64_t bytesLeft = 0;
  bool headerSent = false;
};

class SocketSendComm {
 public:
  static constexpr size_t kSlots = size_t{kMaxRequests} * kMaxRecvs;  // NCCL: 32 x maxRecvs sends

  SocketSendComm(int device, std::string peer, StreamSet streams, const SocketEngineOptions& options);
  CommBase base{CommKind::Send};

  SendSlot* post(const void* data, uint64_t size, int tag, void* profilerHandle);  // NULL: all slots in use
  Completion test(SendSlot& slot);
  void close();

 private:
  void progress();
  void progressStream(int k);
  void finishCursor(StreamCursor& cursor, int k);
  bool pending() const;

  StreamSet streams_;
  Chunking chunking_;
  int timeoutSeconds_;
  std::unique_ptr<SendSlot[]> slots_;
  uint64_t posted_ = 0;                                  // messages posted so far; slot of message m is m % kSlots
  uint64_t freed_ = 0;                                   // messages whose slot is free again
  std::array<std::byte, kMessageHeaderBytes> header_{};  // stream 0's current header
  size_t headerOffset_ = 0;                              // how much of it is sent
};

struct RecvTarget {
  void* event = nullptr;
  std::byte* data = nullptr;
  size_t capacity = 0;
  int tag = 0;
  bool matched = false;
  bool done = false;
  uint64_t received = 0;
};

struct RecvSlot : RequestBase {
  int count = 0;
  int matchedCount = 0;
  int doneCount = 0;
  std::array<RecvTarget, kMaxRecvs> targets{};
};

// A message whose header was read and matched to a receive buffer.
struct InboundMessage {
  std::byte* data = nullptr;
  uint64_t size = 0;
  uint64_t bytesLeft = 0;
  RecvSlot* slot = nullptr;
  int target = 0;
};

class SocketRecvComm {
 public:
  static constexpr size_t kSlots = kMaxRequests;
  static constexpr size_t kMessages = size_t{kMaxRequests} * kMaxRecvs;

  SocketRecvComm(int device, std::string peer, StreamSet streams, const SocketEngineOptions& options);
  CommBase base{CommKind::Recv};
  RequestBase flushRequest{RequestKind::Flush, SlotState::Posted, this};

  RecvSlot* post(std::span<const RecvBuffer> buffers);  // NULL: all slots in use
  Completion test(RecvSlot& slot);
  void close();

 private:
  void progress();
  bool readHeader();
  bool matchHeader();
  void progressStream(int k);
  void advanceCursor(StreamCursor& cursor, int k);
  void deliver(InboundMessage& message, size_t bytes);
  bool dataArrived() const;
  [[noreturn]] void misuse(const std::string& reason);

  StreamSet streams_;
  Chunking chunking_;
  int timeoutSeconds_;
  std::unique_ptr<RecvSlot[]> slots_;
  std::unique_ptr<InboundMessage[]> messages_;
  uint64_t posted_ = 0;    // receive requests posted; slot of request r is r % kSlots
  uint64_t freed_ = 0;     // requests whose slot is free again
  uint64_t matching_ = 0;  // the request whose buffers incoming headers are matched against
  uint64_t known_ = 0;     // messages whose header has been read and matched
  std::array<std::byte, kMessageHeaderBytes> header_{};
  size_t headerGot_ = 0;
};

}  // namespace railtune::net::socket
