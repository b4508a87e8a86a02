// The cell formulas of terms.h evaluated in NCCL's order of operations (tuneModel stores exactly these
// values), and their linear views for a fitter: the latency as offset + coefficients, the bandwidth as
// a min over the graph term and the caps.
#include <algorithm>

#include "emulator/nccl_model/model_internal.h"

namespace railtune::ncclmodel {
namespace {

// The NIC latency NCCL adds to every network hop: once, and again for Simple's flush.
double nicLatency(const LatencyForm& f) {
  return f.flush ? 2 * f.latencyInter : f.latencyInter;
}

void addTerm(LatencyTerms& t, ConstId id, double coef) {
  if (id == kNoConst || coef == 0) return;
  for (uint8_t i = 0; i < t.n; i++) {
    if (t.terms[i].id == id) {
      t.terms[i].coef += coef;
      return;
    }
  }
  t.terms[t.n++] = LatencyTerm{id, coef};
}

// intraCount x intraLat + interCount x interLat, the inter hops with their NIC latency.
void addHops(LatencyTerms& t, const LatencyForm& f, double intraCoef, double interCoef) {
  addTerm(t, f.intra, intraCoef);
  addTerm(t, f.inter, interCoef);
  t.offset += interCoef * nicLatency(f);
}

}  // namespace

double LatencyForm::value(const CostModelConstants& c) const {
  const double baseLat = base == kNoConst ? 0.0 : constValue(c, base);
  const double intraLat = intra == kNoConst ? 0.0 : constValue(c, intra);
  double interLat = (inter == kNoConst ? 0.0 : constValue(c, inter)) + latencyInter;
  if (flush) interLat += latencyInter;
  switch (shape) {
    case LatencyShape::BaseOnly:
      return baseLat;
    case LatencyShape::Ring:
      return baseLat + (intraCount * std::max(intraLat, netOverhead) + interCount * interLat);
    case LatencyShape::RingRoot:
      return baseLat + intraCount * intraLat;
    case LatencyShape::Tree:
      return baseLat + 2 * (intraCount * intraLat + interCount * interLat);
    case LatencyShape::CollNetDirect:
      return baseLat + 2 * (intraCount * intraLat + extraCount * 0.4) + interLat;
    case LatencyShape::CollNetChain:
      return baseLat + intraCount * intraLat + interLat;
    case LatencyShape::Nvls:
      return intraLat + (interCount != 0 ? interLat : 0.0);
    case LatencyShape::NvlsTree:
      return baseLat + intraLat + interCount * interLat;
    case LatencyShape::Pat:
      return baseLat + interCount * (interLat / 3.5) + extraCount * 2.8;
  }
  return baseLat;
}

double BandwidthForm::value(const CostModelConstants& c) const {
  if (zero) return 0.0;
  float bw = perChannel;
  if (channelCap != kNoConst) bw = std::min(bw, static_cast<float>(constValue(c, channelCap)));
  double bus = static_cast<double>(nChannels * bw);
  for (uint8_t i = 0; i < nSteps; i++)
    bus = std::min(bus * steps[i].num / steps[i].den, steps[i].scale * constValue(c, steps[i].cap));
  bus *= post;  // factors of 1 leave the value bitwise unchanged
  return bus * ratio;
}

LatencyTerms latencyTerms(const LatencyForm& f, const CostModelConstants& c) {
  LatencyTerms t;
  addTerm(t, f.base, 1);
  switch (f.shape) {
    case LatencyShape::BaseOnly:
      break;
    case LatencyShape::Ring:
      // max(intraLat, netOverhead): below the overhead the intra steps cost the overhead, no constant.
      if (f.intraCount != 0 && constValue(c, f.intra) < f.netOverhead) {
        t.netOverheadBinds = true;
        t.offset += f.intraCount * f.netOverhead;
        addHops(t, f, 0, f.interCount);
      } else {
        addHops(t, f, f.intraCount, f.interCount);
      }
      break;
    case LatencyShape::RingRoot:
      addHops(t, f, f.intraCount, 0);
      break;
    case LatencyShape::Tree:
      addHops(t, f, 2.0 * f.intraCount, 2.0 * f.interCount);
      break;
    case LatencyShape::CollNetDirect:
      t.offset += 2 * (f.extraCount * 0.4);
      addHops(t, f, 2.0 * f.intraCount, 1);
      break;
    case LatencyShape::CollNetChain:
      addHops(t, f, f.intraCount, 1);
      break;
    case LatencyShape::Nvls:
      addHops(t, f, 1, f.interCount != 0 ? 1 : 0);
      break;
    case LatencyShape::NvlsTree:
      addHops(t, f, 1, f.interCount);
      break;
    case LatencyShape::Pat:
      t.offset += f.extraCount * 2.8;
      addHops(t, f, 0, f.interCount / 3.5);
      break;
  }
  return t;
}

double LatencyTerms::value(const CostModelConstants& c) const {
  double v = offset;
  for (uint8_t i = 0; i < n; i++) v += terms[i].coef * constValue(c, terms[i].id);
  return v;
}

BandwidthTerms bandwidthTerms(const BandwidthForm& f, const CostModelConstants& c) {
  BandwidthTerms t;
  t.zero = f.zero;
  t.ratio = f.ratio;
  t.graphBus = static_cast<double>(f.nChannels * f.perChannel);
  // suffix[i]: the refinements NCCL applies from step i on, then the post factor.
  double suffix[3] = {1, 1, 1};
  suffix[f.nSteps] = f.post;
  for (int i = f.nSteps - 1; i >= 0; i--) suffix[i] = suffix[i + 1] * f.steps[i].num / f.steps[i].den;
  t.factor = suffix[0];
  if (f.channelCap != kNoConst)
    t.caps[t.nCaps++] = BandwidthCap{f.channelCap, static_cast<double>(f.nChannels), suffix[0]};
  for (int i = 0; i < f.nSteps; i++) t.caps[t.nCaps++] = BandwidthCap{f.steps[i].cap, f.steps[i].scale, suffix[i + 1]};
  double best = t.graphBus * t.factor;
  for (uint8_t i = 0; i < t.nCaps; i++) {
    const double capped = t.caps[i].scale * constValue(c, t.caps[i].id) * t.caps[i].capFactor;
    if (capped < best) {
      best = capped;
      t.binding = i;
    }
  }
  t.algBw = f.value(c);
  return t;
}

double BandwidthTerms::value(const CostModelConstants& c) const {
  if (zero) return 0.0;
  double best = graphBus * factor;
  for (uint8_t i = 0; i < nCaps; i++)
    best = std::min(best, caps[i].scale * constValue(c, caps[i].id) * caps[i].capFactor);
  return best * ratio;
}

}  // namespace railtune::ncclmodel
