// The send side of a connection: see socket_comm.h for the wire protocol.
#include <algorithm>

#include "net_plugin/transports/socket/socket_comm.h"
#include "net_plugin/transports/socket/socket_tcp_info.h"

namespace railtune::net::socket {

SocketSendComm::SocketSendComm(int device, std::string peer, StreamSet streams, const SocketEngineOptions& options)
    : streams_(std::move(streams)),
      chunking_{options.chunkBytes, streams_.count},
      timeoutSeconds_(options.timeoutSeconds),
      slots_(new SendSlot[kSlots]) {
  base.object = this;
  base.device = device;
  base.peer = std::move(peer);
  base.streams = streams_.count;
  for (int k = 0; k < streams_.count; ++k)
    streams_.cursors[static_cast<size_t>(k)] = StreamCursor{0, static_cast<size_t>(k), 0};
}

SendSlot* SocketSendComm::post(const void* data, uint64_t size, int tag, void* profilerHandle) {
  if (posted_ - freed_ >= kSlots) return nullptr;
  SendSlot& slot = slots_[posted_ % kSlots];
  slot.kind = RequestKind::Send;
  slot.state = SlotState::Posted;
  slot.owner = this;
  slot.data = static_cast<const std::byte*>(data);
  slot.size = size;
  slot.tag = tag;
  slot.bytesLeft = size;
  slot.headerSent = false;
  slot.event = nullptr;
  if (profilerHandle != nullptr && base.attached.observer != nullptr) {
    slot.event = base.attached.observer->started(profilerHandle, static_cast<size_t>(size));
  }
  ++posted_;
  progress();  // start at once: a small message leaves in this call
  return &slot;
}

Completion SocketSendComm::test(SendSlot& slot) {
  progress();
  Completion completion;
  if (!slot.headerSent || slot.bytesLeft != 0) return completion;
  completion.done = true;
  completion.nSizes = 1;
  completion.sizes[0] = static_cast<size_t>(slot.size);
  if (base.attached.counters != nullptr) base.attached.counters->countSent(static_cast<size_t>(slot.size));
  if (slot.event != nullptr) base.attached.observer->stopped(slot.event);
  slot.state = SlotState::Reported;
  // Slots free in posting order, so a message done early keeps its slot until those before it are.
  while (freed_ < posted_ && slots_[freed_ % kSlots].state == SlotState::Reported) {
    slots_[freed_ % kSlots].state = SlotState::Free;
    ++freed_;
  }
  streams_.updateBusy(posted_ > freed_, base.attached.counters);
  return completion;
}

void SocketSendComm::close() {
  base.closed = true;
  streams_.closeAll();
  slots_.reset();
}

bool SocketSendComm::pending() const {
  for (int k = 0; k < streams_.count; ++k) {
    if (streams_.cursors[static_cast<size_t>(k)].message < posted_) return true;
  }
  return false;
}

void SocketSendComm::progress() {
  for (int k = 0; k < streams_.count; ++k) progressStream(k);
  // A slow receiver that stopped reading advertises a zero window and answers every probe: it is
  // alive, and must not be cut while its application catches up. Silence is watched only while
  // the window is open.
  const bool windowClosed = streams_.closedWindows != 0;
  streams_.updateTimeouts(pending() && !windowClosed, timeoutSeconds_, windowClosed);
  streams_.updateBusy(posted_ > freed_, base.attached.counters);
}

void SocketSendComm::finishCursor(StreamCursor& cursor, int k) {
  ++cursor.message;
  cursor.chunk = static_cast<size_t>(k);
  cursor.offset = 0;
}

// Sends what stream k owes, message by message, until the socket would block. On return the cursor
// stands at a message with bytes still to send on this stream, or past the last posted one.
void SocketSendComm::progressStream(int k) {
  StreamCursor& cursor = streams_.cursors[static_cast<size_t>(k)];
  const int fd = streams_.fds[static_cast<size_t>(k)].get();
  while (cursor.message < posted_) {
    SendSlot& slot = slots_[cursor.message % kSlots];
    const bool needHeader = k == 0 && !slot.headerSent;
    const bool hasChunk = cursor.chunk < chunking_.chunkCount(slot.size);
    if (!needHeader && !hasChunk) {
      finishCursor(cursor, k);
      continue;
    }
    if (needHeader && headerOffset_ == 0) encodeMessageHeader({slot.tag, slot.size}, header_);
    const size_t chunkLength = hasChunk ? chunking_.chunkLength(slot.size, cursor.chunk) : 0;
    const std::byte* data = hasChunk ? slot.data + cursor.chunk * chunking_.chunkBytes + cursor.offset : nullptr;
    const size_t headerLeft = needHeader ? kMessageHeaderBytes - headerOffset_ : 0;
    const long result =
        tcp_setup::sendSome(fd, header_.data() + headerOffset_, headerLeft, data, chunkLength - cursor.offset);
    const uint32_t bit = 1u << k;
    if (result == tcp_setup::kWouldBlock) {
      if (peerWindowClosed(fd).value_or(false)) streams_.closedWindows |= bit;
      return;
    }
    if (result < 0) throw streamError(base, k, result, "send");
    streams_.closedWindows &= ~bit;
    size_t sent = static_cast<size_t>(result);
    const size_t headerPart = std::min(sent, headerLeft);
    headerOffset_ += headerPart;
    sent -= headerPart;
    if (needHeader && headerOffset_ == kMessageHeaderBytes) {
      slot.headerSent = true;
      headerOffset_ = 0;
    }
    cursor.offset += sent;
    slot.bytesLeft -= sent;
    if (hasChunk && cursor.offset == chunkLength) {
      cursor.chunk += static_cast<size_t>(chunking_.streams);
      cursor.offset = 0;
    }
  }
}

}  // namespace railtune::net::socket
