// What NCCL's own INFO lines (NCCL_DEBUG=INFO) say of a run's communicator and network, for the shape of its rows
// (dataset/shape_of.h): the node count and MNNVL, the network NCCL chose and the link layer of its IB devices.
// The messages, identical in NCCL 2.28.9 and 2.30.7 (file:line at v2.30.7, then v2.28.9):
//   "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d"  src/init.cc:1422, :1170
//   "Using network %s"                                                          src/init.cc:486, :428
//   "NET/IB : Using [0]mlx5_0:1/RoCE [1]... [RO]; OOB ..."   src/transport/net_ib/init.cc:513, net_ib.cc:839
//     (each device " [%d]%s:%d" with ":rail" / "::plane" from 2.30, then "/%s" of NCCL_IB_LLSTR: IB, RoCE or
//     UNSPECIFIED; src/transport/net_ib/common.h:119, net_ib.cc:116)
//   "NET/Socket : Using [0]eth0:10.0.0.1<0>"                 src/transport/net_socket.cc:77, :76
#pragma once

#include <string>
#include <string_view>

namespace railtune::sweep {

struct NcclFacts {
  // The communicator line: -1 where none was read. When several communicators print one (one per GPU of a
  // process), the one with the most ranks is kept; disagree: two lines of that many ranks said different nNodes or
  // MNNVL.
  int nRanks = -1, nNodes = -1, mnnvl = -1;
  bool disagree = false;
  std::string network;    // "IB", "Socket", "AWS Libfabric", a net plugin's name; "" when not said
  std::string linkLayer;  // of the NET/IB devices: "IB", "RoCE", "IB+RoCE" when mixed; "" when not said
  int netDevices = 0;     // devices NET/IB or NET/Socket listed (the most any line listed)

  bool any() const { return nRanks > 0 || !network.empty() || !linkLayer.empty(); }
  void merge(const NcclFacts& other);  // another rank's (or the probe run's) lines added to these
};

// Reads one INFO message (the text after " NCCL INFO "). Returns true when it was one of the lines above (facts
// updated), false for any other message (facts unchanged).
bool readNcclInfo(std::string_view message, NcclFacts& facts);

}  // namespace railtune::sweep
