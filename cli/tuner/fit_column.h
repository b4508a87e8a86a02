// The fitted model in `railtune tuner decisions --model-file F`: the plugin reads F as RAILTUNE_TUNER_MODEL_FILE,
// and a fit applies only where the rail map states the GPU and fabric it was fitted on. Without --rail-map the
// command writes one for --profile (its GPU, as NCCL names the device, its NICs and link layer), so that the fit
// of that profile's hardware can match. The header names what the file's fits apply to, the covering fit's
// verdict for the communicator's scale bucket, and every constant the plugin wrote.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "emulator/tuner_decisions/report.h"
#include "nccl/tuner_v6.h"

namespace railtune::cli {

// Sets or unsets environment variables for one scope, and restores what was there on leaving it.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv();
  void set(const char* name, const std::string& value);
  void unset(const char* name);

 private:
  void remember(const char* name);
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A rail map of one host of `comm`'s profile, with its GPU model, written to a new temporary file whose path is
// returned (the caller removes it). Throws std::runtime_error when it cannot be written.
std::string writeProfileRailMap(const emu::Communicator& comm);

// The header's facts of the model file at `path`: what each fit applies to, and the verdict of the fit that
// covers `comm` under the rail map at `railMapPath` (the tuner's own coverage; "" when none covers it). Throws
// std::runtime_error naming the file when it cannot be read.
emu::FitSummary describeFitFile(const std::string& path, const std::string& railMapPath, const emu::Communicator& comm,
                                int abiVersion);

// "baseLatencies[Ring][LL128] 14 -> 9.5" for every constant that differs.
std::vector<std::string> constantsWritten(const ncclTunerConstants_v5_t& before, const ncclTunerConstants_v5_t& after);

}  // namespace railtune::cli
