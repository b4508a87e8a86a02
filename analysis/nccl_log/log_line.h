// One line of an NCCL INFO log, taken apart: the header NCCL's logger writes before each message, and the
// few messages `railtune paths import` reads (docs/nccl-logs.md lists each with the NCCL source that prints
// it). Pure functions over string_views: no allocation for lines that are not of interest, so that a job's
// gigabyte of INFO lines costs one pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railtune::analysis::nccl_log {

// "HOST:PID:TID [DEV] NCCL INFO MESSAGE" (src/debug.cc, ncclDebugLog). Anything may come before HOST: a
// launcher's "[1,0]<stdout>:", a timestamp and a space, a Slurm or Ray prefix. HOST is what follows the last
// space, ':', '>' or ']' before ":PID:TID".
struct LineHeader {
  std::string_view host;
  int pid = 0;
  int tid = 0;
  int device = -1;           // the [DEV] NCCL prints: the CUDA device the thread has current
  std::string_view level;    // "INFO", "WARN", "TRACE"
  std::string_view message;  // after "NCCL LEVEL "
};
std::optional<LineHeader> splitHeader(std::string_view line);

// "NCCL version 2.27.5+cuda12.9": with or without a header (older NCCL printed it with printf on rank 0).
std::optional<std::string_view> versionOf(std::string_view line);

// What carries a channel's connection, from the "via ..." part of a Channel line.
enum class ChannelVia { Net, P2p, Shm, CollNet, Nvls, Other };
const char* channelViaName(ChannelVia via);  // "net", "p2p", "shm", "collnet", "nvls", "other"

// A connection line (src/transport/net.cc, p2p.cc, shm.cc):
//   2.18.3+:     "Channel 00/0 : 1[1] -> 8[0] [receive] via NET/IB/0/GDRDMA"        rank[NVML device index]
//   2.12-2.18.1: "Channel 00/1 : 1[1b000] -> 8[3d000] [send] via NET/IB/0/GDRDMA"   rank[bus id, hex]
//   2.7-2.11:    "Channel 01 : 2[c7000] -> 0[87000] [send] via NET/IB/1/GDRDMA"     no "/connIndex"
// NET's part: NET/<name>/<dev>[(<proxy rank>)][/GDRDMA[(PCI)]][/Shared]; the name may hold spaces. The
// arrow always runs sender -> receiver; only NET lines say [send] or [receive].
struct ChannelLine {
  int channel = -1;
  int connIndex = -1;  // the "/N" after the channel: NCCL's connIndex (1 for P2P send/recv); -1: not printed
  int fromRank = -1, toRank = -1;
  std::string_view fromTag, toTag;  // what is between the brackets
  enum class Side { Unknown, Send, Receive } side = Side::Unknown;
  ChannelVia via = ChannelVia::Other;
  std::string_view viaText;  // everything after "via "
  // NET only
  std::string_view net;  // "IB", "AWS Libfabric", "Socket"
  int netDevice = -1;
  int proxyRank = -1;  // PXN: the rank whose proxy drives the NIC; -1: none
  bool gdr = false, shared = false;
  std::string_view flush;  // 2.31+, receive side with GDR: "None", "Always", "C2c" (not a path fact); else empty
};
enum class ChannelParse { NotChannel, Ok, Bad };
// NotChannel for ring and tree listings ("Channel 00/02 :    0   1", "Channel 00/24 : 0 1 2 3") and every
// other message; Bad (with *why) for a connection line cut short or garbled, also one cut before its arrow
// ("Channel 05/0 :", "Channel 05/0 : 3[3]").
ChannelParse parseChannel(std::string_view message, ChannelLine* out, std::string* why);

// One entry of a network's device list.
struct NetDevice {
  int index = -1;
  std::string name;                 // "mlx5_0", "eth0", "mlx5_bond_0"; merged devices: "mlx5_0+mlx5_1"
  std::vector<std::string> merged;  // the HCAs of a merged ("={[0] a:1/IB, [1] b:1/IB}") entry; else empty
  int port = -1;                    // -1: not printed (Socket)
  std::string link;                 // "IB", "RoCE"; "" for Socket
  std::string address;              // Socket: "10.0.0.1<0>"
  bool sharp = false;               // "/SHARP"
  int rail = -1, plane = -1;        // NCCL 2.30's ":rail:plane" form; -1: not printed
};
// "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>" (net_ib/init.cc),
// "NET/Socket : Using [0]eth0:10.0.0.1<0> [1]..." (net_socket.cc).
struct DeviceList {
  std::string net;  // the name between "NET/" and " : Using"
  std::vector<NetDevice> devices;
  bool relaxedOrdering = false;  // "[RO]"
  bool cut = false;              // the line ended inside an entry (NCCL < 2.29 cuts lines at 1023 characters)
};
enum class DeviceListParse { NotDeviceList, Ok, Bad };
DeviceListParse parseDeviceList(std::string_view message, DeviceList* out, std::string* why);

// "ncclCommInitRank comm 0x55a2 rank 8 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0xde44 - Init START",
// 2.29+ with a "[Rank 8] " before it, and "comm 0x7f85 rank 0 nranks 2 cudaDev 0 busId 1e0 - Init COMPLETE"
// (older NCCL: no commId, no nvmlDev).
struct CommLine {
  std::string_view pointer;  // "0x55a223a946d0": tells communicators of one process apart
  std::optional<uint64_t> commId;
  int rank = -1, nRanks = 0, cudaDev = -1, nvmlDev = -1;
  std::optional<int64_t> busId;
  bool start = false;  // "- Init START" (2.18.3+): printed before the communicator's Channel lines
};
std::optional<CommLine> parseCommLine(std::string_view message);

// "Using network IB" (src/init.cc): the network a process's communicators use.
std::optional<std::string_view> networkOf(std::string_view message);

// Names as the records carry them: every byte outside printable ASCII becomes '?' (host, HCA and network names
// are ASCII; a damaged line must not put bytes into a record that its readers refuse).
std::string printable(std::string_view text);

// NCCL's bus id as an integer (busIdToInt64) back to "dddd:bb:dd.f" (int64ToBusId).
std::string busIdText(int64_t busId);

}  // namespace railtune::analysis::nccl_log
