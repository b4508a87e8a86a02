// The agent's parts, shared by its files (README.md, "Files"): the wire between agents, the connections that
// carry it (sim_wire.cc), where the bytes land (sim_memory_access.cc), the requester's side of a QP
// (sim_requester.cc), the responder's (sim_responder.cc) and the thread that runs them (sim_agent.cc). Not
// part of the simulator's interface; every function is called by the agent thread with sim().mu held, except
// the socket calls sim_wire.cc marks as the agent's alone.
//
// Wire: a fixed header (WireHeader) and a payload, both in host order (the processes share one machine).
// Requests carry a PSN; the responder accepts only the PSN it expects (ahead: dropped, behind: a duplicate
// it ACKs again), so a lost or refused packet is recovered by the requester's go-back-N retransmission, or
// ends in RETRY_EXC_ERR, as on a real link.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "emulator/verbs_sim/sim_state.h"

namespace railtune::verbs_sim {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kMagic = 0x52564d53;  // "RVMS"
constexpr size_t kMaxPendingOut = 1u << 20;
constexpr uint64_t kMaxMessage = 0x40000000;  // max_msg_sz

enum WireType : uint8_t { kReq = 1, kAck, kNakRnr, kNakAccess, kNakInvalid, kNakOperation, kReadResponse };

struct WireHeader {
  uint32_t magic;
  uint8_t type;
  uint8_t opcode;
  uint8_t rnrTimer;
  uint8_t pathMtu;
  uint64_t srcGuid;
  uint64_t dstGuid;
  uint32_t srcQpn;
  uint32_t dstQpn;
  uint32_t psn;
  uint32_t imm;
  uint64_t remoteAddr;
  uint32_t rkey;
  uint32_t length;
  uint32_t payloadLength;
  uint32_t reserved;
};

struct Conn {
  int fd = -1;
  std::string peer;  // the socket connected to; "" for an accepted connection
  std::vector<uint8_t> in;
  size_t inUsed = 0;
  std::vector<uint8_t> out;
  size_t outSent = 0;
  bool dead = false;
  size_t pendingOut() const { return out.size() - outSent; }
};

struct Agent {
  std::string socketPath;
  int listenFd = -1;
  int wakeFd = -1;
  pid_t pid = 0;
  std::thread thread;
  std::atomic<bool> stop{false};
  bool sleeping = false;
  std::vector<std::unique_ptr<Conn>> conns;
  std::vector<size_t> offsets;
};

// --- the connections (sim_wire.cc) -----------------------------------------------------------------------
void closeConn(Conn* c);
// The live connection to the agent listening at `path`, connected on first use; nullptr when it is gone.
Conn* connTo(Agent& a, const std::string& path);
// Makes room at the end of the output buffer: drops what was sent, so that under steady traffic (never fully
// drained) the buffer does not grow without end.
void compactOut(Conn* c);
void queueMessage(Conn* c, const WireHeader& h, const uint8_t* payload);
void flushConn(Conn* c);
// Reads what arrived, without the simulator's lock: connections are the agent thread's alone.
bool receive(Conn* c);
// The header of a reply to `req`: addresses swapped, its PSN and opcode kept.
WireHeader replyTo(const WireHeader& req, uint8_t type);
// The peer agent's connection, resolving the peer QP's registry file on first use.
Conn* peerConn(Sim& s, Qp* qp);

// --- memory regions as the wire reaches them (sim_memory_access.cc) ----------------------------------------
Mr* findMr(Sim& s, uint32_t key, const Pd* pd);
// Where [addr, addr+length) of the MR's iova space is in this process, or nullptr when outside it (or when
// there is no MR: callers that checked the key before pass findMr's answer straight in).
uint8_t* translate(const Mr* mr, uint64_t addr, uint64_t length);
// Writes arrived bytes into the target; in adversarial mode in a random order of 64-byte pieces.
void place(Sim& s, uint8_t* dst, const uint8_t* src, size_t length);

// --- the requester (sim_requester.cc) ----------------------------------------------------------------------
Clock::duration ackTimeout(const Sim& s, const Qp* qp);
// The QP's timers (ACK timeout: go back N, or RETRY_EXC_ERR) and its posted WRs onto the wire.
void progressQp(Sim& s, Qp* qp, Clock::time_point now);
// An ACK, NAK or READ response for one of this process's QPs.
void handleReply(Sim& s, const WireHeader& h, const uint8_t* payload, Clock::time_point now);

// --- the responder (sim_responder.cc) ----------------------------------------------------------------------
// A request (WRITE, SEND, READ) for one of this process's QPs; the reply is queued on `c`.
void handleRequest(Sim& s, Conn* c, const WireHeader& h, const uint8_t* payload);

}  // namespace railtune::verbs_sim
