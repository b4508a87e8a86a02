// Connection setup of one rank, as NCCL's transport setup does it: for every edge over the net plugin
// the receiver listens and publishes its 128-byte handle out of band (NCCL: through its bootstrap;
// here: a file in the job folder, written whole by rename), the sender reads it and calls connect,
// the receiver calls accept; both are non-blocking and called again until they return a comm. Edges
// standing for NVLink connect a Unix stream socket to the receiver's listener (an abstract socket the
// launcher opened before forking). Every wait is bounded by the deadline.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emulator/net_driver.h"
#include "emulator/net_job/links.h"
#include "emulator/net_job/schedule.h"
#include "emulator/net_job/transfer.h"

namespace railtune::emu::netjob {

struct RankLinks {
  std::map<int, std::unique_ptr<Link>> sendTo, recvFrom;
};

struct ConnectSpec {
  int rank = 0;
  const std::vector<RankPlace>* ranks = nullptr;
  std::vector<Edge> edges;  // this rank's edges (it sends or receives on each)
  bool mnnvl = true;
  std::string handleDir;        // where handles are published: "<dir>/<sender>-to-<receiver>.handle"
  std::string nvlinkName;       // abstract socket name prefix: rank r listens on "<prefix>-<r>"
  int nvlinkListenFd = -1;      // this rank's listener, when it has incoming NVLink edges
  NetDriver* driver = nullptr;  // when it has plugin edges
  int device = -1;              // the plugin device for every plugin connection of this rank
  Clock::time_point deadline = Clock::time_point::max();
};

// Throws std::runtime_error naming the peers still unconnected at the deadline, or the failing call.
RankLinks connectRank(const ConnectSpec& spec);

// The abstract Unix socket address "\0<prefix>-<rank>"; opens a listener (the launcher calls it).
int listenNvlink(const std::string& prefix, int rank);

}  // namespace railtune::emu::netjob
