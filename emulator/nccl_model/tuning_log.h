// Reader of the model table NCCL prints at communicator init under NCCL_DEBUG=INFO
// NCCL_DEBUG_SUBSYS=TUNING (ncclTopoTuneModel, rank 0): per function, algorithm and protocol the latency
// (us) and algorithm bandwidth (GB/s) of NCCL's own model, in blocks of three algorithms:
//
//     NCCL INFO   Algorithm   |                     Tree                 |   ...
//     NCCL INFO   Protocol    |             LL |          LL128 |         Simple |   ...
//     NCCL INFO  Max NThreads |            512 |            640 |            512 |   ...
//     NCCL INFO     Broadcast |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |   ...
//
// With it, `railtune tuner decisions --nccl-tuning-log FILE` uses what NCCL really computed instead of
// the emulated graph values. Lines may carry NCCL's log prefix ("host:pid:tid [dev] NCCL INFO "); other
// log lines are skipped. NCCL prints one decimal, so values carry +-0.05 of rounding.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "emulator/nccl_model/nccl_model.h"

namespace railtune::ncclmodel {

// A malformed table: the message starts with "file:line: ".
class TuningLogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TuningTable {
  int firstLine = 0;  // 1-based line of its first "Algorithm" header
  float latencies[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};
  float bandwidths[kNumCollectives][kNumAlgorithms][kNumProtocols] = {};
  int maxThreads[kNumAlgorithms][kNumProtocols] = {};
};

// Every complete table in a log, in order (one per communicator rank 0 created).
std::vector<TuningTable> parseTuningLog(const std::string& text, const std::string& origin);
// The first table of a log file; throws TuningLogError when the file cannot be read or holds none.
TuningTable readTuningLogFile(const std::string& path);

// The table as NCCL prints it (its printf formats), each line starting with `prefix` (NCCL's logger
// writes "host:pid:tid [dev] NCCL INFO "). Used to show a model in NCCL's own words and in tests.
std::string formatTuningLog(const TunedModel& model, const std::string& prefix);

// Replaces the model's bandwidths, latencies and thread counts by NCCL's printed ones.
void applyTuningTable(TunedModel& model, const TuningTable& table);

}  // namespace railtune::ncclmodel
