// The tuner engine interface, in railtune's own types: the engine never sees an NCCL struct. The
// adapters (one per NCCL tuner ABI version) and the boundary translate; the engine decides.
// Decisions must be pure functions of communicator-wide inputs (architecture rule 2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/log.h"
#include "formats/nccl_enums.h"

namespace railtune::tuner {

// NCCL's vocabulary (formats/nccl_enums.h), named unqualified in the tuner.
using formats::Algorithm;
using formats::algorithmName;
using formats::Collective;
using formats::collectiveName;
using formats::CostModelConstants;  // our copy of NCCL's constants (v5+): an engine may edit it in init
using formats::kNumAlgorithms;
using formats::kNumCollectives;
using formats::kNumCompCaps;
using formats::kNumHwLinks;
using formats::kNumProtocols;
using formats::kNumTuningScales;
using formats::Protocol;
using formats::protocolName;

struct NvlDomainInfo {
  int nDomains = 0;
  int minRanksPerDomain = 0;
  int maxRanksPerDomain = 0;
};

// What a communicator looks like to the engine. Older ABI versions know less (optional fields).
struct CommInfo {
  std::optional<uint64_t> commId;  // v5+
  size_t nRanks = 0;
  size_t nNodes = 0;                 // NVLink domains under MNNVL, trays otherwise
  std::optional<NvlDomainInfo> nvl;  // v5+
  int abiVersion = 0;                // the tuner ABI NCCL bound (2..6): what NCCL passes, and its release, coarsely
};

// A view over NCCL's float[7][3] cost table (us per algorithm/protocol; negative = not available).
// Only entries NCCL enabled may be lowered; the helpers enforce that.
class CostTableView {
 public:
  explicit CostTableView(float (*table)[kNumProtocols]) : table_(table) {}
  float cost(Algorithm a, Protocol p) const { return table_[index(a)][index(p)]; }
  bool available(Algorithm a, Protocol p) const { return cost(a, p) >= 0.0f; }
  // Makes (a, p) NCCL's pick by setting it to 0.0; refuses (returns false) if NCCL disabled it.
  bool prefer(Algorithm a, Protocol p);
  // Replaces the cost of an entry NCCL enabled (a fitted correction; cost >= 0); refuses (returns false) if
  // NCCL disabled it.
  bool reprice(Algorithm a, Protocol p, float cost);
  // Removes (a, p) from NCCL's choice.
  void exclude(Algorithm a, Protocol p) { table_[index(a)][index(p)] = -1.0f; }

 private:
  static int index(Algorithm a) { return static_cast<int>(a); }
  static int index(Protocol p) { return static_cast<int>(p); }
  float (*table_)[kNumProtocols];
};

struct CollQuery {
  Collective collective = Collective::AllReduce;
  size_t nBytes = 0;
  int numPipeOps = 1;
  bool registeredBuffers = false;  // v4+; false when the ABI does not tell
};

struct CollDecision {
  int nChannels = 0;  // 0 = keep NCCL's choice
};

struct ChunkQuery {
  Collective collective = Collective::AllReduce;
  size_t nBytes = 0;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int nChannels = 0;
};

// One engine per communicator. Methods may throw; the boundary contains every exception.
// getCollInfo and chunkSize run on NCCL's enqueue path: no allocation, no locks, no I/O.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Called once from init with NCCL's constants (v5+ only); edits feed NCCL's own cost model.
  virtual void tuneConstants(CostModelConstants& constants) = 0;
  // Lowers/excludes table entries and may set a channel count.
  virtual void decide(const CollQuery& query, CostTableView table, CollDecision& decision) = 0;
  // A chunk size in bytes, or nullopt to keep NCCL's.
  virtual std::optional<size_t> chunkSize(const ChunkQuery& query) = 0;
  // What the engine has to report when the communicator is destroyed ("" = nothing); may allocate.
  virtual std::string summary() const { return ""; }
};

// "No opinion": NCCL keeps every decision. Used until rules arrive, and whenever init fails.
class PassThroughEngine final : public Engine {
 public:
  const char* name() const override { return "pass-through"; }
  void tuneConstants(CostModelConstants&) override {}
  void decide(const CollQuery&, CostTableView, CollDecision&) override {}
  std::optional<size_t> chunkSize(const ChunkQuery&) override { return std::nullopt; }
};

struct TunerConfig;  // tuner_config.h

// The engine for a new communicator, from the resolved configuration and NCCL's cost-model constants
// (null before tuner v5): rules and the model as configured, else pass-through.
std::unique_ptr<Engine> makeEngine(const CommInfo& comm, const TunerConfig& config, const CostModelConstants* constants,
                                   const Log& log);

}  // namespace railtune::tuner
