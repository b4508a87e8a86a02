// Pairing the two ends of each connection and completing ranks (path_join.h, pairEnds).
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/paths/path_join.h"

namespace railtune::analysis::paths::detail {
namespace {

// A connection as both ends describe it: the sender's (host, pid, device), the receiver's, the communicator, and
// NCCL's channel where the record says it (imported from NCCL's log: the channel is part of what makes a logical
// connection), and the HCAs each end used as both ends name them (a misbound sender logs the device NCCL asked for
// but the NIC it used, and its handshake announces that NIC to the receiver).
struct PairKey {
  bool hasComm = false;
  uint64_t comm = 0;
  std::string sendHost, recvHost;
  int sendPid = 0, recvPid = 0, sendDevice = -1, recvDevice = -1;
  int channel = -1;
  std::string sendHca, recvHca;  // the NIC each end used, as both ends name it (passes that compare NICs)
  bool operator==(const PairKey&) const = default;
};

size_t mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

struct PairKeyHash {
  size_t operator()(const PairKey& k) const {
    size_t h = std::hash<std::string>()(k.sendHost);
    h = mix(h, std::hash<std::string>()(k.recvHost));
    h = mix(h, std::hash<uint64_t>()(k.comm));
    h = mix(h, static_cast<size_t>(k.sendPid) * 31 + static_cast<size_t>(k.recvPid));
    h = mix(h, std::hash<std::string>()(k.sendHca) ^ (std::hash<std::string>()(k.recvHca) << 1));
    h = mix(h, static_cast<size_t>(k.channel));
    return mix(h, static_cast<size_t>(k.sendDevice) * 131 + static_cast<size_t>(k.recvDevice));
  }
};

PairKey keyOf(const Connection& c) {
  const ConnectionEnd& sender = c.send ? c.local : c.remote;
  const ConnectionEnd& receiver = c.send ? c.remote : c.local;
  PairKey key;
  key.hasComm = c.comm.has_value();
  key.comm = c.comm.value_or(0);
  key.sendHost = sender.host;
  key.recvHost = receiver.host;
  key.sendPid = sender.pid;
  key.recvPid = receiver.pid;
  key.sendDevice = sender.device;
  key.recvDevice = receiver.device;
  key.channel = c.fromNcclLog ? c.channel : -1;
  return key;
}

struct Candidates {
  std::vector<long> sends, receives;
};

void sortById(const JobPaths& job, std::vector<long>* indices) {
  std::stable_sort(indices->begin(), indices->end(), [&job](long a, long b) {
    return job.connections[static_cast<size_t>(a)].id < job.connections[static_cast<size_t>(b)].id;
  });
}

// The rank of each (host, pid, communicator) as any of its records knows it; -2 where they disagree
// (a process in several communicators logged without commIds).
using ProcessKey = std::tuple<std::string, int, bool, uint64_t>;

std::map<ProcessKey, int> knownRanks(const JobPaths& job) {
  std::map<ProcessKey, int> ranks;
  for (const Connection& c : job.connections) {
    if (c.local.rank < 0) continue;
    const auto [it, inserted] =
        ranks.emplace(ProcessKey{c.local.host, c.local.pid, c.comm.has_value(), c.comm.value_or(0)}, c.local.rank);
    if (!inserted && it->second != c.local.rank) it->second = -2;
  }
  return ranks;
}

void fillRank(const std::map<ProcessKey, int>& ranks, const Connection& c, ConnectionEnd* end) {
  if (end->rank >= 0) return;
  const auto it = ranks.find(ProcessKey{end->host, end->pid, c.comm.has_value(), c.comm.value_or(0)});
  if (it != ranks.end() && it->second >= 0) end->rank = it->second;
}

void completeRanks(JobPaths& job) {
  const std::map<ProcessKey, int> ranks = knownRanks(job);
  for (Connection& c : job.connections) {
    fillRank(ranks, c, &c.local);
    fillRank(ranks, c, &c.remote);
  }
  for (Connection& c : job.connections) {
    if (c.peerIndex < 0) continue;
    const Connection& peer = job.connections[static_cast<size_t>(c.peerIndex)];
    if (c.remote.rank < 0) c.remote.rank = peer.local.rank;
    if (c.local.rank < 0) c.local.rank = peer.remote.rank;
  }
}

// Pairs the still unpaired records by `key` (with or without devices, with or without the HCAs both ends name), in
// connection id order.
void pairBy(JobPaths& job, bool withDevices, bool withHcas) {
  std::unordered_map<PairKey, Candidates, PairKeyHash> candidates;
  for (size_t i = 0; i < job.connections.size(); ++i) {
    const Connection& c = job.connections[i];
    if (c.peerIndex >= 0) continue;
    PairKey key = keyOf(c);
    if (!withDevices) key.sendDevice = key.recvDevice = -1;
    if (withHcas) {
      key.sendHca = c.send ? c.local.hca : c.remote.hca;
      key.recvHca = c.send ? c.remote.hca : c.local.hca;
    }
    Candidates& slot = candidates[key];
    (c.send ? slot.sends : slot.receives).push_back(static_cast<long>(i));
  }
  for (auto& [key, slot] : candidates) {
    sortById(job, &slot.sends);
    sortById(job, &slot.receives);
    for (size_t i = 0; i < slot.sends.size() && i < slot.receives.size(); ++i) {
      job.connections[static_cast<size_t>(slot.sends[i])].peerIndex = slot.receives[i];
      job.connections[static_cast<size_t>(slot.receives[i])].peerIndex = slot.sends[i];
    }
  }
}

}  // namespace

void pairEnds(JobPaths& job) {
  // Both ends agree on the devices and on the NICs: the two records of one connection. Records of two connections
  // between the same processes and devices (two channels) that each lost one end must not pair: their NICs tell
  // them apart where the fabric has a NIC per plane or one end was misbound.
  pairBy(job, true, true);
  // A misbound NIC logs the device NCCL asked for but announces the one it used in its handshake, so its ends
  // disagree on the device but name the same NICs.
  pairBy(job, false, true);
  // An end that does not know its peer's NIC (an NCCL log that names none) pairs by devices alone.
  pairBy(job, true, false);
  completeRanks(job);
}

}  // namespace railtune::analysis::paths::detail
