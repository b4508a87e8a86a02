// See paths_job.h.
#include "eval/paths/paths_job.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/synth/placement.h"
#include "formats/path_log.h"

namespace railtune::eval::paths {
namespace {

namespace pl = formats::path_log;
namespace sy = analysis::synth;

constexpr int kGpusPerTray = 4, kTraysPerRack = 18, kFirstPid = 30000;
constexpr int64_t kStartUs = 1'780'000'000'000'000;

// Racks rack1, rack2, ... rack10 (natural order matters: rack2 comes before rack10), 18 trays of 4 GPUs, a NIC per
// GPU and plane: GPU g is on rail g.
std::unique_ptr<formats::RailMap> makeRailMap(int racks, int planes) {
  auto map = std::make_unique<formats::RailMap>();
  map->cluster = "eval";
  map->rails = kGpusPerTray;
  map->planes = planes;
  for (int r = 1; r <= racks; ++r) {
    for (int t = 1; t <= kTraysPerRack; ++t) {
      formats::RailMapHost host;
      host.name = "rack" + std::to_string(r) + "-tray" + std::to_string(t);
      host.domain = "rack" + std::to_string(r);
      for (int g = 0; g < kGpusPerTray; ++g) {
        formats::RailMapGpu gpu;
        gpu.index = g;
        for (int p = 0; p < planes; ++p) {
          const int n = g * planes + p;
          gpu.nics.push_back(formats::RailMapNic{"mlx5_" + std::to_string(n), "ib" + std::to_string(n), "", 1, g,
                                                 planes > 1 ? p : -1, 400000});
        }
        host.gpus.push_back(std::move(gpu));
      }
      map->hosts.push_back(std::move(host));
    }
  }
  return map;
}

// One logical connection: who sends on which channel, through which NICs (device indices on each end's host).
struct Logical {
  int sender = 0, receiver = 0, channel = 0;
  int writer = 0;                   // the process whose record is the send end: the sender, or its PXN proxy
  int chosenSend = 0, sendNic = 0;  // the device NCCL chose and the one the traffic left through
  int chosenRecv = 0, recvNic = 0;
  int proxyRank = -1;  // NCCL-log PXN: the rank whose proxy drove the NIC
  bool violating = false;
};

class Builder {
 public:
  Builder(const std::string& injection, uint64_t seed, int ranks);
  GeneratedJob build();

 private:
  int hostOf(int rank) const { return placement_.ranks[static_cast<size_t>(rank)].host; }
  int gpuOf(int rank) const { return placement_.ranks[static_cast<size_t>(rank)].gpu; }
  const sy::HostNic& nic(int rank, int device) const {
    return placement_.hosts[static_cast<size_t>(hostOf(rank))].nics[static_cast<size_t>(device)];
  }
  int deviceOf(int rank, int gpu, int channel) const {
    const auto& devices = placement_.hosts[static_cast<size_t>(hostOf(rank))].gpuDevices[static_cast<size_t>(gpu)];
    return devices[static_cast<size_t>(channel) % devices.size()];
  }
  int rankAt(int host, int gpu) const;
  void ring();
  void inject();
  void misbindSends(int count);
  void misbindGpu();
  void redirect(int count, bool pxn);
  void crossPlane(int count);
  std::vector<size_t> pick(int count);
  pl::PathRecord sendRecord(const Logical& l, uint64_t id) const;
  pl::PathRecord recvRecord(const Logical& l, uint64_t id) const;
  void emit(GeneratedJob& job);

  std::string injection_;
  Rng rng_;
  GeneratedJob job_;
  sy::JobPlacement placement_;
  int channels_ = 2, planes_ = 1;
  bool imported_ = false, noRails_ = false, staleWriters_ = false;
  int oddDigestRank_ = -1;
  std::vector<Logical> logical_;
};

Builder::Builder(const std::string& injection, uint64_t seed, int ranks) : injection_(injection), rng_(seed) {
  const auto& kinds = injectionKinds();
  if (std::find(kinds.begin(), kinds.end(), injection) == kinds.end())
    throw std::invalid_argument("unknown injection " + injection);
  planes_ = injection == "cross-plane" || rng_.below(3) == 0 ? 2 : 1;
  channels_ = 2 + rng_.below(3);
  const bool mnnvl = ranks > kGpusPerTray * kTraysPerRack && rng_.below(2) == 0;
  const int racks = (ranks + kGpusPerTray * kTraysPerRack - 1) / (kGpusPerTray * kTraysPerRack);
  job_.map = makeRailMap(std::max(racks, 1), planes_);
  placement_ = sy::placeJob(*job_.map, ranks, mnnvl);
  job_.job = "eval-" + injection + "-" + std::to_string(seed);
  imported_ = injection == "pxn-imported";
  // Writers without a rail map name no rail: "rails unknown" without --rail-map; with it (cross-rail-map-only),
  // the map alone must place every NIC and find the connections that cross the spine.
  const bool mapOnly = injection == "cross-rail-map-only";
  noRails_ = injection == "rails-unknown" || mapOnly;
  staleWriters_ = injection == "misbound-stale-map";
  job_.giveRailMap = mapOnly || (!noRails_ && (staleWriters_ || rng_.below(2) == 0));
  job_.railsUnknown = noRails_ && !mapOnly;
  job_.shape = std::to_string(ranks) + " ranks on " + std::to_string(placement_.hosts.size()) + " hosts, " +
               std::to_string(planes_) + (planes_ == 1 ? " plane, " : " planes, ") + std::to_string(channels_) +
               " channels, MNNVL " + (mnnvl ? "on" : "off") + (job_.giveRailMap ? ", --rail-map" : "");
}

int Builder::rankAt(int host, int gpu) const {
  for (size_t r = 0; r < placement_.ranks.size(); ++r)
    if (placement_.ranks[r].host == host && placement_.ranks[r].gpu == gpu) return static_cast<int>(r);
  return -1;
}

void Builder::ring() {
  for (size_t r = 0; r < placement_.ranks.size(); ++r) {
    const int next = placement_.ringNext[r];
    if (next < 0) continue;
    const int s = static_cast<int>(r);
    for (int c = 0; c < channels_; ++c) {
      const int sendDevice = deviceOf(s, gpuOf(s), c), recvDevice = deviceOf(next, gpuOf(next), c);
      logical_.push_back(Logical{s, next, c, s, sendDevice, sendDevice, recvDevice, recvDevice, -1, false});
    }
  }
}

std::vector<size_t> Builder::pick(int count) {
  std::vector<size_t> chosen;
  for (int tries = 0; static_cast<int>(chosen.size()) < count && tries < 100; ++tries) {
    const size_t i = static_cast<size_t>(rng_.below(static_cast<int>(logical_.size())));
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end() && !logical_[i].violating) chosen.push_back(i);
  }
  return chosen;
}

// The NIC of the next rail's GPU on the same plane: what RAILTUNE_NET_FAULT_MISBIND and a wrong NCCL_IB_HCA do.
void Builder::misbindSends(int count) {
  for (const size_t i : pick(count)) {
    Logical& l = logical_[i];
    l.sendNic = deviceOf(l.sender, (gpuOf(l.sender) + 1) % kGpusPerTray, l.channel);
    l.violating = true;
    job_.injected += "rank " + std::to_string(l.sender) + " channel " + std::to_string(l.channel) + " sends through " +
                     nic(l.sender, l.sendNic).hca + "; ";
  }
}

// One GPU bound to the next rail's NIC (a wrong topology or NCCL_IB_HCA): NCCL chose that NIC for every
// connection of the rank, sends and receives alike.
void Builder::misbindGpu() {
  const Logical& some = logical_[static_cast<size_t>(rng_.below(static_cast<int>(logical_.size())))];
  const int x = some.sender, wrong = (gpuOf(x) + 1) % kGpusPerTray;
  for (Logical& l : logical_) {
    if (l.sender == x) {
      l.chosenSend = l.sendNic = deviceOf(x, wrong, l.channel);
      l.violating = true;
    }
    if (l.receiver == x) {
      l.chosenRecv = l.recvNic = deviceOf(x, wrong, l.channel);
      l.violating = true;
    }
  }
  job_.injected += "rank " + std::to_string(x) + " GPU bound to " + nic(x, deviceOf(x, wrong, 0)).hca + "; ";
}

// A connection whose receiver is a GPU of another rail on the peer's tray (NCCL_CROSS_NIC, or a ring pairing
// GPUs of different index). With `pxn` the sender instead hands it to its tray's GPU on the receiver's rail,
// whose proxy sends through that GPU's NIC: NCCL's PXN, which keeps the traffic on one rail (not a violation).
void Builder::redirect(int count, bool pxn) {
  for (const size_t i : pick(count)) {
    Logical& l = logical_[i];
    const int target = rankAt(hostOf(l.receiver), (gpuOf(l.receiver) + 1) % kGpusPerTray);
    const int proxy = rankAt(hostOf(l.sender), (gpuOf(l.sender) + 1) % kGpusPerTray);
    if (target < 0 || target == l.sender || (pxn && proxy < 0)) continue;
    l.receiver = target;
    l.chosenRecv = l.recvNic = deviceOf(target, gpuOf(target), l.channel);
    if (!pxn) {
      l.violating = true;
      job_.injected += "rank " + std::to_string(l.sender) + " channel " + std::to_string(l.channel) +
                       " sends to rank " + std::to_string(target) + " on another rail; ";
      continue;
    }
    l.chosenSend = l.sendNic = deviceOf(proxy, gpuOf(proxy), l.channel);
    ++job_.pxn;
    if (imported_) {
      l.proxyRank = proxy;  // NCCL's log: the sender's line, "via NET/IB/n(proxy)"
    } else {
      l.writer = proxy;  // the net plugin runs in the proxy's process
    }
    job_.injected += "PXN: rank " + std::to_string(l.sender) + " -> " + std::to_string(target) + " through rank " +
                     std::to_string(proxy) + "'s NIC; ";
  }
}

// The receiver's end on its GPU's NIC of the other plane: one rail, two planes.
void Builder::crossPlane(int count) {
  for (const size_t i : pick(count)) {
    Logical& l = logical_[i];
    l.chosenRecv = l.recvNic = deviceOf(l.receiver, gpuOf(l.receiver), l.channel + 1);
    l.violating = true;
    job_.injected +=
        "rank " + std::to_string(l.sender) + " channel " + std::to_string(l.channel) + " reaches the other plane; ";
  }
}

void Builder::inject() {
  const int count = 1 + rng_.below(3);
  if (injection_ == "misbind-send") misbindSends(count);
  if (injection_ == "misbound-gpu" || injection_ == "misbound-stale-map") misbindGpu();
  if (injection_ == "cross-rail" || injection_ == "cross-rail-map-only") redirect(count, false);
  if (injection_ == "cross-plane") crossPlane(count);
  if (injection_ == "pxn" || injection_ == "pxn-imported") redirect(count + 2, true);
  if (injection_ == "digest-mismatch") {
    oddDigestRank_ = logical_[static_cast<size_t>(rng_.below(static_cast<int>(logical_.size())))].sender;
    for (Logical& l : logical_) l.violating = l.violating || l.sender == oddDigestRank_ || l.receiver == oddDigestRank_;
    job_.injected += "rank " + std::to_string(oddDigestRank_) + " ran another configuration; ";
  }
}

pl::PathRecord Builder::sendRecord(const Logical& l, uint64_t id) const {
  pl::PathRecord r;
  r.kind = pl::RecordKind::Connect;
  r.timeUs = kStartUs + static_cast<int64_t>(id) * 20;
  r.connection = id;
  r.comm = 0x5eed0001u;  // the job's one communicator
  r.rank = l.sender;
  r.direction = pl::Direction::Send;
  r.transport.assign("ib");
  r.streams = imported_ ? 0 : 2;
  const sy::HostNic& mine = nic(l.writer, l.sendNic);
  r.local.device = l.chosenSend;
  r.local.hca.assign(mine.hca);
  r.local.netdev.assign(imported_ ? "" : mine.netdev);
  r.local.rail = noRails_ ? -1 : mine.rail;
  r.local.plane = noRails_ ? -1 : mine.plane;
  // The GPU served: the writer's (the proxy's, under the net plugin's PXN); NCCL's log names the sender's.
  r.local.gpu = placement_.ranks[static_cast<size_t>(imported_ ? l.sender : l.writer)].gpuIndex;
  const int railGpuRank = l.proxyRank >= 0 ? l.proxyRank : l.writer;  // the import holds PXN to the proxy's rail
  r.expectedRail = noRails_ || staleWriters_ ? -1 : placement_.expectedRailOf(railGpuRank);
  const sy::HostNic& theirs = nic(l.receiver, l.recvNic);
  r.remote.host.assign(placement_.hostOf(l.receiver).name);
  r.remote.pid = kFirstPid + l.receiver;
  r.remote.device = l.chosenRecv;
  r.remote.hca.assign(theirs.hca);
  r.remote.rail = noRails_ ? -1 : theirs.rail;
  r.remote.plane = noRails_ ? -1 : theirs.plane;
  if (imported_) {
    r.source = pl::Source::NcclLog;
    r.nccl.net.assign("IB");
    r.nccl.channel = l.channel;
    r.nccl.connIndex = 0;
    r.nccl.proxyRank = l.proxyRank;
    r.remote.rank = l.receiver;
  } else {
    r.localDigest = 0xd1 + (l.writer == oddDigestRank_ ? 1u : 0u);
    r.remoteDigest = 0xd1 + (l.receiver == oddDigestRank_ ? 1u : 0u);
  }
  return r;
}

pl::PathRecord Builder::recvRecord(const Logical& l, uint64_t id) const {
  pl::PathRecord r = sendRecord(l, id);
  r.rank = imported_ ? l.receiver : -1;  // the plugin's receive learns the sender's rank, not its own
  r.direction = pl::Direction::Recv;
  const sy::HostNic& mine = nic(l.receiver, l.recvNic);
  r.local.device = l.chosenRecv;
  r.local.hca.assign(mine.hca);
  r.local.netdev.assign(imported_ ? "" : mine.netdev);
  r.local.rail = noRails_ ? -1 : mine.rail;
  r.local.plane = noRails_ ? -1 : mine.plane;
  r.local.gpu = placement_.ranks[static_cast<size_t>(l.receiver)].gpuIndex;
  r.expectedRail = noRails_ || staleWriters_ ? -1 : placement_.expectedRailOf(l.receiver);
  const sy::HostNic& theirs = nic(l.writer, l.sendNic);
  r.remote.host.assign(placement_.hostOf(l.writer).name);
  r.remote.pid = kFirstPid + l.writer;
  r.remote.device = l.sendNic;  // the handshake announces the NIC the sender used, as the net plugin's does
  r.remote.hca.assign(theirs.hca);
  r.remote.rail = noRails_ ? -1 : theirs.rail;
  r.remote.plane = noRails_ ? -1 : theirs.plane;
  r.remote.rank = l.sender;
  if (imported_) {
    r.nccl.proxyRank = -1;
  } else {
    std::swap(r.localDigest, r.remoteDigest);
  }
  return r;
}

// Per process its connect records (sends, then receives, as NCCL sets them up), then a close per connection (the
// net plugin's; NCCL's log has none).
void Builder::emit(GeneratedJob& job) {
  std::vector<int> writerOf(placement_.ranks.size(), -1);
  std::vector<uint64_t> nextId(placement_.ranks.size(), 1);
  auto writerIndex = [&](int rank) {
    if (writerOf[static_cast<size_t>(rank)] < 0) {
      writerOf[static_cast<size_t>(rank)] = static_cast<int>(job.writers.size());
      job.writers.push_back(Writer{Identity{placement_.hostOf(rank).name, job.job, kFirstPid + rank}, {}});
    }
    return writerOf[static_cast<size_t>(rank)];
  };
  std::vector<std::pair<int, pl::PathRecord>> closes;
  auto add = [&](int rank, pl::PathRecord record, int connection) {
    Writer& w = job.writers[static_cast<size_t>(writerIndex(rank))];
    const long end = static_cast<long>(job.endConnection.size());
    job.endConnection.push_back(connection);
    job.endKey.emplace_back(writerIndex(rank), record.connection);
    w.lines.push_back(LogLine{pl::renderRecord(w.identity, record), writerIndex(rank), end});
    if (imported_) return;
    pl::PathRecord close;
    close.kind = pl::RecordKind::Close;
    close.timeUs = record.timeUs + 5'000'000;
    close.connection = record.connection;
    close.comm = record.comm;
    close.rank = record.rank;
    const uint64_t bytes = 1'048'576u * static_cast<uint64_t>(1 + connection % 7);
    close.traffic =
        record.direction == pl::Direction::Send ? pl::Traffic{bytes, 0, 2, 0, 100} : pl::Traffic{0, bytes, 0, 2, 100};
    closes.emplace_back(rank, close);
  };
  for (size_t i = 0; i < logical_.size(); ++i) {
    const Logical& l = logical_[i];
    add(l.writer, sendRecord(l, nextId[static_cast<size_t>(l.writer)]++), static_cast<int>(i));
  }
  for (size_t i = 0; i < logical_.size(); ++i) {
    const Logical& l = logical_[i];
    add(l.receiver, recvRecord(l, nextId[static_cast<size_t>(l.receiver)]++), static_cast<int>(i));
  }
  for (const auto& [rank, close] : closes) {
    Writer& w = job.writers[static_cast<size_t>(writerIndex(rank))];
    w.lines.push_back(LogLine{pl::renderRecord(w.identity, close), writerIndex(rank), -1});
  }
  job.connections = static_cast<int>(logical_.size());
  for (const Logical& l : logical_) job.violating.push_back(l.violating);
}

GeneratedJob Builder::build() {
  ring();
  if (logical_.empty()) throw std::invalid_argument("the job has no network connection: " + job_.shape);
  inject();
  emit(job_);
  return std::move(job_);
}

}  // namespace

uint64_t Rng::next() {
  uint64_t x = (state_ += 0x9e3779b97f4a7c15ULL);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const std::vector<std::string>& injectionKinds() {
  static const std::vector<std::string> kinds{"clean",      "misbind-send",        "misbound-gpu", "misbound-stale-map",
                                              "cross-rail", "cross-rail-map-only", "cross-plane",  "digest-mismatch",
                                              "pxn",        "pxn-imported",        "rails-unknown"};
  return kinds;
}

GeneratedJob generateJob(const std::string& injection, uint64_t seed, int ranks) {
  return Builder(injection, seed, ranks).build();
}

}  // namespace railtune::eval::paths
