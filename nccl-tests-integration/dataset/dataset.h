// The sweep dataset (railtune.sweep-dataset/1, docs/formats.md#sweep-dataset): one JSON line per row of an
// nccl-tests table, with what forced the run (the choice and the environment it came from), the
// communicator's shape as NCCL and the tuner rules count it, and both halves of the measurement. Every
// `railtune sweep` step after `parse` reads it; rows with a non-zero #wrong are kept and flagged, never used.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "nccl-tests-integration/dataset/call_mode.h"
#include "nccl-tests-integration/dataset/choice.h"
#include "nccl-tests-integration/dataset/net_env.h"
#include "nccl-tests-integration/parse/nccl_tests_text.h"

namespace railtune::sweep {

inline constexpr std::string_view kDatasetSchema = "railtune.sweep-dataset/1";

// The network between the communicator's nodes, as far as it is known. transport: NCCL's network ("Using network
// %s": "IB", "Socket", a net plugin's name such as "AWS Libfabric"), "nvlink" when the communicator is one node
// (no network in its way), "" unknown (written "unknown"). linkLayer: NCCL's word for the IB devices' link ("IB",
// "RoCE"; a rail map's or fabric's InfiniBand / Ethernet in the same words). nicGbps and nicsPerGpu: from a rail map
// or fabric (per port: the slowest; NICs of one GPU). name: the cluster's name, informational. Equality is on
// transport, link layer and NIC speed only, so that two sweeps of one cluster pool whatever else they knew.
struct FabricId {
  std::string transport, linkLayer;
  int nicGbps = 0, nicsPerGpu = 0;
  std::string name;
  bool operator==(const FabricId& o) const {
    return std::tie(transport, linkLayer, nicGbps) == std::tie(o.transport, o.linkLayer, o.nicGbps);
  }
  auto operator<=>(const FabricId& o) const {
    return std::tie(transport, linkLayer, nicGbps) <=> std::tie(o.transport, o.linkLayer, o.nicGbps);
  }
  bool known() const { return !transport.empty() || !linkLayer.empty() || nicGbps > 0; }
  std::string label() const;  // "IB/RoCE 400G", "Socket", "" when unknown or nvlink
};

// Where a shape's nodes and NVLink domains came from, best first: a rail map or a fabric (each host's domain), an
// option of `sweep parse` (--nvl-domains, --mnnvl), `sweep run`'s manifest, NCCL's own "comm ... nNodes %d ...
// MNNVL %d" line, else assumed (every host its own domain: on an NVL72 rack that is wrong, and said).
enum class ShapeSource { Assumed, NcclLog, Manifest, Option, Fabric, RailMap };
const char* shapeSourceName(ShapeSource s);  // "assumed", "nccl-log", "manifest", "option", "fabric", "rail-map"
std::optional<ShapeSource> shapeSourceFromName(std::string_view name);

// The communicator as the tuner rules match it (docs/formats/tuner-rules.schema.json): nRanks, NCCL's nNodes
// (with MNNVL an NVLink domain of several hosts is one node), NVLink domains and ranks in each (0 when the
// domains differ in size), with the GPU model (the device lines' name, "NVIDIA GB300", exact) and the fabric, so
// that two clusters are never pooled into one group. hosts: the distinct host names of the device lines. source:
// where nodes and domains came from, outside equality (the same communicator, however it was learnt).
struct Shape {
  int ranks = 0, hosts = 0, nodes = 0, nvlDomains = 0, ranksPerDomain = 0;
  std::string gpu;
  FabricId fabric;
  ShapeSource source = ShapeSource::Assumed;
  // The members equality compares (all but source).
  auto tied() const { return std::tie(ranks, hosts, nodes, nvlDomains, ranksPerDomain, gpu, fabric); }
  bool operator==(const Shape& o) const { return tied() == o.tied(); }
  auto operator<=>(const Shape& o) const { return tied() <=> o.tied(); }
  // "8 ranks, 2 nodes, 1 NVLink domain of 8", then "; NVIDIA GB300, IB/RoCE 400G" where known.
  std::string label() const;
  std::string counts() const;   // the first part only: what the tuner rules can tell apart
  std::string cluster() const;  // "NVIDIA GB300, IB/RoCE 400G NICs", "" when neither is known
};

// Where a row's choice came from.
enum class ForcedBy { None, Manifest, NcclLog, Option };
const char* forcedByName(ForcedBy f);  // "none", "manifest", "nccl-log", "option"

struct DatasetRow {
  std::string source;      // the file as given
  int line = 0;            // the row's line in it (1-based; 1 for a -J JSON file, which is one document)
  int run = 0;             // which run of the file (0-based)
  std::string test;        // "all_reduce_perf" ("" when the output did not say)
  std::string collective;  // "allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", ...
  uint64_t size = 0, count = 0;
  std::string type, redop;
  int root = -1;
  Choice choice;
  ForcedBy forcedBy = ForcedBy::None;
  std::map<std::string, std::string> env;  // the NCCL_* / RAILTUNE_* variables that forced it
  NetEnv netEnv;                           // the network setting it was measured under (net_env.h); may be empty
  CallMode call;  // nccl-tests' -R/-D/-x (call_mode.h): rows NCCL may run without the tuner are kept apart
  Shape shape;
  Measurement outOfPlace, inPlace;
  bool valid = true;  // false: a non-zero #wrong in either half (flagged, never used for rules)
  int repeat = 0;     // the manifest's repeat index (0 otherwise)
  std::string ncclVersion, testsVersion;
  std::string gpu;  // the device lines' GPU name: shape.gpu, kept here too for the readers of the row
};

// One JSON line, with its trailing newline, appended to out. Keys are written in one order; absent values
// (N/A) are left out.
void appendDatasetRow(const DatasetRow& row, std::string& out);

// The same line in two steps, for the millions of rows of one run: the parts every row of a run shares (all but
// line, size, count, type, redop, root, the measurements and valid) serialized once, then each row between them.
struct DatasetLineParts {
  std::string head, afterLine, afterRoot, tail;
};
DatasetLineParts datasetLineParts(const DatasetRow& run);
void appendDatasetRow(const DatasetRow& row, const DatasetLineParts& runParts, std::string& out);

struct DatasetDiagnostic {
  std::string source;
  size_t line = 0;
  std::string message;
};

// What `sweep parse` could not use of one input file, written after the file's rows when there was any: the
// rows it dropped (impossible values, wrong column counts, cut short: parse/row_bounds.h) and the rows of runs
// whose collective is unknown, with the first reasons. Its own schema, so that rows stay railtune.sweep-dataset/1
// (docs/formats.md#sweep-dataset-railtunesweep-dataset1).
inline constexpr std::string_view kDatasetSourceSchema = "railtune.sweep-dataset-source/1";
struct DatasetSource {
  std::string source;
  size_t runs = 0, rows = 0, flagged = 0, badRows = 0, skippedRows = 0;
  std::vector<std::pair<size_t, std::string>> bad;  // (line, reason) of the first bad rows
};
inline constexpr size_t kDatasetSourceReasons = 20;  // at most this many reasons are written
void appendDatasetSource(const DatasetSource& source, std::string& out);

struct Dataset {
  std::vector<DatasetRow> rows;
  std::vector<DatasetDiagnostic> diagnostics;  // lines skipped: not JSON, another schema, a bad field
};

// Reads railtune.sweep-dataset/1 lines (blank lines allowed), handing each row to sink as it is read (the
// row is reused: copy what must outlive the call). A bad line is one diagnostic naming source:line and is
// skipped; the reader never throws on content. text must be followed by simdjson's padding (64 readable
// bytes); readDatasetFile provides it. readDatasetFile throws std::runtime_error naming the file when it
// cannot be read (missing, a directory, a FIFO: only regular files are opened).
// Lines of railtune.sweep-dataset-source/1 go to sources (skipped when none is given).
using DatasetSink = std::function<void(const DatasetRow&)>;
using DatasetSourceSink = std::function<void(const DatasetSource&)>;
void readDatasetText(std::string_view paddedText, const std::string& source, const DatasetSink& sink,
                     std::vector<DatasetDiagnostic>& diagnostics, const DatasetSourceSink& sources = nullptr);
void readDatasetFile(const std::string& path, const DatasetSink& sink, std::vector<DatasetDiagnostic>& diagnostics,
                     const DatasetSourceSink& sources = nullptr);
Dataset readDatasetFiles(const std::vector<std::string>& paths);  // every row kept

}  // namespace railtune::sweep
