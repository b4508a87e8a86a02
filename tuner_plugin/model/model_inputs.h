// What the cost model knows about one communicator, built once at tuner init from communicator-wide
// values only (architecture rule 2): NCCL's nRanks, nNodes, NVLink-domain info and constants, and the
// cluster-wide part of the rail map. No field may depend on the host the process runs on: the rail map
// contributes the minimum over all hosts, never this host's own section, so every rank of a communicator
// builds the same inputs and the model gives every rank the same advice.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/rail_map.h"
#include "tuner_plugin/engine.h"

namespace railtune::tuner::model {

// Hardware facts not carried by NCCL's tuner arguments nor by the rail map (which has no NIC speed).
// Defaults: a GB200 NVL72 tray (formats-and-figures §2.2: 4 GPUs and 4 ConnectX-7 400 Gb/s per tray).
struct FabricDefaults {
  double nicGbps = 400.0;  // one NIC (all its planes together), Gb/s
  int gpusPerTray = 4;     // GPUs per host when an NVLink domain spans several hosts
};

// The fabric as the model sees it. Bandwidths are per direction, GB/s.
struct FabricFacts {
  double nvlinkBwPerGpu = 0;  // NVLink bandwidth of one GPU inside its domain, as NCCL models it
  double netBwPerGpu = 0;     // network bandwidth per GPU: rails x NIC speed / GPUs per host
  int gpusPerHost = 0;
  // GPUs of the largest host: the rail map's, else the defaults' GPUs per tray. A domain with more ranks than
  // this spans hosts (domainSpansHosts).
  int largestHostGpus = 0;
  int railsPerHost = 0;
  int planes = 1;
  double nicGbps = 0;
  bool fromRailMap = false;  // false: the defaults below were used
  bool hostsDiffer = false;  // the rail map's hosts differ; the minimum over hosts was taken
};

struct ModelInputs {
  int nRanks = 0;
  int nNodes = 0;          // NCCL's nNodes: NVLink domains under MNNVL, hosts otherwise
  int nDomains = 0;        // NVLink domains (NCCL's nvlDomainInfo, else nNodes)
  int ranksPerDomain = 0;  // the smallest domain's ranks (else nRanks / nNodes)
  bool nvlFromNccl = false;
  CostModelConstants constants{};  // NCCL's (v5+), else NCCL 2.30's defaults
  bool constantsFromNccl = false;
  FabricFacts fabric;
};

// Whether the NVLink domain spans hosts (multi-node NVLink: several trays of an NVL72 rack under MNNVL): it has
// more ranks than the largest host has GPUs. NCCL's nvlDomainInfo gives a domain's ranks, not its hosts; the
// fabric gives a host's GPUs. An NVL72's 8 ranks on 2 trays of 4 span hosts; a one-tray domain does not.
inline bool domainSpansHosts(const ModelInputs& in) {
  return in.ranksPerDomain > in.fabric.largestHostGpus;
}

// Messages from building the inputs: errors (an unreadable rail map: the defaults were used instead)
// and notes (what was assumed or reduced). The caller logs them once.
struct BuildMessages {
  std::vector<std::string> errors;
  std::vector<std::string> notes;
};

// Inputs from NCCL's values and an already parsed rail map (nullptr: none). `constants` is what NCCL
// passed to init (nullptr for tuner ABI v2..v4).
ModelInputs makeModelInputs(const CommInfo& comm, const CostModelConstants* constants, const formats::RailMap* railMap,
                            const FabricDefaults& defaults, BuildMessages& messages);

// The same, reading the rail map from `path` (the value of RAILTUNE_RAIL_MAP; empty: none). A file that
// cannot be read or parsed adds one error naming it and falls back to the defaults.
ModelInputs fromRailMapFile(const std::string& path, const CommInfo& comm, const CostModelConstants* constants,
                            const FabricDefaults& defaults, BuildMessages& messages);

}  // namespace railtune::tuner::model
