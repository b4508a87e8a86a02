// `railtune tuner decisions`' computation: for each collective and size, NCCL's own pick (emulated from
// the profile's graph data, or from NCCL's TUNING log), then the same cost table handed to the real tuner
// plugin through the emulator's loader and TunerDriver, NCCL's pick over what the plugin returned, and
// the reason, recomputed with the rules library over the same rules and the same table. A plugin whose
// result differs from what the rules say gives a MISMATCH row (a bug in the plugin or in the rules
// library; the command exits 1).
//
// The plugin reads its configuration from the environment as it would inside NCCL
// (RAILTUNE_TUNER_CONFIG, else NCCL_TUNER_CONFIG_FILE; RAILTUNE_RAIL_MAP; RAILTUNE_TUNER_MODEL;
// RAILTUNE_TUNER_MODEL_FILE); the reasons are recomputed from the same variables, so callers set them before
// computeDecisions. With a fitted model the plugin is loaded a second time with the fit alone (rules and the
// cost model off) for the `fitted` column (fit_column.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "emulator/nccl_model/nccl_model.h"
#include "emulator/tuner_decisions/report.h"

namespace railtune::cli {

// The report's types live with the emulator that computes NCCL's side of it (emulator/tuner_decisions/).
using emu::CellChoice;
using emu::Communicator;
using emu::CommunicatorRequest;
using emu::DecisionReason;
using emu::DecisionRow;
using emu::DecisionsReport;
using emu::describeCommunicator;
using emu::resolveCommunicator;

struct DecisionsRequest {
  CommunicatorRequest comm;
  emu::NcclBehaviour nccl = emu::NcclBehaviour::V2_30;
  std::string pluginPath;     // the tuner library, opened as NCCL_TUNER_PLUGIN=<path>
  std::string tuningLogPath;  // "" = emulated NCCL; else NCCL's NCCL_DEBUG_SUBSYS=TUNING output
  std::vector<formats::Collective> collectives = defaultCollectives();
  uint64_t minBytes = 8;
  uint64_t maxBytes = uint64_t{16} << 30;
  ncclmodel::NcclKnobs knobs;  // NCCL_ALGO / NCCL_PROTO as NCCL would read them
  emu::BypassSettings bypass;  // the call's datatype, registration, CTA policy: the paths no tuner sees

  static std::vector<formats::Collective>
  defaultCollectives();  // AllReduce, AllGather, ReduceScatter, Broadcast, Reduce
};

// The sizes of a request: every power of two from minBytes to maxBytes. Throws std::invalid_argument
// when the range holds none.
std::vector<uint64_t> requestSizes(uint64_t minBytes, uint64_t maxBytes);

// Throws std::invalid_argument for a bad request (shape, sizes), ncclmodel::GraphDataError when the profile
// has no graph data for the shape, ncclmodel::TuningLogError for a bad log, std::runtime_error when the
// plugin cannot be loaded or fails where NCCL would fail the communicator.
DecisionsReport computeDecisions(const DecisionsRequest& request);

}  // namespace railtune::cli
