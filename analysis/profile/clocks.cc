// Host clock offsets from the bounds collectives put on them (clocks.h).
#include "analysis/profile/clocks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace railtune::analysis::profile {
namespace {

constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

// One clock's part in one synchronising collective: its latest start and earliest end (realtime). In a
// transfer (a Send and its Recv) the sender gives only its start and the receiver only its end.
struct Entry {
  uint32_t clock = 0;
  bool hasStart = true, hasEnd = true;
  int64_t maxStartNs = 0, minEndNs = 0;
};

struct SyncCollective {
  int64_t timeNs = 0;           // the median of its clocks' earliest ends (a transfer: its send's start)
  uint32_t begin = 0, end = 0;  // its entries
  bool transfer = false;        // a Send and its Recv: ends need not line up
};

struct Bounds {
  std::vector<Entry> entries;
  std::vector<SyncCollective> collectives;  // by time
};

// Each stream's clock: its process's boot id when the header named one, else its host name.
void assignClocks(const ProfileLogs& logs, const CollectiveIndex& index, const std::vector<uint32_t>& trayOfStream,
                  ClockModel* model) {
  std::map<std::pair<bool, std::string>, uint32_t> keys;  // (not a boot id, key): host-name clocks sort last
  for (size_t s = 0; s < logs.streams.size(); ++s) {
    if (index.streamComm[s] == kNone) continue;
    const Stream& stream = logs.streams[s];
    keys.try_emplace(
        {stream.boot < 0, stream.boot >= 0 ? logs.bootIds[static_cast<size_t>(stream.boot)] : logs.hosts[stream.host]},
        0);
  }
  for (auto& [key, clock] : keys) {
    clock = static_cast<uint32_t>(model->clocks.size());
    model->clocks.push_back(ClockEstimate{key.second, !key.first, {}, 0, false, 0, 0, 0, 0, 0, 0});
  }
  model->clockOfStream.assign(logs.streams.size(), kNone);
  for (size_t s = 0; s < logs.streams.size(); ++s) {
    if (index.streamComm[s] == kNone) continue;
    const Stream& stream = logs.streams[s];
    const uint32_t clock = keys.at(
        {stream.boot < 0, stream.boot >= 0 ? logs.bootIds[static_cast<size_t>(stream.boot)] : logs.hosts[stream.host]});
    model->clockOfStream[s] = clock;
    std::vector<uint32_t>& trays = model->clocks[clock].trays;
    if (std::find(trays.begin(), trays.end(), trayOfStream[s]) == trays.end()) trays.push_back(trayOfStream[s]);
  }
  for (ClockEstimate& c : model->clocks) std::sort(c.trays.begin(), c.trays.end());
}

// Transfers between clocks: the k-th Send from rank a to rank b and b's k-th Recv from a (P2pSample's
// seq). A receive cannot complete before its send started; the other way round proves nothing (NCCL
// may complete a small send into the receiver's buffer before the receive is posted).
void addTransfers(const ProfileLogs& logs, const CollectiveIndex& index, const ClockModel& model, Bounds* out) {
  struct Halves {
    int64_t sendStartNs = 0, recvEndNs = 0;
    uint32_t sender = kNone, receiver = kNone;  // clocks
  };
  std::map<std::tuple<uint32_t, int, int, uint64_t>, Halves> transfers;  // (comm, from, to, seq)
  for (const P2pSample& p : logs.p2p) {
    const uint32_t comm = index.streamComm[p.stream];
    const Stream& s = logs.streams[p.stream];
    if (comm == kNone || p.enqueueTimed || s.rank < 0 || p.peer < 0) continue;
    Halves& h = transfers[{comm, p.send ? s.rank : p.peer, p.send ? p.peer : s.rank, p.seq}];
    if (p.send)
      h.sendStartNs = p.startRealtimeNs, h.sender = model.clockOfStream[p.stream];
    else
      h.recvEndNs = p.endRealtimeNs, h.receiver = model.clockOfStream[p.stream];
  }
  for (const auto& [key, h] : transfers) {
    if (h.sender == kNone || h.receiver == kNone || h.sender == h.receiver) continue;
    const auto begin = static_cast<uint32_t>(out->entries.size());
    out->entries.push_back(Entry{h.sender, true, false, h.sendStartNs, 0});
    out->entries.push_back(Entry{h.receiver, false, true, 0, h.recvEndNs});
    out->collectives.push_back(SyncCollective{h.sendStartNs, begin, begin + 2, true});
  }
}

// The (collective, clock) bounds of every synchronising collective that spans two clocks or more, and
// of every transfer between two clocks.
Bounds collectBounds(const ProfileLogs& logs, const CollectiveIndex& index, ClockModel* model) {
  Bounds out;
  std::vector<bool> syncOp(logs.ops.size());
  for (size_t o = 0; o < logs.ops.size(); ++o) syncOp[o] = synchronisingOp(logs.ops[o]);
  std::vector<bool> enqueueTimed(logs.samples.size(), false);
  for (uint32_t sample : logs.enqueueTimed) enqueueTimed[sample] = true;
  std::vector<uint32_t> slot(model->clocks.size(), kNone);  // the clock's entry in the current collective
  std::vector<int64_t> ends;
  for (const Collective& col : index.collectives) {
    if (!syncOp[col.op]) continue;
    const auto begin = static_cast<uint32_t>(out.entries.size());
    for (uint32_t i = col.begin; i < col.end; ++i) {
      if (enqueueTimed[index.order[i]]) continue;  // its end is the enqueue's, not the collective's
      const Sample& s = logs.samples[index.order[i]];
      const uint32_t clock = model->clockOfStream[s.stream];
      const int64_t start = s.endRealtimeNs - std::max<int64_t>(s.durationNs, 0);
      if (slot[clock] == kNone) {
        slot[clock] = static_cast<uint32_t>(out.entries.size());
        out.entries.push_back(Entry{clock, true, true, start, s.endRealtimeNs});
        continue;
      }
      Entry& e = out.entries[slot[clock]];
      e.maxStartNs = std::max(e.maxStartNs, start), e.minEndNs = std::min(e.minEndNs, s.endRealtimeNs);
    }
    const auto end = static_cast<uint32_t>(out.entries.size());
    for (uint32_t e = begin; e < end; ++e) slot[out.entries[e].clock] = kNone;
    if (end - begin < 2) {  // one clock: nothing to compare
      out.entries.resize(begin);
      continue;
    }
    ends.clear();
    for (uint32_t e = begin; e < end; ++e)
      ends.push_back(out.entries[e].minEndNs), ++model->clocks[out.entries[e].clock].collectives;
    out.collectives.push_back(SyncCollective{medianOf(ends), begin, end, false});
  }
  addTransfers(logs, index, *model, &out);
  std::stable_sort(out.collectives.begin(), out.collectives.end(),
                   [](const SyncCollective& a, const SyncCollective& b) { return a.timeNs < b.timeNs; });
  return out;
}

// A timestamp of a clock running fast by `rate`, as it would read at the same rate as the reference.
int64_t correctedNs(double rate, int64_t referenceNs, int64_t t) {
  return rate == 0 ? t : t - static_cast<int64_t>(std::llround(rate * static_cast<double>(t - referenceNs)));
}

struct Interval {
  int64_t lo = -kInf, hi = kInf;  // of x_k - x_ref
  bool bounded() const { return lo > -kInf && hi < kInf; }
};

// One solve over collectives [first, last) with each timestamp corrected by its clock's rate. Returns
// false when the bounds contradict each other (a negative cycle: the reference would precede itself).
class Solver {
 public:
  Solver(const Bounds& bounds, const ClockModel& model, const std::vector<double>& rates, int maxRounds)
      : b_(bounds), m_(model), rates_(rates), maxRounds_(maxRounds) {}

  bool solve(size_t first, size_t last, int64_t toleranceNs, std::vector<Interval>* out) const {
    const size_t clocks = m_.clocks.size();
    std::vector<int64_t> up(clocks, kInf), down(clocks, kInf);
    up[m_.reference] = down[m_.reference] = 0;
    for (int round = 0; round < maxRounds_; ++round) {
      bool changed = false;
      for (size_t c = first; c < last; ++c) changed |= relax(b_.collectives[c], toleranceNs, &up, &down);
      if (up[m_.reference] < 0 || down[m_.reference] < 0) return false;
      if (!changed) break;
    }
    out->assign(clocks, Interval{});
    for (size_t k = 0; k < clocks; ++k) {
      if (up[k] < kInf) (*out)[k].hi = up[k];
      if (down[k] < kInf) (*out)[k].lo = -down[k];
    }
    return true;
  }

 private:
  int64_t corrected(uint32_t clock, int64_t t) const { return correctedNs(rates_[clock], m_.referenceNs, t); }

  // up: shortest path from the reference (x_k - x_ref <= up[k]) through edges k -> c (-maxStart) and
  // c -> k (minEnd + tolerance); down: shortest path to the reference (x_ref - x_k <= down[k]).
  bool relax(const SyncCollective& col, int64_t toleranceNs, std::vector<int64_t>* up,
             std::vector<int64_t>* down) const {
    int64_t viaUp = kInf, viaDown = kInf;
    for (uint32_t i = col.begin; i < col.end; ++i) {
      const Entry& e = b_.entries[i];
      if (e.hasStart && (*up)[e.clock] < kInf)
        viaUp = std::min(viaUp, (*up)[e.clock] - corrected(e.clock, e.maxStartNs));
      if (e.hasEnd && (*down)[e.clock] < kInf)
        viaDown = std::min(viaDown, (*down)[e.clock] + corrected(e.clock, e.minEndNs) + toleranceNs);
    }
    bool changed = false;
    for (uint32_t i = col.begin; i < col.end; ++i) {
      const Entry& e = b_.entries[i];
      if (e.hasEnd && viaUp < kInf) {
        const int64_t candidate = viaUp + corrected(e.clock, e.minEndNs) + toleranceNs;
        if (candidate < (*up)[e.clock]) (*up)[e.clock] = candidate, changed = true;
      }
      if (e.hasStart && viaDown < kInf) {
        const int64_t candidate = viaDown - corrected(e.clock, e.maxStartNs);
        if (candidate < (*down)[e.clock]) (*down)[e.clock] = candidate, changed = true;
      }
    }
    return changed;
  }

  const Bounds& b_;
  const ClockModel& m_;
  const std::vector<double>& rates_;
  int maxRounds_;
};

// The smallest slack (0, then growing by 4x up to 4 ms) with which [first, last) is consistent.
bool solveWithSlack(const Solver& solver, size_t first, size_t last, std::vector<Interval>* out, int64_t* toleranceNs) {
  for (int64_t tolerance = 0; tolerance <= 4'096'000; tolerance = tolerance == 0 ? 1'000 : tolerance * 4) {
    if (!solver.solve(first, last, tolerance, out)) continue;
    *toleranceNs = tolerance;
    return true;
  }
  return false;
}

// Where in its interval each clock's offset most likely is: where its collectives' ends line up with
// the others' (every rank of a synchronising collective ends within microseconds of the rest, where
// their starts differ by the lateness the analysis looks for), the median over its collectives of its
// earliest end minus the collective's median earliest end, relative to the reference clock's.
// Over collectives [first, last); `known` (when given) says which clocks took part in any.
std::vector<int64_t> endAlignment(const Bounds& bounds, const ClockModel& model, const std::vector<double>& rates,
                                  size_t first, size_t last, std::vector<bool>* known = nullptr) {
  std::vector<std::vector<int64_t>> differences(model.clocks.size());
  std::vector<int64_t> ends;
  for (size_t c = first; c < last; ++c) {
    const SyncCollective& col = bounds.collectives[c];
    if (col.transfer) continue;
    ends.clear();
    for (uint32_t i = col.begin; i < col.end; ++i) {
      const Entry& e = bounds.entries[i];
      ends.push_back(correctedNs(rates[e.clock], model.referenceNs, e.minEndNs));
    }
    std::vector<int64_t> sorted = ends;
    const int64_t median = medianOf(sorted);
    for (uint32_t i = col.begin; i < col.end; ++i)
      differences[bounds.entries[i].clock].push_back(ends[i - col.begin] - median);
  }
  std::vector<int64_t> out(model.clocks.size(), 0);
  for (size_t k = 0; k < out.size(); ++k)
    if (!differences[k].empty()) out[k] = medianOf(differences[k]);
  const int64_t reference = out[model.reference];
  for (int64_t& d : out) d -= reference;
  if (known != nullptr) {
    known->assign(out.size(), false);
    for (size_t k = 0; k < out.size(); ++k)
      (*known)[k] = !differences[k].empty() && !differences[model.reference].empty();
  }
  return out;
}

// One window's interval for one clock's offset, at the window's middle (seconds from the reference time).
struct WindowPoint {
  double t = 0, lo = 0, hi = 0;
  double aligned = 0;  // where the window's collective ends line up (endAlignment), within [lo, hi] or not
};

// The rates a line through every window's interval can have: lo_i <= a + b t_i <= hi_i for all i has a
// solution a exactly when b satisfies every pair (i, j), so the pairs bound b from both sides. An empty
// range (the windows contradict a straight line) gives lowest > highest.
struct RateRange {
  double lowest = -1e300, highest = 1e300;
};

RateRange rateRange(const std::vector<WindowPoint>& points) {
  RateRange r;
  for (size_t i = 0; i < points.size(); ++i)
    for (size_t j = i + 1; j < points.size(); ++j) {
      const double dt = points[j].t - points[i].t;
      if (dt <= 0) continue;
      r.lowest = std::max(r.lowest, (points[j].lo - points[i].hi) / dt);
      r.highest = std::min(r.highest, (points[j].hi - points[i].lo) / dt);
    }
  return r;
}

// Least squares through the windows' aligned ends: the best guess at the rate, which the bounds then
// keep within what they allow.
double alignedRate(const std::vector<WindowPoint>& points) {
  double n = 0, st = 0, sm = 0, stt = 0, stm = 0;
  for (const WindowPoint& p : points) n += 1, st += p.t, sm += p.aligned, stt += p.t * p.t, stm += p.t * p.aligned;
  const double denominator = n * stt - st * st;
  return denominator > 0 ? (n * stm - st * sm) / denominator : 0.0;
}

// Each clock's intervals per window of about options.windowNs (at most 48 windows), on timestamps
// corrected by `corrected`.
std::vector<std::vector<WindowPoint>> windowPoints(const Bounds& bounds, const ClockModel& model,
                                                   const std::vector<double>& corrected, const ClockOptions& options,
                                                   size_t* windows) {
  std::vector<std::vector<WindowPoint>> points(model.clocks.size());
  const std::vector<SyncCollective>& cols = bounds.collectives;
  if (cols.empty()) return points;
  const int64_t span = cols.back().timeNs - cols.front().timeNs;
  const int64_t window = std::max(options.windowNs, span / 48);
  if (span < 2 * window) return points;
  std::vector<std::pair<size_t, size_t>> ranges;  // each window's collectives [first, last)
  for (size_t first = 0; first < cols.size();) {
    size_t last = first;
    while (last < cols.size() && cols[last].timeNs - cols[first].timeNs < window) ++last;
    ranges.emplace_back(first, last);
    first = last;
  }
  // The windows are solved apart from each other, on every core; then gathered in time order.
  struct Solved {
    bool ok = false;
    std::vector<Interval> intervals;
    std::vector<int64_t> aligned;
    std::vector<bool> known;
  };
  std::vector<Solved> solved(ranges.size());
  const Solver solver(bounds, model, corrected, options.maxRounds);
  parallelFor(ranges.size(), [&](size_t w) {
    int64_t tolerance = 0;
    Solved& out = solved[w];
    out.ok = solveWithSlack(solver, ranges[w].first, ranges[w].second, &out.intervals, &tolerance);
    if (out.ok) out.aligned = endAlignment(bounds, model, corrected, ranges[w].first, ranges[w].second, &out.known);
  });
  for (size_t w = 0; w < ranges.size(); ++w) {
    if (!solved[w].ok) continue;
    ++*windows;
    const auto [first, last] = ranges[w];
    const double t = static_cast<double>((cols[first].timeNs + cols[last - 1].timeNs) / 2 - model.referenceNs) * 1e-9;
    const Solved& s = solved[w];
    for (size_t k = 0; k < s.intervals.size(); ++k)
      if (s.intervals[k].bounded() && s.known[k])
        points[k].push_back(WindowPoint{t, static_cast<double>(s.intervals[k].lo),
                                        static_cast<double>(s.intervals[k].hi), static_cast<double>(s.aligned[k])});
  }
  return points;
}

// What is left of each clock's rate after `corrected` (seconds per second), and how far off it may be.
struct RateFit {
  std::vector<double> residual, uncertainty;
};

RateFit fitRates(const Bounds& bounds, const ClockModel& model, const std::vector<double>& corrected,
                 const ClockOptions& options, size_t* windows) {
  const std::vector<std::vector<WindowPoint>> points = windowPoints(bounds, model, corrected, options, windows);
  RateFit fit{std::vector<double>(model.clocks.size(), 0.0), std::vector<double>(model.clocks.size(), 0.0)};
  for (size_t k = 0; k < points.size(); ++k) {
    if (k == model.reference || points[k].size() < options.minWindows) continue;
    const RateRange range = rateRange(points[k]);
    const double aligned = alignedRate(points[k]);  // ns per second
    if (range.lowest <= range.highest) {            // the aligned ends' rate, where the bounds allow it
      const double rate = std::clamp(aligned, range.lowest, range.highest);
      fit.residual[k] = rate * 1e-9;
      fit.uncertainty[k] = std::max(rate - range.lowest, range.highest - rate) * 1e-9;
    } else {  // no line through them all: the aligned ends' rate, off by at least as much as they contradict it
      fit.residual[k] = aligned * 1e-9;
      fit.uncertainty[k] = (range.lowest - range.highest) * 1e-9;
    }
  }
  return fit;
}

// The slack the whole job needs with these rates; -1 when even 4 ms does not make it consistent.
int64_t slackNeeded(const Bounds& bounds, const ClockModel& model, const std::vector<double>& rates, int maxRounds) {
  std::vector<Interval> ignored;
  int64_t tolerance = 0;
  const Solver solver(bounds, model, rates, maxRounds);
  return solveWithSlack(solver, 0, bounds.collectives.size(), &ignored, &tolerance) ? tolerance : -1;
}

// Each clock's rate, fitted whenever the job spans a few windows: a rate is used only when the windows
// rule out 0 for some clock (else every clock is taken as steady). Either way `uncertainty` is how far
// off each rate may be (for a steady clock: the largest rate the windows still allow), so that the error
// bars hold whether or not the clocks drift. A fitted rate is refined on timestamps corrected by the
// previous fit, so that what one window pass missed the next one finds.
std::vector<double> chooseRates(const Bounds& bounds, const ClockOptions& options, ClockModel* model,
                                std::vector<double>* uncertainty) {
  std::vector<double> none(model->clocks.size(), 0.0);
  uncertainty->assign(model->clocks.size(), 0.0);
  std::vector<double> rates = none;
  size_t windows = 0;
  for (int pass = 0; pass < 2; ++pass) {
    windows = 0;
    const RateFit fit = fitRates(bounds, *model, rates, options, &windows);
    if (windows == 0) break;
    for (size_t k = 0; k < rates.size(); ++k) rates[k] += fit.residual[k];
    *uncertainty = fit.uncertainty;
  }
  if (windows == 0) return none;
  const int64_t fixed = slackNeeded(bounds, *model, none, options.maxRounds);
  const int64_t fitted = slackNeeded(bounds, *model, rates, options.maxRounds);
  if (fitted < 0 || (fixed >= 0 && fitted > fixed)) {
    for (size_t k = 0; k < rates.size(); ++k) (*uncertainty)[k] += std::abs(rates[k]);
    return none;
  }
  model->windows = windows;
  return rates;
}

}  // namespace

bool synchronisingOp(const std::string& op) {
  // Every rank's output needs every rank's input. Not Broadcast or Reduce (only the root's start, or
  // only the root's end, is bound), nor Send/Recv (a send may complete into the peer's buffer early).
  return op == "AllReduce" || op == "AllGather" || op == "ReduceScatter" || op == "AllToAll";
}

int64_t ClockModel::offsetAt(uint32_t clock, int64_t realtimeNs) const {
  const ClockEstimate& c = clocks[clock];
  return c.offsetNs + static_cast<int64_t>(std::llround(c.rate * static_cast<double>(realtimeNs - referenceNs)));
}

ClockModel estimateClocks(const ProfileLogs& logs, const CollectiveIndex& index,
                          const std::vector<uint32_t>& trayOfStream, const ClockOptions& options) {
  ClockModel model;
  assignClocks(logs, index, trayOfStream, &model);
  if (model.clocks.empty()) return model;
  const Bounds bounds = collectBounds(logs, index, &model);
  for (const SyncCollective& c : bounds.collectives) ++(c.transfer ? model.transfers : model.synchronising);
  for (uint32_t k = 0; k < model.clocks.size(); ++k)
    if (model.clocks[k].collectives > model.clocks[model.reference].collectives) model.reference = k;
  model.clocks[model.reference].bounded = true;  // offset 0, error 0: the clock the others are read against
  if (bounds.collectives.empty()) return model;
  model.referenceNs = bounds.collectives[bounds.collectives.size() / 2].timeNs;
  std::vector<double> uncertainty;
  const std::vector<double> rates = chooseRates(bounds, options, &model, &uncertainty);
  std::vector<Interval> intervals;
  const Solver solver(bounds, model, rates, options.maxRounds);
  model.consistent = solveWithSlack(solver, 0, bounds.collectives.size(), &intervals, &model.toleranceNs);
  if (!model.consistent) return model;
  const double worstRateError = *std::max_element(uncertainty.begin(), uncertainty.end());
  const std::vector<int64_t> aligned = endAlignment(bounds, model, rates, 0, bounds.collectives.size());
  const int64_t halfSpan = std::max(model.referenceNs - bounds.collectives.front().timeNs,
                                    bounds.collectives.back().timeNs - model.referenceNs);
  for (size_t k = 0; k < model.clocks.size(); ++k) {
    ClockEstimate& c = model.clocks[k];
    if (k == model.reference || !intervals[k].bounded()) continue;
    c.bounded = true;
    c.rate = rates[k];
    c.rateError = uncertainty[k];
    // A rate off by d shifts a timestamp t by d x (t - referenceNs), on this clock and on those its bounds
    // pass through: the interval widens by what its own and the worst other rate error move over half the job.
    const int64_t widen =
        static_cast<int64_t>(std::ceil((uncertainty[k] + worstRateError) * static_cast<double>(halfSpan)));
    c.lowNs = intervals[k].lo - widen, c.highNs = intervals[k].hi + widen;
    c.offsetNs = std::clamp(aligned[k], c.lowNs, c.highNs);
    c.errorNs = std::max(c.offsetNs - c.lowNs, c.highNs - c.offsetNs);
  }
  return model;
}

}  // namespace railtune::analysis::profile
