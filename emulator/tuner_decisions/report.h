// One row of `railtune tuner decisions` per collective and size, and the report around the rows. The
// writers (render.h) take their columns from kDecisionColumns, so a new column is one field here
// and one entry there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "emulator/nccl_model/bypass.h"
#include "emulator/tuner_decisions/communicator.h"
#include "formats/nccl_enums.h"

namespace railtune::emu {

// What NCCL runs: the cell it picks from the cost table and the channels it then uses.
struct CellChoice {
  formats::Algorithm algorithm = formats::Algorithm::Ring;
  formats::Protocol protocol = formats::Protocol::Simple;
  int nChannels = 0;
  bool operator==(const CellChoice&) const = default;
};

// Why railtune's column is what it is.
struct DecisionReason {
  enum class Kind { Nccl, Rule, Model, Mismatch, Fit };
  Kind kind = Kind::Nccl;
  uint32_t rule = 0;   // Rule (and Mismatch against a rule): the rule's number in its file
  std::string source;  // the rules file's name (Rule)
  size_t line = 0;     // the rule's line (Rule)
  std::string text;    // "rule 3 (rules.csv:12)", "NCCL", "model", "fit", "MISMATCH: ..."
};

struct DecisionRow {
  formats::Collective collective = formats::Collective::AllReduce;
  uint64_t nBytes = 0;                 // NCCL's nBytes, which equals nccl-tests' size column
  std::optional<CellChoice> nccl;      // NCCL's pick without a tuner; nullopt when every cell is IGNORE
  std::optional<CellChoice> railtune;  // NCCL's pick after the plugin edited the table
  std::optional<CellChoice> model;     // the cost model's advice over the same table (nChannels 0); nullopt
                                       // with RAILTUNE_TUNER_MODEL=off or when no cell qualifies
  DecisionReason reason;
  // With a fitted model (--model-file): NCCL's pick over the table the plugin returned with rules and the cost
  // model off, and why ("fit", "NCCL (the fit agrees)", "no fit: ..."); nullopt/"" without a model file.
  std::optional<CellChoice> fitted;
  std::string fittedReason;
  // The path NCCL takes for this call whatever the tuner says (bypass_rows.h): tuned, or a symmetric kernel
  // or the copy engines, with the conditions that held.
  ncclmodel::BypassVerdict bypass;
};

// The call the rows describe besides its size, and NCCL's variables that move the paths no tuner sees:
// --datatype, --op, --registration, --cta-policy (default NCCL_CTA_POLICY), NCCL_SYM_* and friends.
struct BypassSettings {
  ncclmodel::DataType dataType = ncclmodel::DataType::Float;  // nccl-tests' default -d float
  ncclmodel::RedOp op = ncclmodel::RedOp::Sum;
  ncclmodel::Registration registration = ncclmodel::Registration::None;
  ncclmodel::CtaPolicy cta;
  ncclmodel::BypassEnv env;
  bool given = false;  // an option or variable above was set: the path column is shown even when all rows are tuned
};

// The fitted model given to the plugin (RAILTUNE_TUNER_MODEL_FILE), for the header.
struct FitSummary {
  std::string path;                           // "" = no model file
  std::string appliesTo;                      // each fit's GPU and fabric and NCCL releases
  std::string verdict;                        // the covering fit's verdict for this communicator's scale bucket
  bool applied = false;                       // the plugin applied a fit to this communicator
  std::string status;                         // the plugin's own line: what it applied, or why nothing
  std::vector<std::string> constantsWritten;  // "baseLatencies[Ring][LL128] 14 -> 9.5"
};

// Everything the header of each output format names.
struct DecisionsReport {
  Communicator comm;
  std::string ncclVersion;  // "2.30"
  std::string ncclLabel;    // "emulated NCCL 2.30" or "NCCL 2.30 TUNING log FILE"
  std::string pluginPath;
  std::string pluginName;    // the name the plugin's table carries ("railtune")
  std::string pluginSymbol;  // "ncclTunerPlugin_v6"
  std::string configDigest;  // the digest the plugin logged at init ("" when it logged none)
  std::string rulesPath;     // the rules the reasons were recomputed from ("" when none)
  bool rulesUsable = false;  // the rules file parsed (else the plugin passes through)
  size_t ruleCount = 0;
  std::string railMapPath;       // RAILTUNE_RAIL_MAP given to the plugin ("" when none)
  bool constantsEdited = false;  // the plugin changed NCCL's cost-model constants at init
  std::string modelMode;         // RAILTUNE_TUNER_MODEL as the plugin reads it: off, advise, on
  std::string modelDescription;  // the model's inputs (describeModel), "" when off
  FitSummary fit;
  std::vector<std::string> warnings;  // the plugin's WARN lines and problems with the rules file
  std::vector<DecisionRow> rows;
  BypassSettings bypass;
  size_t mismatches() const;
  // The path column is shown: the call's settings were given, or a row is not tuned.
  bool pathShown() const;
  // Rows where railtune's pick (cell or channels) differs from NCCL's, by why: the table's last line.
  struct Changed {
    size_t rows = 0, byRules = 0, byModel = 0, byFit = 0, mismatched = 0;
    size_t bypassed = 0;  // rows NCCL decides without a tuner; never counted as changed by railtune
  };
  Changed changed() const;
};

}  // namespace railtune::emu
