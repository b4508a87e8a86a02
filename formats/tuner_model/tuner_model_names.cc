// The fitted-model file's names for NCCL's rows and columns, and NCCL's defaults at those names.
#include <algorithm>
#include <iterator>

#include "formats/tuner_model/tuner_model.h"

namespace railtune::formats::tuner_model {
namespace {

constexpr const char* kScales[] = {"1node", "2nodes", "4nodes"};
constexpr const char* kGenerations[] = {"volta", "ampere", "hopper", "blackwell"};
constexpr const char* kHwLinks[] = {"nvlink", "pci", "net"};
constexpr const char* kCapArrays[] = {"ring_ll128", "tree_ll128", "tree", "nvls_tree"};
constexpr const char* kCpuRows[] = {"not_amd", "amd_or_mixed"};
constexpr const char* kGraphs[] = {"emulated", "nccl-tuning-log"};
constexpr const char* kStatuses[] = {"complete", "truncated", "skipped"};
constexpr const char* kReleases[] = {"2.28", "2.30"};  // NcclRelease::V2_28, V2_30

template <size_t N>
const char* nameAt(const char* const (&names)[N], int index) {
  return index >= 0 && static_cast<size_t>(index) < N ? names[index] : "unknown";
}

template <typename Enum, size_t N>
bool fromName(const char* const (&names)[N], std::string_view name, Enum* out) {
  const auto it = std::find(std::begin(names), std::end(names), name);
  if (it == std::end(names)) return false;
  *out = static_cast<Enum>(it - std::begin(names));
  return true;
}

}  // namespace

const char* scaleName(Scale s) {
  return nameAt(kScales, static_cast<int>(s));
}
const char* generationName(Generation g) {
  return nameAt(kGenerations, static_cast<int>(g));
}
const char* hwLinkName(HwLink l) {
  return nameAt(kHwLinks, static_cast<int>(l));
}
const char* capArrayName(CapArray c) {
  return nameAt(kCapArrays, static_cast<int>(c));
}
const char* cpuRowName(CpuRow r) {
  return nameAt(kCpuRows, static_cast<int>(r));
}
const char* graphsName(Graphs g) {
  return nameAt(kGraphs, static_cast<int>(g));
}
const char* validationStatusName(ValidationStatus s) {
  return nameAt(kStatuses, static_cast<int>(s));
}
const char* releaseName(NcclRelease r) {
  return nameAt(kReleases, static_cast<int>(r));
}

bool scaleFromName(std::string_view name, Scale* out) {
  return fromName(kScales, name, out);
}
bool generationFromName(std::string_view name, Generation* out) {
  return fromName(kGenerations, name, out);
}
bool hwLinkFromName(std::string_view name, HwLink* out) {
  return fromName(kHwLinks, name, out);
}
bool capArrayFromName(std::string_view name, CapArray* out) {
  return fromName(kCapArrays, name, out);
}
bool cpuRowFromName(std::string_view name, CpuRow* out) {
  return fromName(kCpuRows, name, out);
}
bool graphsFromName(std::string_view name, Graphs* out) {
  return fromName(kGraphs, name, out);
}
bool validationStatusFromName(std::string_view name, ValidationStatus* out) {
  return fromName(kStatuses, name, out);
}
bool releaseFromName(std::string_view name, NcclRelease* out) {
  return fromName(kReleases, name, out);
}

Scale scaleOfNodes(int nNodes) {
  return nNodes <= 1 ? Scale::OneNode : nNodes == 2 ? Scale::TwoNodes : Scale::FourNodes;
}

std::string commShapeLabel(const CommShape& s) {
  return std::to_string(s.ranks) + (s.ranks == 1 ? " rank, " : " ranks, ") + std::to_string(s.nodes) +
         (s.nodes == 1 ? " node" : " nodes");
}

bool verdictApplies(const Verdict& v, const CommShape& shape) {
  if (v.usable) return v.maxRanks == 0 || (shape.ranks >= v.minRanks && shape.ranks <= v.maxRanks);
  return v.measuredShapesUsable && std::find(v.shapes.begin(), v.shapes.end(), shape) != v.shapes.end();
}

double ncclDefaultBaseLatency(NcclRelease r, Algorithm a, Protocol p) {
  return ncclDefaultConstants(r).baseLatencies[static_cast<int>(a)][static_cast<int>(p)];
}

double ncclDefaultHwLatency(NcclRelease r, HwLink l, Algorithm a, Protocol p) {
  return ncclDefaultConstants(r).hwLatencies[static_cast<int>(l)][static_cast<int>(a)][static_cast<int>(p)];
}

// On one node llMaxBws' row is the GPU generation's; across nodes it is the CPU vendor's (tuning.cc:269-271@v2.30.7).
double ncclDefaultLlMaxBw(NcclRelease r, Generation g, Scale s, std::optional<CpuRow> cpu) {
  const int row = s == Scale::OneNode || !cpu ? static_cast<int>(g) : static_cast<int>(*cpu);
  return ncclDefaultConstants(r).llMaxBws[row][static_cast<int>(s)];
}

double ncclDefaultPerChannelMax(NcclRelease r, Generation g, CapArray c, Scale s) {
  const CostModelConstants d = ncclDefaultConstants(r);
  const int row = static_cast<int>(g), col = static_cast<int>(s);
  switch (c) {
    case CapArray::RingLL128:
      return d.perChMaxRingLL128Bws[row][col];
    case CapArray::TreeLL128:
      return d.perChMaxTreeLL128Bws[row][col];
    case CapArray::Tree:
      return d.perChMaxTreeBws[row][col];
    case CapArray::NvlsTree:
      return d.perChMaxNVLSTreeBws[row][col];
  }
  return 0;
}

}  // namespace railtune::formats::tuner_model
