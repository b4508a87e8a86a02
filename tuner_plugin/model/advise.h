// The model's advice for one collective call: the cheapest (algorithm, protocol) among the cells NCCL
// left available. Runs on NCCL's enqueue path: no allocation, no lock, no I/O.
#pragma once

#include <optional>
#include <string>

#include "tuner_plugin/engine.h"
#include "tuner_plugin/model/model_inputs.h"

namespace railtune::tuner::model {

struct Advice {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  double predictedUs = 0;   // the model's time for the advised cell
  int nChannels = 0;        // 0: keep NCCL's channel count (the model does not advise one yet)
  const char* reason = "";  // static text: why this cell
};

// nullopt when no cell is both available in `table` (never an IGNORE cell) and usable by the collective
// on this communicator. Ties go to the lower algorithm, then protocol, as NCCL breaks them.
std::optional<Advice> advise(const ModelInputs& inputs, const CollQuery& query, const CostTableView& table);

// The inputs, the derived bandwidths and the corrections in force, for the decisions table's header
// (`railtune tuner decisions`). Allocates; not for the hot path.
std::string describeModel(const ModelInputs& inputs);

}  // namespace railtune::tuner::model
