// See collective_records.h.
#include "analysis/synth/collective_records.h"

#include "formats/profile_logs.h"

namespace railtune::analysis::synth {
namespace {

constexpr uint64_t kStepBytes = 512 * 1024;  // NCCL's Simple-protocol step on the network
constexpr uint64_t kBaseWaitNs = 2'000;      // a step's wait when nobody is late

void setNic(const SynthJob& job, int rank, int device, formats::profile::NetFlow& flow) {
  const RankPlace& place = job.placement.ranks[static_cast<size_t>(rank)];
  const HostNic& nic = job.placement.hosts[static_cast<size_t>(place.host)].nics[static_cast<size_t>(device)];
  flow.device = job.connections.chosenDevice(rank, flow.channel);
  flow.hca.assign(nic.hca);
  flow.rail = nic.rail;
  flow.plane = nic.plane;
}

// A receive waits for its predecessor's data: as long as the last rank kept everyone waiting.
void addFlows(const SynthJob& job, int rank, size_t seq, formats::profile::OperationRecord& record) {
  const CollectiveSpec& c = job.timeline.collectives()[seq];
  const RankTiming timing = job.timeline.rankTiming(rank, seq);
  const uint32_t steps =
      static_cast<uint32_t>(c.bytesPerChannel == 0 ? 1 : (c.bytesPerChannel + kStepBytes - 1) / kStepBytes);
  const int channels = job.connections.channels();
  for (int ch = 0; ch < channels && record.nFlows + 2 <= formats::profile::kMaxFlowsPerRecord; ++ch) {
    formats::profile::NetFlow& send = record.flows[record.nFlows++];
    send.channel = ch;
    send.peer = job.placement.ringNext[static_cast<size_t>(rank)];
    send.send = true;
    send.bytes = c.bytesPerChannel;
    send.steps = steps;
    send.waitNs = kBaseWaitNs * steps;
    setNic(job, rank, job.connections.sendDevice(rank, ch), send);
    formats::profile::NetFlow& recv = record.flows[record.nFlows++];
    recv.channel = ch;
    recv.peer = job.placement.ringPrev[static_cast<size_t>(rank)];
    recv.bytes = c.bytesPerChannel;
    recv.steps = steps;
    recv.waitNs = kBaseWaitNs * steps + static_cast<uint64_t>(c.lastArrivalNs - timing.arrivalNs);
    setNic(job, rank, job.connections.chosenDevice(rank, ch), recv);
  }
}

// What a profiler v7 binding adds: the step phase's tag, the path, and the kernel phases (the same on
// every channel: the longest channel's is what a record keeps).
void addV7Fields(const SynthJob& job, int rank, size_t seq, formats::profile::OperationRecord& r) {
  namespace pf = formats::profile;
  const CollectiveSpec& c = job.timeline.collectives()[seq];
  r.userTag = stepTag(seq);
  r.path = c.symmetric ? pf::OperationPath::Symmetric : pf::OperationPath::Tuned;
  r.symColl = c.symmetric;
  const RankPhases p = job.timeline.rankPhases(rank, seq);
  r.phases.channels = job.connections.channels();
  const int64_t ns[pf::kKernelPhases] = {p.initialSyncNs, p.computeNs, p.finalSyncNs};  // by KernelPhase
  for (size_t k = 0; k < pf::kKernelPhases; ++k) {
    r.phases.longestNs[k] = static_cast<uint64_t>(ns[k]);
    r.phases.timed[k] = true;
  }
}

}  // namespace

formats::profile::OperationRecord collectiveRecord(const SynthJob& job, int rank, size_t seq) {
  const CollectiveSpec& c = job.timeline.collectives()[seq];
  const RankTiming timing = job.timeline.rankTiming(rank, seq);
  const int host = job.placement.ranks[static_cast<size_t>(rank)].host;
  formats::profile::OperationRecord r;
  r.kind = formats::profile::RecordKind::Collective;
  r.comm = job.comm;
  r.rank = rank;
  r.nRanks = job.ranks();
  r.seq = seq;
  r.operation.assign(c.op);
  r.bytes = c.bytes;
  r.datatype.assign(c.datatype);
  r.algorithm.assign(c.algorithm);
  r.protocol.assign(c.protocol);
  r.channels = job.connections.channels();
  const Timeline& t = job.timeline;
  r.start = formats::profile::Timestamp{t.realtimeNs(host, timing.arrivalNs), t.monotonicNs(host, timing.arrivalNs)};
  r.end = formats::profile::Timestamp{t.realtimeNs(host, timing.endNs), t.monotonicNs(host, timing.endNs)};
  r.timing = formats::profile::TimingSource::Kernel;
  r.closedBy = formats::profile::CloseReason::Events;  // a healthy job: every awaited event stopped
  if (job.options.v7.enabled) addV7Fields(job, rank, seq, r);
  return r;
}

void appendCollectiveLog(const SynthJob& job, int rank, std::string& out) {
  const Identity identity = job.identityOf(rank);
  if (job.options.bootIds) {  // the header the plugin writes first, naming the machine's boot id
    const int host = job.placement.ranks[static_cast<size_t>(rank)].host;
    formats::profile::appendHeaderLine(&out, identity, job.timeline.realtimeNs(host, 0), job.bootIdOf(host));
    out += '\n';
  }
  for (size_t s = 0; s < job.timeline.collectives().size(); ++s) {
    out += formats::profile::renderCollectiveLine(identity, collectiveRecord(job, rank, s), 0);
    out += '\n';
  }
}

void appendNetLog(const SynthJob& job, int rank, std::string& out) {
  if (!job.placement.hasNetPeers(rank)) return;
  const Identity identity = job.identityOf(rank);
  for (size_t s = 0; s < job.timeline.collectives().size(); ++s) {
    formats::profile::OperationRecord record = collectiveRecord(job, rank, s);
    addFlows(job, rank, s, record);
    out += formats::profile::renderNetLine(identity, record);
    out += '\n';
  }
}

}  // namespace railtune::analysis::synth
