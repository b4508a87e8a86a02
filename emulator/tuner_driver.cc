// TunerDriver: NCCL's tuner call sites (init.cc, enqueue.cc) and the adapters of tuner_v2..v6.cc.
#include "emulator/tuner_driver.h"

#include <cstring>

#include "emulator/logger.h"

namespace railtune::emu {
namespace {

// The cost table NCCL keeps on its stack, as a struct so that it can sit in a poison-guarded buffer.
struct CostTableBox {
  float table[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];
};

template <typename T>
const T* tableAs(const Binding& b) {
  return static_cast<const T*>(b.table);
}

constexpr float kIgnore = static_cast<float>(NCCL_ALGO_PROTO_IGNORE);

// tuner_v2.cc derives the two support flags a v2 plugin expects from the cost table.
int nvlsSupport(const float (*t)[NCCL_NUM_PROTOCOLS]) {
  return (t[NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] != kIgnore || t[NCCL_ALGO_NVLS_TREE][NCCL_PROTO_SIMPLE] != kIgnore) ? 1
                                                                                                                   : 0;
}
int collNetSupport(const float (*t)[NCCL_NUM_PROTOCOLS]) {
  return t[NCCL_ALGO_COLLNET_CHAIN][NCCL_PROTO_SIMPLE] == kIgnore ? 0 : 1;
}

}  // namespace

TunerDriver::TunerDriver(const Binding& binding)
    : binding_(binding), version_(binding.kind == PluginKind::Tuner ? binding.version : 0) {}

TunerDriver::~TunerDriver() {
  if (open_) finalize();
}

const char* TunerDriver::pluginName() const {
  return binding_.table ? *static_cast<const char* const*>(binding_.table) : "";
}

ncclResult_t TunerDriver::init(uint64_t commId, size_t nRanks, size_t nNodes, const ncclNvlDomainInfo_v5_t& domains,
                               ncclTunerConstants_v5_t* constants) {
  ncclResult_t r = ncclInternalError;
  switch (version_) {
    case 2:
      r = tableAs<ncclTuner_v2_t>(binding_)->init(nRanks, nNodes, pluginLogger(), &context_);
      break;
    case 3:
      r = tableAs<ncclTuner_v3_t>(binding_)->init(nRanks, nNodes, pluginLogger(), &context_);
      break;
    case 4:
      r = tableAs<ncclTuner_v4_t>(binding_)->init(nRanks, nNodes, pluginLogger(), &context_);
      break;
    case 5:
    case 6:
      r = initWithConstants(commId, nRanks, nNodes, domains, constants);
      break;
    case 7: {
      // No NCCL before v7 binds it; a test may still drive it so: the four rows widened, row 4 as initV7's.
      ncclTunerConstants_v7_t wide = defaultTunerConstantsV7(NcclBehaviour::V2_30);
      if (constants) tunerConstantsV5ToV7(&wide, constants);
      r = initNative7(commId, nRanks, nNodes, domains, constants ? &wide : nullptr);
      if (r == ncclSuccess && constants) tunerConstantsV7ToV5(constants, &wide);
      return r;
    }
    default:
      break;
  }
  open_ = r == ncclSuccess;
  return r;
}

ncclResult_t TunerDriver::initV7(uint64_t commId, size_t nRanks, size_t nNodes, const ncclNvlDomainInfo_v5_t& domains,
                                 ncclTunerConstants_v7_t* constants) {
  if (version_ == 7) return initNative7(commId, nRanks, nNodes, domains, constants);
  if (version_ < 5 || constants == nullptr) return init(commId, nRanks, nNodes, domains, nullptr);
  ncclTunerConstants_v5_t rows;
  tunerConstantsV7ToV5(&rows, constants);
  const ncclResult_t r = init(commId, nRanks, nNodes, domains, &rows);
  if (r == ncclSuccess) tunerConstantsV5ToV7(constants, &rows);
  return r;
}

// v7 natively: NCCL's five-row table, poison-guarded at its own size (1272 bytes).
ncclResult_t TunerDriver::initNative7(uint64_t commId, size_t nRanks, size_t nNodes,
                                      const ncclNvlDomainInfo_v5_t& domains, ncclTunerConstants_v7_t* constants) {
  Poisoned<ncclNvlDomainInfo_v7_t> domainGuard;
  *domainGuard = domains;
  Poisoned<ncclTunerConstants_v7_t> constantGuard;
  if (constants) *constantGuard = *constants;
  const ncclResult_t r = tableAs<ncclTuner_v7_t>(binding_)->init(
      &context_, commId, nRanks, nNodes, pluginLogger(), domainGuard.get(), constants ? constantGuard.get() : nullptr);
  bool intact = checkPoison(domainGuard, "tuner.init", "ncclNvlDomainInfo_v7_t", violations_);
  intact = checkPoison(constantGuard, "tuner.init", "ncclTunerConstants_v7_t", violations_) && intact;
  open_ = intact && r == ncclSuccess;
  if (!intact) return ncclInternalError;
  if (constants && r == ncclSuccess) *constants = *constantGuard;
  return r;
}

// v5/v6: the domain info and the constants are NCCL's per-communicator structs; the plugin's edits to
// the constants feed NCCL's model afterwards, so they are copied back to the caller.
ncclResult_t TunerDriver::initWithConstants(uint64_t commId, size_t nRanks, size_t nNodes,
                                            const ncclNvlDomainInfo_v5_t& domains, ncclTunerConstants_v5_t* constants) {
  Poisoned<ncclNvlDomainInfo_v5_t> domainGuard;
  *domainGuard = domains;
  Poisoned<ncclTunerConstants_v5_t> constantGuard;
  if (constants) *constantGuard = *constants;
  ncclResult_t r = version_ == 6
                       ? tableAs<ncclTuner_v6_t>(binding_)->init(&context_, commId, nRanks, nNodes, pluginLogger(),
                                                                 domainGuard.get(), constantGuard.get())
                       : tableAs<ncclTuner_v5_t>(binding_)->init(&context_, commId, nRanks, nNodes, pluginLogger(),
                                                                 domainGuard.get(), constantGuard.get());
  bool intact = checkPoison(domainGuard, "tuner.init", "ncclNvlDomainInfo_v5_t", violations_);
  intact = checkPoison(constantGuard, "tuner.init", "ncclTunerConstants_v5_t", violations_) && intact;
  if (!intact) return ncclInternalError;
  if (constants) *constants = *constantGuard;
  return r;
}

ncclResult_t TunerDriver::getCollInfo(ncclFunc_t coll, size_t nBytes, int numPipeOps, CostTable& table, int regBuff,
                                      int* nChannels) {
  Poisoned<CostTableBox> box;
  std::memcpy(box->table, table, sizeof(box->table));
  ncclResult_t r = callGetCollInfo(coll, nBytes, numPipeOps, box->table, regBuff, nChannels);
  if (!checkPoison(box, "tuner.getCollInfo", "the cost table float[7][3]", violations_)) return ncclInternalError;
  std::memcpy(table, box->table, sizeof(box->table));
  return r;
}

// NCCL passes numAlgo = 7 and numProto = 3 and the table as float** (it is really float[7][3]).
ncclResult_t TunerDriver::callGetCollInfo(ncclFunc_t coll, size_t nBytes, int numPipeOps,
                                          float (*table)[NCCL_NUM_PROTOCOLS], int regBuff, int* nChannels) {
  float** asPointer = reinterpret_cast<float**>(table);
  switch (version_) {
    case 2: {
      int algorithm = NCCL_ALGO_UNDEF;
      int protocol = NCCL_PROTO_UNDEF;
      ncclResult_t r = tableAs<ncclTuner_v2_t>(binding_)->getCollInfo(context_, coll, nBytes, collNetSupport(table),
                                                                      nvlsSupport(table), numPipeOps, &algorithm,
                                                                      &protocol, nChannels);
      if (r != ncclSuccess) return r;
      // The adapter forces the plugin's choice by making its entry free, unless NCCL had ruled it out.
      if (algorithm >= 0 && algorithm < NCCL_NUM_ALGORITHMS && protocol >= 0 && protocol < NCCL_NUM_PROTOCOLS &&
          table[algorithm][protocol] != kIgnore) {
        table[algorithm][protocol] = 0.0f;
      }
      return ncclSuccess;
    }
    case 3:
      return tableAs<ncclTuner_v3_t>(binding_)->getCollInfo(context_, coll, nBytes, numPipeOps, asPointer,
                                                            NCCL_NUM_ALGORITHMS, NCCL_NUM_PROTOCOLS, nChannels);
    case 4:
      return tableAs<ncclTuner_v4_t>(binding_)->getCollInfo(
          context_, coll, nBytes, numPipeOps, asPointer, NCCL_NUM_ALGORITHMS, NCCL_NUM_PROTOCOLS, regBuff, nChannels);
    case 5:
      return tableAs<ncclTuner_v5_t>(binding_)->getCollInfo(
          context_, coll, nBytes, numPipeOps, asPointer, NCCL_NUM_ALGORITHMS, NCCL_NUM_PROTOCOLS, regBuff, nChannels);
    case 6:
      return tableAs<ncclTuner_v6_t>(binding_)->getCollInfo(
          context_, coll, nBytes, numPipeOps, asPointer, NCCL_NUM_ALGORITHMS, NCCL_NUM_PROTOCOLS, regBuff, nChannels);
    case 7:
      return tableAs<ncclTuner_v7_t>(binding_)->getCollInfo(
          context_, coll, nBytes, numPipeOps, asPointer, NCCL_NUM_ALGORITHMS, NCCL_NUM_PROTOCOLS, regBuff, nChannels);
    default:
      return ncclInternalError;
  }
}

bool TunerDriver::hasChunkSize() const {
  if (version_ == 7) return tableAs<ncclTuner_v7_t>(binding_)->getChunkSize != nullptr;
  return version_ == 6 && tableAs<ncclTuner_v6_t>(binding_)->getChunkSize != nullptr;
}

ncclResult_t TunerDriver::getChunkSize(ncclFunc_t coll, size_t nBytes, int algo, int proto, int nChannels,
                                       size_t* chunkSize) {
  if (!hasChunkSize()) return ncclInternalError;
  if (version_ == 7)
    return tableAs<ncclTuner_v7_t>(binding_)->getChunkSize(context_, coll, nBytes, algo, proto, nChannels, chunkSize);
  return tableAs<ncclTuner_v6_t>(binding_)->getChunkSize(context_, coll, nBytes, algo, proto, nChannels, chunkSize);
}

ncclResult_t TunerDriver::finalize() {
  if (!open_) return ncclSuccess;
  open_ = false;
  switch (version_) {
    case 2:
      return tableAs<ncclTuner_v2_t>(binding_)->destroy(context_);
    case 3:
      return tableAs<ncclTuner_v3_t>(binding_)->destroy(context_);
    case 4:
      return tableAs<ncclTuner_v4_t>(binding_)->destroy(context_);
    case 5:
      return tableAs<ncclTuner_v5_t>(binding_)->finalize(context_);
    case 6:
      return tableAs<ncclTuner_v6_t>(binding_)->finalize(context_);
    case 7:
      return tableAs<ncclTuner_v7_t>(binding_)->finalize(context_);
    default:
      return ncclInternalError;
  }
}

}  // namespace railtune::emu
