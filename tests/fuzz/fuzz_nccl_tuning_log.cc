// libFuzzer target for NCCL's TUNING table reader (emulator/nccl_model/tuning_log.h). Besides crashes and
// sanitizer reports it checks the reader's promises: a bad table is a TuningLogError naming "log:line",
// every value read is finite and non-negative, and a table read back from NCCL's own format is the same.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "emulator/nccl_model/tuning_log.h"

namespace {

using railtune::ncclmodel::TuningTable;

void require(bool promise) {
  if (!promise) std::abort();
}

void checkValues(const TuningTable& t) {
  for (const auto& perColl : t.latencies)
    for (const auto& perAlgo : perColl)
      for (float v : perAlgo) require(std::isfinite(v) && v >= 0);
  for (const auto& perColl : t.bandwidths)
    for (const auto& perAlgo : perColl)
      for (float v : perAlgo) require(std::isfinite(v) && v >= 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto tables = railtune::ncclmodel::parseTuningLog(text, "log");
    for (const TuningTable& t : tables) {
      require(t.firstLine >= 1);
      checkValues(t);
      railtune::ncclmodel::TunedModel model;
      railtune::ncclmodel::applyTuningTable(model, t);
      const auto again = railtune::ncclmodel::parseTuningLog(railtune::ncclmodel::formatTuningLog(model, ""), "again");
      require(again.size() == 1);
      for (int a = 0; a < railtune::ncclmodel::kNumAlgorithms; a++)
        for (int p = 0; p < railtune::ncclmodel::kNumProtocols; p++)
          require(again[0].maxThreads[a][p] == t.maxThreads[a][p]);
    }
  } catch (const railtune::ncclmodel::TuningLogError& e) {
    require(std::string(e.what()).rfind("log:", 0) == 0);
  }
  return 0;
}
