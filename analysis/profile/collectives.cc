// Grouping a job's samples by collective (collectives.h) with two counting sorts rather than a sort
// of 8 M samples: samples per (comm, op, seq) slot, then their indices placed slot by slot.
#include "analysis/profile/collectives.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <thread>
#include <unordered_map>

namespace railtune::analysis::profile {
namespace {

// Seq numbers of one communicator and collective type are dense from 0 in practice; a sparse range
// falls back to a map.
constexpr uint64_t kDenseRange = 1u << 22;

struct SeqSlots {
  uint64_t minSeq = UINT64_MAX, maxSeq = 0;
  std::vector<uint32_t> dense;  // seq - minSeq -> slot, kNone when unused
  std::unordered_map<uint64_t, uint32_t> sparse;
  bool isDense() const { return maxSeq - minSeq < kDenseRange; }
  uint32_t& slot(uint64_t seq) {
    return isDense() ? dense[seq - minSeq] : sparse.try_emplace(seq, kNone).first->second;
  }
};

std::vector<uint32_t> commKeys(const ProfileLogs& logs, uint32_t job, std::vector<CommKey>* comms) {
  std::map<std::pair<bool, uint64_t>, uint32_t> keys;
  std::vector<uint32_t> streamComm(logs.streams.size(), kNone);
  for (size_t s = 0; s < logs.streams.size(); ++s) {
    const Stream& stream = logs.streams[s];
    if (stream.job != job) continue;
    const auto [it, added] = keys.try_emplace({stream.hasComm, stream.comm}, static_cast<uint32_t>(comms->size()));
    if (added) comms->push_back(CommKey{stream.hasComm, stream.comm});
    streamComm[s] = it->second;
  }
  return streamComm;
}

// The (comm, op) series of each sample: NCCL counts seq per collective type.
std::vector<uint32_t> assignSeries(const ProfileLogs& logs, const CollectiveIndex& index, size_t* seriesCount) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> series;
  std::pair<uint32_t, uint32_t> last{kNone, kNone};
  uint32_t lastSeries = kNone;
  std::vector<uint32_t> out(logs.samples.size(), kNone);
  for (size_t i = 0; i < logs.samples.size(); ++i) {
    const Sample& s = logs.samples[i];
    const std::pair<uint32_t, uint32_t> key{index.streamComm[s.stream], s.op};
    if (key.first == kNone) continue;
    if (key != last)  // samples come file by file, so the previous sample's series is the likely one
      last = key, lastSeries = series.try_emplace(key, static_cast<uint32_t>(series.size())).first->second;
    out[i] = lastSeries;
  }
  *seriesCount = series.size();
  return out;
}

// Each sample's slot (one per comm, op and seq, numbered in the order met) and how many samples each holds.
std::vector<uint32_t> assignSlots(const ProfileLogs& logs, CollectiveIndex* index, std::vector<uint32_t>* counts) {
  size_t seriesCount = 0;
  const std::vector<uint32_t> seriesOf = assignSeries(logs, *index, &seriesCount);
  std::vector<SeqSlots> slots(seriesCount);
  for (size_t i = 0; i < logs.samples.size(); ++i) {
    if (seriesOf[i] == kNone) continue;
    SeqSlots& slot = slots[seriesOf[i]];
    slot.minSeq = std::min(slot.minSeq, logs.samples[i].seq);
    slot.maxSeq = std::max(slot.maxSeq, logs.samples[i].seq);
  }
  for (SeqSlots& slot : slots)
    if (slot.minSeq <= slot.maxSeq && slot.isDense()) slot.dense.assign(slot.maxSeq - slot.minSeq + 1, kNone);
  std::vector<uint32_t> sampleSlot(logs.samples.size(), kNone);
  for (size_t i = 0; i < logs.samples.size(); ++i) {
    const Sample& s = logs.samples[i];
    if (seriesOf[i] == kNone) continue;
    uint32_t& slot = slots[seriesOf[i]].slot(s.seq);
    if (slot == kNone) {
      slot = static_cast<uint32_t>(index->collectives.size());
      index->collectives.push_back(Collective{index->streamComm[s.stream], s.seq, s.op, 0, 0});
      counts->push_back(0);
    }
    sampleSlot[i] = slot;
    ++(*counts)[slot];
  }
  return sampleSlot;
}

// Collectives sorted by comm, then seq, then op; their samples placed contiguously in that order.
void placeSamples(const ProfileLogs& logs, const std::vector<uint32_t>& sampleSlot, const std::vector<uint32_t>& counts,
                  CollectiveIndex* index) {
  std::vector<uint32_t> byKey(index->collectives.size());
  for (uint32_t i = 0; i < byKey.size(); ++i) byKey[i] = i;
  std::sort(byKey.begin(), byKey.end(), [&](uint32_t a, uint32_t b) {
    const Collective &x = index->collectives[a], &y = index->collectives[b];
    if (x.commKey != y.commKey) return x.commKey < y.commKey;
    return x.seq != y.seq ? x.seq < y.seq : logs.ops[x.op] < logs.ops[y.op];
  });
  std::vector<uint32_t> position(byKey.size());
  std::vector<Collective> sorted;
  uint32_t offset = 0;
  for (uint32_t i = 0; i < byKey.size(); ++i) {
    Collective c = index->collectives[byKey[i]];
    c.begin = c.end = offset;
    offset += counts[byKey[i]];
    position[byKey[i]] = i;
    sorted.push_back(c);
  }
  index->collectives = std::move(sorted);
  index->order.resize(offset);
  for (size_t i = 0; i < sampleSlot.size(); ++i) {
    if (sampleSlot[i] == kNone) continue;
    Collective& c = index->collectives[position[sampleSlot[i]]];
    index->order[c.end++] = static_cast<uint32_t>(i);
  }
}

}  // namespace

CollectiveIndex indexCollectives(const ProfileLogs& logs, uint32_t job) {
  CollectiveIndex index;
  index.streamComm = commKeys(logs, job, &index.comms);
  std::vector<uint32_t> counts;
  const std::vector<uint32_t> sampleSlot = assignSlots(logs, &index, &counts);
  placeSamples(logs, sampleSlot, counts, &index);
  return index;
}

int64_t medianOf(std::vector<int64_t>& values) {
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const int64_t upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const int64_t lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return lower + (upper - lower) / 2;
}

int64_t percentileOf(std::vector<int64_t>& values, double p) {
  // Nearest rank: the smallest value with at least p of the values at or below it.
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  rank = std::clamp<size_t>(rank, 1, values.size());
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank - 1), values.end());
  return values[rank - 1];
}

}  // namespace railtune::analysis::profile
