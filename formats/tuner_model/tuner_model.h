// The fitted-model file (`railtune.tuner-model/1`, docs/formats/tuner-model.schema.json): NCCL's own cost model
// fitted to sweeps, one fit per GPU model and fabric. `railtune sweep fit` writes it, the tuner plugin
// (RAILTUNE_TUNER_MODEL_FILE) and `sweep compare --fitted` read it. A fit says what it applies to, what it was
// fitted on, the cost-model constants the data identified (each beside NCCL's default; a constant the data
// could not identify has no value, and NCCL's stays), the per-cell corrections the constants cannot express,
// the same as an affine map of NCCL's cost table for tuners without constants (ABI v3/v4), its validation, and
// per scale bucket whether it is usable.
//
// Rows of NCCL's per-GPU arrays are named by GPU generation, never by index: NCCL 2.31's tuner v7 has five
// compute-capability rows where v5/v6 have four. The reader is strict (unknown, missing and mistyped fields,
// values out of range, an NCCL default that is not NCCL's: "FILE:LINE:COLUMN: field '...': reason") and
// uses only header-only nlohmann-json, so the tuner's .so can carry it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "formats/nccl_defaults.h"

namespace railtune::formats::tuner_model {

inline constexpr size_t kMaxFileBytes = size_t{4} << 20;  // a fit is tens of KB; a file holds a few
inline constexpr size_t kMaxFits = 256;
inline constexpr size_t kMaxListItems = 4096;  // datasets, shapes, corrections, notes of one fit or file
inline constexpr size_t kMaxTextBytes = 4096;  // paths, why texts, shape labels

// NCCL's tuning scale (tuning.cc:267@v2.30.7, index2 = nNodes <= 2 ? nNodes-1 : 2): "1node", "2nodes", "4nodes"
// (3 nodes fall in the last).
enum class Scale : uint8_t { OneNode = 0, TwoNodes = 1, FourNodes = 2 };
inline constexpr int kNumScales = 3;
// GPU generations, NCCL's compCapIndex (tuning.cc:263-266@v2.30.7); the value is the v5/v6 row.
enum class Generation : uint8_t { Volta = 0, Ampere = 1, Hopper = 2, Blackwell = 3 };
// NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET: "nvlink", "pci", "net".
enum class HwLink : uint8_t { NvLink = 0, Pci = 1, Net = 2 };
// The per-channel caps: perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws:
// "ring_ll128", "tree_ll128", "tree", "nvls_tree".
enum class CapArray : uint8_t { RingLL128 = 0, TreeLL128 = 1, Tree = 2, NvlsTree = 3 };
inline constexpr int kNumCapArrays = 4;
// llMaxBws' row across nodes is the CPU vendor's (tuning.cc:269-271@v2.30.7): 0 unless AMD or mixed.
enum class CpuRow : uint8_t { NotAmd = 0, AmdOrMixed = 1 };              // "not_amd", "amd_or_mixed"
enum class Graphs : uint8_t { Emulated, NcclTuningLog };                 // "emulated", "nccl-tuning-log"
enum class ValidationStatus : uint8_t { Complete, Truncated, Skipped };  // "complete", "truncated", "skipped"

struct Fabric {
  std::string transport;                 // NCCL's "Using network %s" name ("IB", "Socket", a plugin's), or "nvlink"
  std::optional<std::string> linkLayer;  // "InfiniBand" or "Ethernet" (RoCE), as the rail map says
  std::optional<double> nicGbps;         // each NIC's speed
};

struct AppliesTo {
  std::string gpu;  // NCCL's device name as nccl-tests prints it: "NVIDIA GB300"
  Generation generation = Generation::Blackwell;
  Fabric fabric;
  std::vector<std::string> nccl;  // "2.28", "2.30": the releases the fit was validated against
};

struct Basis {
  NcclRelease nccl = NcclRelease::V2_30;  // the emulated release whose formulas and defaults were fitted
  std::optional<std::string> profile;     // the emulator's hardware profile ("gb300-nvl72")
  Graphs graphs = Graphs::Emulated;
};

struct DatasetRef {
  std::string path;
  std::string digest;  // "ALGORITHM:HEX", e.g. "fnv1a64:0123456789abcdef"
  uint64_t rows = 0;   // rows used
};

struct ShapeRef {
  int ranks = 1, nodes = 1, nvlDomains = 1, ranksPerDomain = 1;  // ranksPerDomain 0: uneven domains
  uint64_t minBytes = 0, maxBytes = 0;
  int cells = 1;  // (algorithm, protocol) cells measured
};

struct Data {
  std::vector<DatasetRef> datasets;
  std::vector<ShapeRef> shapes;
  std::vector<Collective> collectives;  // with data; others move only through shared constants, unvalidated
};

// One constant of NCCL's cost model: NCCL's default for the fit's basis and row, and the fitted value when
// the data identified it (absent: the tuner leaves NCCL's). `why` says why not, or how it was found.
struct Constant {
  double nccl = 0;
  std::optional<double> value;
  std::string why;
};
struct LlConstant : Constant {
  std::optional<CpuRow> cpu;  // multi-node entries only: the llMaxBws row across nodes
};

// A constant the fit did not list is not in the file (the tuner leaves NCCL's).
struct Constants {
  std::optional<Constant> baseLatencyUs[kNumAlgorithms][kNumProtocols];
  std::optional<Constant> hwLatencyUs[kNumHwLinks][kNumAlgorithms][kNumProtocols];
  std::optional<LlConstant> llMaxBwGbps[kNumScales];                     // row: generation on 1 node, else cpu
  std::optional<Constant> perChannelMaxGbps[kNumCapArrays][kNumScales];  // row: the fit's generation
};

// A communicator's exact shape as every rank's tuner sees it at init (nRanks, nNodes: tuner v3+ init), so that
// every rank of a communicator decides alike.
struct CommShape {
  int ranks = 1, nodes = 1;
  auto operator<=>(const CommShape&) const = default;
  bool operator==(const CommShape&) const = default;
};
std::string commShapeLabel(const CommShape& s);  // "8 ranks, 1 node"

// t' = timeScale * t + timeAddUs for one cost-table cell at one scale; collective nullopt = "*" (every
// collective without an entry of its own); shape nullopt = every communicator of the scale, else only the
// communicator of exactly that shape (a measured shape's own correction, which says nothing of another shape).
struct CellAffine {
  std::optional<Collective> collective;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  Scale scale = Scale::OneNode;
  double timeScale = 1;
  double timeAddUs = 0;
  std::optional<CommShape> shape;  // last, so that entries written before it still brace-initialize
};
struct Correction : CellAffine {
  std::string why;  // the tuning.cc line with no constant for it
};

struct RegretAt {
  std::string shape;  // the shape's label: "16 ranks, 1 node, 1 NVLink domain of 16"
  Collective collective = Collective::AllReduce;
  uint64_t bytes = 0;
};
// Regret = best measured busbw / busbw of the pick - 1, as a fraction. worst and mean are given when points > 0.
struct RegretStats {
  uint64_t points = 0;
  double worst = 0, mean = 0;
  std::optional<RegretAt> worstAt;
  std::string why;  // e.g. why no point could be held out
};

struct Validation {
  double sizeTarget = 0.05, shapeTarget = 0.10;  // worst regret allowed at held-out sizes and shapes
  ValidationStatus status = ValidationStatus::Complete;
  RegretStats inSample, leaveOneSizeOut, leaveOneShapeOut, ncclDefault;
  std::vector<std::string> heldOutShapes;  // the shapes leave-one-shape-out predicted
};

// A scale bucket's verdict. usable: everywhere at that scale (held-out sizes and held-out shapes both within their
// targets). measuredShapesUsable: held-out sizes within target but a held-out shape not (or the fit keys
// corrections by shape): the fit applies only to a communicator of one of `shapes`, the measured ones; NCCL
// decides at any other. Both need a complete validation.
struct Verdict {
  bool usable = false;
  std::string why;
  bool measuredShapesUsable = false;
  std::vector<CommShape> shapes;  // measuredShapesUsable only: where the fit applies
  // usable only: the measured rank counts' range, the only one the fit applies within (leave one shape out checks
  // a shape between or next to measured ones, never 72 ranks from 4 and 8); 0: any (files written before it).
  int minRanks = 0, maxRanks = 0;
};

// Whether a fit's verdict at a communicator's scale lets the fit apply to that exact shape.
bool verdictApplies(const Verdict& v, const CommShape& shape);

struct Fit {
  AppliesTo appliesTo;
  Basis basis;
  Data data;
  Constants constants;
  std::vector<Correction> corrections;     // for tuners given NCCL's constants (ABI v5+)
  std::vector<CellAffine> tableTransform;  // ABI v3/v4: NCCL's default cost to the fitted cost, per cell and scale
  Validation validation;
  std::array<Verdict, kNumScales> usable;  // by Scale
};

struct TunerModel {
  std::string generatedBy;         // "railtune sweep fit 0.30"
  std::string created;             // UTC, "2026-12-06T16:00:00Z"
  std::vector<Fit> fits;           // no two with the same GPU, fabric and an NCCL release in common
  std::vector<std::string> notes;  // what was not fitted, and why
};

// "FILE:LINE:COLUMN: field 'fits[0].constants...': reason", or "FILE: reason" for a file that cannot be read.
struct TunerModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

TunerModel parseTunerModel(std::string_view text, const std::string& source);  // throws TunerModelError
// Only a regular file of at most kMaxFileBytes (common/regular_file.h); throws TunerModelError.
TunerModel readTunerModelFile(const std::string& path);
// Fixed key order, one line per constant, correction and shape. Throws TunerModelError when the model breaks
// the format (a NaN, a negative latency, ...): the writer never writes a file its reader refuses.
std::string writeTunerModel(const TunerModel& model);

// Names as the file spells them; the lookups return false for an unknown name.
const char* scaleName(Scale s);  // "1node"
const char* generationName(Generation g);
const char* hwLinkName(HwLink l);
const char* capArrayName(CapArray c);
const char* cpuRowName(CpuRow r);
const char* graphsName(Graphs g);
const char* validationStatusName(ValidationStatus s);
const char* releaseName(NcclRelease r);  // "2.28", "2.30"
bool scaleFromName(std::string_view name, Scale* out);
bool generationFromName(std::string_view name, Generation* out);
bool hwLinkFromName(std::string_view name, HwLink* out);
bool capArrayFromName(std::string_view name, CapArray* out);
bool cpuRowFromName(std::string_view name, CpuRow* out);
bool graphsFromName(std::string_view name, Graphs* out);
bool validationStatusFromName(std::string_view name, ValidationStatus* out);
bool releaseFromName(std::string_view name, NcclRelease* out);

// NCCL's scale bucket of a communicator with nNodes nodes (>= 1).
Scale scaleOfNodes(int nNodes);
// NCCL's default for a constant the file lists, at the fit's basis and rows (what the reader checks `nccl` against).
double ncclDefaultBaseLatency(NcclRelease r, Algorithm a, Protocol p);
double ncclDefaultHwLatency(NcclRelease r, HwLink l, Algorithm a, Protocol p);
double ncclDefaultLlMaxBw(NcclRelease r, Generation g, Scale s, std::optional<CpuRow> cpu);
double ncclDefaultPerChannelMax(NcclRelease r, Generation g, CapArray c, Scale s);

// Writes every constant the fit identified (those with a value) into `constants`, a v5/v6-shaped table (NCCL's
// ncclTunerConstants_v5_t): latencies at their cell, caps at the fit's generation row, llMaxBws on one node at the
// generation row and across nodes at the CPU row the file names. Everything else is left as it was. Whether the fit
// applies (GPU, fabric, release, the scale's verdict) is the caller's to decide first.
void applyFittedConstants(const Fit& fit, CostModelConstants* constants);

// The correction (or table transform) for one call of a communicator of `shape` (null: a shape no entry keys):
// the most specific entry that matches, in this order: the shape's and the collective's own, the shape's "*",
// the scale's (no shape) collective's own, the scale's "*"; else null. An entry keyed by another shape never
// applies.
template <typename Entry>
const Entry* cellEntry(const std::vector<Entry>& entries, Collective c, Algorithm a, Protocol p, Scale s,
                       const CommShape* shape = nullptr) {
  const Entry* best = nullptr;
  int bestRank = 0;
  for (const Entry& e : entries) {
    if (e.algorithm != a || e.protocol != p || e.scale != s) continue;
    if (e.shape && (shape == nullptr || *e.shape != *shape)) continue;
    if (e.collective && *e.collective != c) continue;
    const int rank = (e.shape ? 2 : 0) + (e.collective ? 1 : 0) + 1;
    if (rank > bestRank) best = &e, bestRank = rank;
  }
  return best;
}

}  // namespace railtune::formats::tuner_model
