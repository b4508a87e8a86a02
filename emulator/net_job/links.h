// One direction of one edge as a rank sees it: a net plugin connection (sendComm or recvComm, driven
// as NCCL's proxy drives it: isend with tag = own rank, irecv with tag = the sender's rank, test
// polling) or the stand-in for NVLink between ranks of one node (a Unix stream socket per edge).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>

#include "emulator/net_driver.h"

namespace railtune::emu::netjob {

class LinkError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Link {
 public:
  Link(int peer, bool send) : peer_(peer), send_(send) {}
  virtual ~Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  int peer() const { return peer_; }
  bool isSend() const { return send_; }
  virtual bool overPlugin() const = 0;
  // Called around one transfer of [base, base + size): registration where the path needs it.
  virtual void begin(uint8_t* base, size_t size) = 0;
  virtual void end() = 0;
  // Posts one chunk; nullptr: cannot post now (too many in flight), try again later.
  virtual void* post(uint8_t* data, size_t size) = 0;
  // Whether a posted chunk is complete (then its handle is released). Throws LinkError.
  virtual bool done(void* request, size_t expectedSize) = 0;
  // Moves bytes that no one else moves (the NVLink stand-in); true when something moved.
  virtual bool progress() { return false; }
  // NCCL's phandle for the chunks posted from now on (the profiler's ProxyStep; NULL: none). Only a
  // net plugin connection passes it on (isend/irecv); NVLink has no net plugin events.
  virtual void setProfilerHandle(void* /*phandle*/) {}

 private:
  int peer_;
  bool send_;
};

// A plugin connection. Owns the comm and closes it (closeSend/closeRecv) on destruction.
std::unique_ptr<Link> makePluginLink(NetDriver& driver, void* comm, int myRank, int peer, bool send);

// `inner` until `at`; from then on it posts nothing more (a link whose one direction went dark): what
// was posted still completes, what was not never leaves.
std::unique_ptr<Link> makeStalledLink(std::unique_ptr<Link> inner, std::chrono::steady_clock::time_point at);

// The NVLink stand-in: a connected Unix stream socket (owned; closed on destruction), written by the
// sender and read by the receiver in the order chunks were posted.
std::unique_ptr<Link> makeNvlinkLink(int fd, int peer, bool send);

}  // namespace railtune::emu::netjob
