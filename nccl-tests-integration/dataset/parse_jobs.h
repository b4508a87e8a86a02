// What `railtune sweep parse` reads, planned before anything is read: one job per nccl-tests output, with what
// is known of it beforehand. An input is a file, or a folder: a sweep folder of `railtune sweep run` (its manifest
// says what forced each output, and which runs gave none: those are listed, never ignored), else every file below
// it but hidden files and datasets (*.jsonl).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nccl-tests-integration/dataset/dataset.h"
#include "nccl-tests-integration/dataset/from_output.h"
#include "nccl-tests-integration/run/manifest.h"

namespace railtune::sweep {

// One file to read and what is known of it before reading.
struct ParseJob {
  std::string path;
  OutputContext context;
  std::optional<uint64_t> byteLimit;  // the manifest's output_bytes: what the run wrote until it ended
};

// An input as given, with the KEY=VALUE pairs of the --env options before it (or of all, given after the last).
struct ParseInput {
  std::string path;
  std::map<std::string, std::string> env;
};

struct ParsePlan {
  std::vector<ParseJob> jobs;
  std::vector<DatasetDiagnostic> notes;  // folders' walk notes, the manifests' runs without output
  size_t rejected = 0, failed = 0;       // runs of sweep folders that gave no output to read
  size_t runsWithoutRows() const { return rejected + failed; }
};

// A rail map (fromFabric false) or fabric description read for its domains and network (the command line's
// reader: cli/sweep/shape_options.h). Throws naming the file.
using ClusterReader = std::function<DomainFacts(const std::string& path, bool fromFabric)>;

// base: the context every job starts from (--collective, the NVLink domains). A sweep folder's manifest adds
// what `sweep run` was told (--nvl-domains, --mnnvl, the rail map or fabric, read again by readCluster) where the
// command line told nothing, and its probe run's NCCL lines (SweepSpec::probe) to every run of the folder.
// Throws std::runtime_error naming a sweep folder's manifest that cannot be read, or when the inputs hold no
// output and no run.
ParsePlan planParseJobs(const std::vector<ParseInput>& inputs, const OutputContext& base,
                        const ClusterReader& readCluster = nullptr);

// "allreduce.ring-ll128.r0 (ring/ll128): failed, exit 3: <reason>; no rows (runs/allreduce.ring-ll128.r0.txt)"
std::string runWithoutRows(const ManifestEntry& entry);

}  // namespace railtune::sweep
