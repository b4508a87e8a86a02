// The alpha-beta cost model per (algorithm, protocol): time = latency x latCount + nBytes / bandwidth,
// with NCCL's own formulas (src/graph/tuning.cc) fed by the fabric the model knows (NVLink bandwidth per
// GPU, ranks per domain, domains, network bandwidth per GPU) instead of NCCL's topology graphs, plus the
// named corrections of corrections.h. Pure arithmetic: no allocation, no lock, no I/O.
#pragma once

#include "tuner_plugin/engine.h"
#include "tuner_plugin/model/model_inputs.h"

namespace railtune::tuner::model {

// NCCL's nvlsEfficiency for Blackwell (src/graph/tuning.cc), used where no correction applies.
inline constexpr double kNcclNvlsEfficiencyBlackwell = 0.74;

// Whether the model offers (algorithm, protocol) for the collective on this communicator: NCCL's
// algorithm conditions (which function can use which algorithm and protocol, NVLS and NVLSTree by node
// count, PAT at one GPU per node). CollNet is never offered: the model does not know the switch.
bool cellUsable(const ModelInputs& in, Collective c, Algorithm a, Protocol p);

// Predicted time in microseconds, or a negative value where cellUsable is false.
double predictTimeUs(const ModelInputs& in, const CollQuery& q, Algorithm a, Protocol p);

// Bus bandwidth (GB/s) of the cell: what nccl-tests reports as busbw for a large message.
double busBandwidth(const ModelInputs& in, Collective c, Algorithm a, Protocol p);

// The NVLS bus bandwidth NCCL's formula gives with a chosen efficiency; the corrections test divides a
// measurement by it.
double nvlsBusBandwidth(const ModelInputs& in, Collective c, double efficiency);

// Ring bus bandwidth on NVLink before any correction (NCCL's search: 8 channels at the fastest speed that
// fits the GPU's NVLinks, duplicated to 16 at half the speed).
double ringNvlinkBusBandwidth(const ModelInputs& in);

}  // namespace railtune::tuner::model
