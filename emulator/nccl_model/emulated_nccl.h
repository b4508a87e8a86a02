// One communicator as NCCL would tune it, for `railtune tuner decisions`: the model built from a hardware
// profile's graph data (or from NCCL's own TUNING table), the cost table NCCL hands the tuner, and the
// decision NCCL takes when the tuner leaves the table alone.
#pragma once

#include <optional>
#include <string>

#include "emulator/nccl_model/graph_data.h"
#include "emulator/nccl_model/nccl_model.h"
#include "emulator/nccl_model/tuning_log.h"
#include "emulator/tuner_driver.h"

namespace railtune::ncclmodel {

struct NcclDecision {
  Pick pick;
  ChannelChoice channels;
};

class EmulatedNccl {
 public:
  // Throws GraphDataError when the profile has no graph data for the communicator, and
  // std::invalid_argument on a bad NCCL_ALGO/NCCL_PROTO. `constants` defaults to NCCL's.
  EmulatedNccl(NcclVersion v, const std::string& profile, const CommShape& shape, const NcclKnobs& knobs = {},
               const std::optional<CostModelConstants>& constants = std::nullopt);

  // NCCL's printed model replaces the emulated bandwidths and latencies; `origin` names the log.
  void useTuningTable(const TuningTable& table, const std::string& origin);

  // "emulated NCCL 2.30", or "NCCL 2.30 TUNING log FILE" after useTuningTable.
  const std::string& label() const { return label_; }
  const TunedModel& model() const { return model_; }
  const GraphShape& shape() const { return *shape_; }

  CostTable costTable(Collective c, size_t nBytes, int numPipeOps = 1) const;
  // NCCL's pick and channels when the tuner changes nothing; nullopt when every cell is IGNORE.
  std::optional<NcclDecision> decide(Collective c, size_t nBytes, int numPipeOps = 1) const;

 private:
  TunedModel model_;
  const GraphShape* shape_;
  std::string label_;
};

// The table in the emulator's driver form (float[7][3], what TunerDriver::getCollInfo passes on).
void copyTo(const CostTable& table, emu::CostTable& out);

}  // namespace railtune::ncclmodel
