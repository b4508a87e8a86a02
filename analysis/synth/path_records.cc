// See path_records.h.
#include "analysis/synth/path_records.h"

namespace railtune::analysis::synth {
namespace {

namespace pl = formats::path_log;

constexpr uint64_t kMessageBytes = 512 * 1024;                         // the transport's chunk: one message per chunk
constexpr int kStreams = 2;                                            // QPs per connection
constexpr int64_t kSetupStartNs = 500'000'000, kSetupStepNs = 20'000;  // connects: 0.5 s in, 20 us apart
constexpr int64_t kCloseAfterNs = 150'000'000;                         // destroy 150 ms after the last collective

const HostNic& nicOf(const SynthJob& job, int rank, int device) {
  const RankPlace& place = job.placement.ranks[static_cast<size_t>(rank)];
  return job.placement.hosts[static_cast<size_t>(place.host)].nics[static_cast<size_t>(device)];
}

// Realtime microseconds on `rank`'s host for true time `ns`.
int64_t hostTimeUs(const SynthJob& job, int rank, int64_t ns) {
  return job.timeline.realtimeNs(job.placement.ranks[static_cast<size_t>(rank)].host, ns) / 1000;
}

pl::PathRecord connectBase(const SynthJob& job, int rank, int localDevice, int actualDevice) {
  pl::PathRecord r;
  r.kind = pl::RecordKind::Connect;
  r.comm = job.comm;
  r.transport.assign("ib");
  r.streams = kStreams;
  const HostNic& nic = nicOf(job, rank, actualDevice);
  r.local.device = localDevice;
  r.local.hca.assign(nic.hca);
  r.local.netdev.assign(nic.netdev);
  r.local.rail = nic.rail;
  r.local.plane = nic.plane;
  r.local.gpu = job.placement.ranks[static_cast<size_t>(rank)].gpuIndex;
  r.expectedRail = job.placement.expectedRailOf(rank);
  r.localDigest = job.digest;
  r.remoteDigest = job.digest;
  return r;
}

// What the peer's handshake said: its host, pid and the device its connection runs on.
void setRemote(const SynthJob& job, int peer, int device, pl::RemoteEnd& remote) {
  const HostNic& nic = nicOf(job, peer, device);
  remote.host.assign(job.placement.hostOf(peer).name);
  remote.pid = job.pidOf(peer);
  remote.device = device;
  remote.hca.assign(nic.hca);
  remote.rail = nic.rail;
  remote.plane = nic.plane;
}

void appendLine(std::string& out, const Identity& identity, const pl::PathRecord& record) {
  out += pl::renderRecord(identity, record);
  out += '\n';
}

}  // namespace

pl::PathRecord sendConnect(const SynthJob& job, int rank, int channel) {
  const int next = job.placement.ringNext[static_cast<size_t>(rank)];
  pl::PathRecord r =
      connectBase(job, rank, job.connections.chosenDevice(rank, channel), job.connections.sendDevice(rank, channel));
  r.timeUs = hostTimeUs(job, rank, kSetupStartNs + kSetupStepNs * channel);
  r.connection = job.connections.sendConnection(channel);
  r.rank = rank;
  r.direction = pl::Direction::Send;
  setRemote(job, next, job.connections.chosenDevice(next, channel), r.remote);
  r.remote.rank = -1;  // the handshake carries no rank; a send learns none from its tags
  return r;
}

pl::PathRecord recvConnect(const SynthJob& job, int rank, int channel) {
  const int prev = job.placement.ringPrev[static_cast<size_t>(rank)];
  const int device = job.connections.chosenDevice(rank, channel);
  pl::PathRecord r = connectBase(job, rank, device, device);
  r.timeUs = hostTimeUs(job, rank, kSetupStartNs + kSetupStepNs * (job.connections.channels() + channel));
  r.connection = job.connections.recvConnection(channel);
  r.rank = -1;  // a receive's tag names the sender, not this rank
  r.direction = pl::Direction::Recv;
  setRemote(job, prev, job.connections.sendDevice(prev, channel), r.remote);
  r.remote.rank = prev;
  return r;
}

pl::Traffic trafficUntil(const SynthJob& job, int64_t untilNs) {
  pl::Traffic t;
  for (const CollectiveSpec& c : job.timeline.collectives()) {
    if (c.t0Ns >= untilNs) break;
    t.bytesSent += c.bytesPerChannel;
    t.messagesSent += c.bytesPerChannel == 0 ? 1 : (c.bytesPerChannel + kMessageBytes - 1) / kMessageBytes;
    t.busyUs += static_cast<uint64_t>(c.baseNs / 1000);
  }
  return t;
}

std::string renderPathLog(const SynthJob& job, int rank) {
  std::string out;
  if (!job.placement.hasNetPeers(rank)) return out;
  const Identity identity = job.identityOf(rank);
  const int channels = job.connections.channels();
  std::vector<pl::PathRecord> connects;
  for (int c = 0; c < channels; ++c) connects.push_back(sendConnect(job, rank, c));
  for (int c = 0; c < channels; ++c) connects.push_back(recvConnect(job, rank, c));
  for (const pl::PathRecord& r : connects) appendLine(out, identity, r);

  const auto& collectives = job.timeline.collectives();
  const int64_t midNs = collectives[collectives.size() / 2].t0Ns;
  const int64_t endNs = job.timeline.jobEndNs() + kCloseAfterNs;
  const pl::Traffic sent[2] = {trafficUntil(job, midNs), trafficUntil(job, endNs)};
  // The plugin writes a snapshot only for connections whose counters moved.
  const bool moved = sent[0].messagesSent > 0;
  for (int phase = moved ? 0 : 1; phase < 2; ++phase) {
    for (const pl::PathRecord& connect : connects) {
      pl::PathRecord r;
      r.kind = phase == 0 ? pl::RecordKind::Snapshot : pl::RecordKind::Close;
      r.timeUs = hostTimeUs(job, rank, phase == 0 ? midNs : endNs);
      r.connection = connect.connection;
      r.comm = connect.comm;
      r.rank = connect.rank;
      const bool send = connect.direction == pl::Direction::Send;
      r.traffic = sent[phase];
      if (!send) r.traffic = pl::Traffic{0, sent[phase].bytesSent, 0, sent[phase].messagesSent, sent[phase].busyUs};
      appendLine(out, identity, r);
    }
  }
  return out;
}

}  // namespace railtune::analysis::synth
