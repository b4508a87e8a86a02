// A job's NCCL INFO logs, rendered from NCCL's own format strings for one NCCL version and one network, with
// the truth of every network connection end they state (the import suite, eval/import/import_suite.cc).
// Every format here is the one the named NCCL tag prints; the file:line of each is beside it in nccl_job.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace railtune::eval::import_suite {

struct NcclVersion {
  int major = 2, minor = 0, patch = 0;
  std::string text() const;  // "2.27.7"
  bool atLeast(int minorAt, int patchAt = 0) const { return minor > minorAt || (minor == minorAt && patch >= patchAt); }
};
// The last release of each minor version from 2.7 to 2.31 (NCCL's tags v2.7.8-1 ... v2.30.7-1, v2.31.2-1).
const std::vector<NcclVersion>& ncclVersions();

// What carries the job's network connections.
enum class Network { Ib, Socket, IbPlugin };

// One network connection end as its process's Channel line states it: the truth a record must carry.
struct TruthEnd {
  std::string host;
  int pid = 0;
  int rank = -1, peerRank = -1;
  bool send = true;
  int channel = -1, connIndex = -1;  // -1: the version prints none (before 2.12)
  std::string net;                   // "IB", "Socket", "IBext_v8", "UCX"
  int device = -1;
  std::string hca;  // the device's name in the process's list ("mlx5_3", "eth1")
  bool gdr = false, shared = false;
  int proxyRank = -1;
  std::optional<uint64_t> commId;  // when the log states it (2.16.2+)
  int gpu = -1;                    // the NVML index when the log states it (2.18.3+); else -1
  std::string peerHost;            // the peer's process, whose own line states the other end
  int peerPid = 0;
};

// One line a process prints, and which truth end it states (-1: none).
struct Line {
  std::string text;  // without the newline
  int end = -1;
  bool channel = false;  // a network Channel line
};

struct Process {
  std::string host;
  int pid = 0;
  std::vector<Line> lines;  // in the order the process prints them
};

struct NcclJob {
  NcclVersion version;
  Network network = Network::Ib;
  std::string net;  // the network's name in Channel lines
  std::vector<Process> processes;
  std::vector<TruthEnd> ends;
  std::string shape;  // "2.19.4 IB, 3 hosts x 4 GPUs, 2 comms, 4 channels"
};

struct JobOptions {
  NcclVersion version;
  Network network = Network::Ib;
  std::string pluginName;       // for IbPlugin: "IBext_v8", "UCX"...
  bool perProcessFiles = true;  // NCCL_DEBUG_FILE per process (the version line is an INFO line of each)
};

// A job drawn from `rng`: 2-6 hosts of 1-8 GPUs, 1-2 communicators (2 only where NCCL prints commIds; from
// 2.31 the second may be an ncclCommSplit child), rings over 2-8 channels between the hosts, P2P connections
// (connIndex 1, 2.12+), PXN sends (2.12+), GDR and shared buffers as NCCL prints them (with the receive side's
// flush from 2.31), and the lines around them (rings, trees, P2P, destroys, other subsystems).
NcclJob makeJob(const JobOptions& options, std::mt19937_64& rng);

}  // namespace railtune::eval::import_suite
