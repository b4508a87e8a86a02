// Drives a bound tuner of any version (v2..v7) through NCCL's call sites: init with the default
// constants and NVLink-domain info, getCollInfo with a real float[7][3] passed as float**, the v6/v7
// getChunkSize, finalize. Older versions are adapted as NCCL's own tuner_vN.cc adapters do.
// Two generations of NCCL call init: before v7 NCCL keeps a four-row constants table (init), from the
// release that binds v7 a five-row one (initV7), narrowed for a v5/v6 plugin and widened back after it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "emulator/poison.h"
#include "nccl/tuner_v2.h"
#include "nccl/tuner_v3.h"
#include "nccl/tuner_v4.h"
#include "nccl/tuner_v7.h"

namespace railtune::emu {

using CostTable = float[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];

// NCCL's ncclTunerConstantsDefaults for the behaviour imitated (2.30 changed two Blackwell cells).
ncclTunerConstants_v5_t defaultTunerConstants(NcclBehaviour b);
// The same in the v7 table. Row NCCL_RUBIN_COMPCAP_IDX: NCCL's Rubin defaults are in the tuning.cc of the
// release that binds v7, which railtune has not been checked against; the row starts as a copy of the
// Blackwell row, and nothing in the emulator reads it (its hardware profiles are Blackwell).
ncclTunerConstants_v7_t defaultTunerConstantsV7(NcclBehaviour b);

class TunerDriver {
 public:
  explicit TunerDriver(const Binding& binding);
  ~TunerDriver();  // finalizes a context still open
  int version() const { return version_; }
  const char* pluginName() const;

  // NCCL: tuner->init(&ctx, commHash, nRanks, nNodes, ncclDebugLog, &nvlDomainInfo, &constants).
  // Versions < 5 get neither constants nor domain info (NCCL passes none).
  ncclResult_t init(uint64_t commId, size_t nRanks, size_t nNodes, const ncclNvlDomainInfo_v5_t& domains,
                    ncclTunerConstants_v5_t* constants);
  // The same from an NCCL that keeps a v7 table (2.32.6 on): v7 gets it whole; v5/v6 get rows 0..3 and only
  // those are copied back, after a successful init (src/plugin/tuner/tuner_v5.cc, tuner_v6.cc at the commit
  // that adds v7); v2..v4 get no constants.
  ncclResult_t initV7(uint64_t commId, size_t nRanks, size_t nNodes, const ncclNvlDomainInfo_v5_t& domains,
                      ncclTunerConstants_v7_t* constants);
  // NCCL: numAlgo = 7, numProto = 3; *nChannels starts at 0 ("keep NCCL's choice").
  ncclResult_t getCollInfo(ncclFunc_t coll, size_t nBytes, int numPipeOps, CostTable& table, int regBuff,
                           int* nChannels);
  bool hasChunkSize() const;
  ncclResult_t getChunkSize(ncclFunc_t coll, size_t nBytes, int algo, int proto, int nChannels, size_t* chunkSize);
  ncclResult_t finalize();

  // Messages about ABI misuse the driver caught (poison overwritten past a struct, ...).
  const std::vector<std::string>& violations() const { return violations_; }
  void* context() const { return context_; }

 private:
  ncclResult_t initWithConstants(uint64_t commId, size_t nRanks, size_t nNodes, const ncclNvlDomainInfo_v5_t& domains,
                                 ncclTunerConstants_v5_t* constants);
  ncclResult_t initNative7(uint64_t commId, size_t nRanks, size_t nNodes, const ncclNvlDomainInfo_v5_t& domains,
                           ncclTunerConstants_v7_t* constants);
  ncclResult_t callGetCollInfo(ncclFunc_t coll, size_t nBytes, int numPipeOps, float (*table)[NCCL_NUM_PROTOCOLS],
                               int regBuff, int* nChannels);

  Binding binding_;
  int version_ = 0;
  void* context_ = nullptr;
  bool open_ = false;
  std::vector<std::string> violations_;
};

// NCCL's selection from a cost table: the strictly smallest non-negative entry, scanning
// algorithms then protocols. Returns false when every entry is negative.
bool pickFromCostTable(const CostTable& table, int* algorithm, int* protocol);

}  // namespace railtune::emu
