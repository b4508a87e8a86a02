// The receive side of a connection: see socket_comm.h for the wire protocol. Headers are matched
// as NCCL matches: in posting order, the tag picking a buffer within the oldest receive that still
// has unmatched buffers.
#include "net_plugin/transports/socket/socket_comm.h"

namespace railtune::net::socket {

SocketRecvComm::SocketRecvComm(int device, std::string peer, StreamSet streams, const SocketEngineOptions& options)
    : streams_(std::move(streams)),
      chunking_{options.chunkBytes, streams_.count},
      timeoutSeconds_(options.timeoutSeconds),
      slots_(new RecvSlot[kSlots]),
      messages_(new InboundMessage[kMessages]) {
  base.object = this;
  base.device = device;
  base.peer = std::move(peer);
  base.streams = streams_.count;
  for (int k = 0; k < streams_.count; ++k)
    streams_.cursors[static_cast<size_t>(k)] = StreamCursor{0, static_cast<size_t>(k), 0};
}

RecvSlot* SocketRecvComm::post(std::span<const RecvBuffer> buffers) {
  if (posted_ - freed_ >= kSlots) return nullptr;
  RecvSlot& slot = slots_[posted_ % kSlots];
  slot.kind = RequestKind::Recv;
  slot.state = SlotState::Posted;
  slot.owner = this;
  slot.count = static_cast<int>(buffers.size());
  slot.matchedCount = 0;
  slot.doneCount = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    slot.targets[i] = RecvTarget{nullptr, static_cast<std::byte*>(buffers[i].data), buffers[i].size, buffers[i].tag};
    if (buffers[i].profilerHandle != nullptr && base.attached.observer != nullptr) {
      slot.targets[i].event = base.attached.observer->started(buffers[i].profilerHandle, buffers[i].size);
    }
  }
  ++posted_;
  progress();
  return &slot;
}

Completion SocketRecvComm::test(RecvSlot& slot) {
  progress();
  Completion completion;
  if (slot.doneCount < slot.count) return completion;
  completion.done = true;
  completion.nSizes = slot.count;
  for (int i = 0; i < slot.count; ++i) {
    completion.sizes[i] = static_cast<size_t>(slot.targets[static_cast<size_t>(i)].received);
    if (base.attached.counters != nullptr) base.attached.counters->countReceived(completion.sizes[i]);
    if (void* event = slot.targets[static_cast<size_t>(i)].event) base.attached.observer->stopped(event);
  }
  slot.state = SlotState::Reported;
  while (freed_ < posted_ && slots_[freed_ % kSlots].state == SlotState::Reported) {
    slots_[freed_ % kSlots].state = SlotState::Free;
    ++freed_;
  }
  streams_.updateBusy(dataArrived(), base.attached.counters);
  return completion;
}

void SocketRecvComm::close() {
  base.closed = true;
  streams_.closeAll();
  slots_.reset();
  messages_.reset();
}

void SocketRecvComm::progress() {
  // Stream 0 first: it reads the headers that tell the other streams what comes next.
  for (int k = 0; k < streams_.count; ++k) progressStream(k);
  bool pending = matching_ < posted_;
  for (int k = 0; k < streams_.count; ++k)
    pending = pending || streams_.cursors[static_cast<size_t>(k)].message < known_;
  streams_.updateTimeouts(pending, timeoutSeconds_);
  streams_.updateBusy(dataArrived(), base.attached.counters);
}

// Reads the next header when a posted receive waits for it; the header is kept until matched, so a
// message that arrives before its receive is posted waits in the socket (TCP's flow control).
bool SocketRecvComm::readHeader() {
  if (matching_ >= posted_) return false;
  const int fd = streams_.fds[0].get();
  while (headerGot_ < kMessageHeaderBytes) {
    const long result = tcp_setup::receiveSome(fd, header_.data() + headerGot_, kMessageHeaderBytes - headerGot_);
    if (result == tcp_setup::kWouldBlock) return false;
    if (result < 0) throw streamError(base, 0, result, "receive");
    headerGot_ += static_cast<size_t>(result);
  }
  return matchHeader();
}

bool SocketRecvComm::matchHeader() {
  const MessageHeader header = decodeMessageHeader(header_);
  RecvSlot& slot = slots_[matching_ % kSlots];
  int found = -1;
  for (int i = 0; i < slot.count && found < 0; ++i) {
    const RecvTarget& target = slot.targets[static_cast<size_t>(i)];
    if (!target.matched && target.tag == header.tag) found = i;
  }
  if (found < 0)
    misuse("a message with tag " + std::to_string(header.tag) + " matches no buffer of the posted receive");
  RecvTarget& target = slot.targets[static_cast<size_t>(found)];
  if (header.size > target.capacity) {
    misuse("a message of " + std::to_string(header.size) + " bytes exceeds the posted buffer of " +
           std::to_string(target.capacity) + " bytes (tag " + std::to_string(header.tag) + ")");
  }
  target.matched = true;
  target.received = header.size;
  InboundMessage& message = messages_[known_ % kMessages];
  message = InboundMessage{target.data, header.size, header.size, &slot, found};
  if (header.size == 0) {
    target.done = true;
    ++slot.doneCount;
  }
  if (++slot.matchedCount == slot.count) ++matching_;
  ++known_;
  headerGot_ = 0;
  return true;
}

// Busy time on the receive side runs from the first header of the oldest unreported receive until
// test reports it: a receive posted early and waiting for its sender is not the transport's time.
bool SocketRecvComm::dataArrived() const {
  return freed_ < posted_ && slots_[freed_ % kSlots].matchedCount > 0;
}

void SocketRecvComm::advanceCursor(StreamCursor& cursor, int k) {
  ++cursor.message;
  cursor.chunk = static_cast<size_t>(k);
  cursor.offset = 0;
}

// Receives what stream k carries next, straight into the matched buffers, until the socket has no
// more. On return the cursor stands at a message with bytes still due on this stream, or at the
// first message whose header is not read yet.
void SocketRecvComm::progressStream(int k) {
  StreamCursor& cursor = streams_.cursors[static_cast<size_t>(k)];
  const int fd = streams_.fds[static_cast<size_t>(k)].get();
  for (;;) {
    if (cursor.message == known_ && (k != 0 || !readHeader())) return;
    InboundMessage& message = messages_[cursor.message % kMessages];
    if (cursor.chunk >= chunking_.chunkCount(message.size)) {
      advanceCursor(cursor, k);
      continue;
    }
    const size_t chunkLength = chunking_.chunkLength(message.size, cursor.chunk);
    std::byte* into = message.data + cursor.chunk * chunking_.chunkBytes + cursor.offset;
    const long result = tcp_setup::receiveSome(fd, into, chunkLength - cursor.offset);
    if (result == tcp_setup::kWouldBlock) return;
    if (result < 0) throw streamError(base, k, result, "receive");
    cursor.offset += static_cast<size_t>(result);
    deliver(message, static_cast<size_t>(result));
    if (cursor.offset == chunkLength) {
      cursor.chunk += static_cast<size_t>(chunking_.streams);
      cursor.offset = 0;
    }
  }
}

void SocketRecvComm::deliver(InboundMessage& message, size_t bytes) {
  message.bytesLeft -= bytes;
  if (message.bytesLeft != 0) return;
  message.slot->targets[static_cast<size_t>(message.target)].done = true;
  ++message.slot->doneCount;
}

void SocketRecvComm::misuse(const std::string& reason) {
  throw NetError(ErrorKind::InvalidUsage, base.peer, base.device, reason);
}

}  // namespace railtune::net::socket
