// See boundary.h. Inside, one error style: anything that goes wrong throws; here it is caught,
// logged once and turned into what NCCL needs for that entry point.
#include "tuner_plugin/boundary.h"

#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "common/fault.h"
#include "common/log.h"
#include "common/params.h"
#include "tuner_plugin/config_report.h"
#include "tuner_plugin/engine.h"
#include "tuner_plugin/tuner_config.h"

namespace railtune::tuner::boundary {
namespace {

static_assert(sizeof(CostModelConstants) == sizeof(ncclTunerConstants_v5_t), "constants layout drifted");
static_assert(offsetof(CostModelConstants, perChMaxNVLSTreeBws) ==
                  offsetof(ncclTunerConstants_v5_t, perChMaxNVLSTreeBws),
              "constants layout drifted");
static_assert(kNumAlgorithms == NCCL_NUM_ALGORITHMS && kNumProtocols == NCCL_NUM_PROTOCOLS);
static_assert(static_cast<int>(Algorithm::Pat) == NCCL_ALGO_PAT &&
              static_cast<int>(Protocol::Simple) == NCCL_PROTO_SIMPLE);

constexpr unsigned long kFlags = NCCL_TUNING;

struct TunerContext {
  explicit TunerContext(const Log& l) : log(l) {}
  Log log;
  CommInfo comm;
  std::string configText;          // TunerConfig::describe(), for the init line
  std::unique_ptr<Engine> engine;  // null in a pass-through context made after a failed init
  std::atomic<bool> disabled{false};
  OnceFlag warnedUnknownCollective;
  int abiVersion = 0;
};

// Configuration problems found in init; each was already logged.
struct ConfigReport {
  bool strict = false;
  int problems = 0;
};

// Whether this process has not yet printed `problem` at WARN (config_report.h). Out of memory: WARN
// anyway. Called from the boundary's catch handlers too, so it never throws.
bool firstInProcess(const char* problem) noexcept {
  try {
    return firstReportOf(problem);
  } catch (...) {
    return true;
  }
}

// A configuration problem is the same for every communicator of the process: its WARN is printed once
// per process, later communicators log it at INFO. Under RAILTUNE_STRICT=1 the init fails, and every
// failing init says why at WARN.
void reportConfigProblem(const Log& log, unsigned long flags, bool strict, const std::string& text) {
  if (strict || firstInProcess(text.c_str())) {
    RT_WARN(log, flags, "%s", text.c_str());
  } else {
    RT_INFO(log, flags, "%s (reported at WARN once per process)", text.c_str());
  }
}

ConfigReport readConfiguration(const Log& log) {
  ConfigReport report;
  const ParamValue<bool> strict = readBool("RAILTUNE_STRICT");
  report.strict = strict.value;
  if (!strict.ok()) {
    reportConfigProblem(log, NCCL_INIT | NCCL_ENV, false, strict.error);
    ++report.problems;
  }
  const std::string faultError = armFaultsFromEnvironment();
  if (!faultError.empty()) {
    reportConfigProblem(log, NCCL_INIT | NCCL_ENV, report.strict, faultError);
    ++report.problems;
  }
  return report;
}

// A bad variable or a rules file that cannot be read or parsed, as opposed to an internal failure
// (reported for each communicator it hits).
class TunerConfigurationProblem : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

TunerConfig loadConfigurationOrThrowProblem() {
  try {
    return loadTunerConfig();  // throws naming variable, file and line
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw TunerConfigurationProblem(e.what());
  }
}

CommInfo describeComm(const InitCall& call) {
  if (call.nRanks == 0 || call.nNodes == 0 || call.nNodes > call.nRanks) {
    throw std::invalid_argument("impossible communicator: nRanks=" + std::to_string(call.nRanks) +
                                " nNodes=" + std::to_string(call.nNodes));
  }
  CommInfo comm;
  comm.commId = call.commId;
  comm.nRanks = call.nRanks;
  comm.nNodes = call.nNodes;
  comm.abiVersion = call.abiVersion;
  if (call.nvlDomainInfo != nullptr) {
    comm.nvl = NvlDomainInfo{call.nvlDomainInfo->nNvlDomains, call.nvlDomainInfo->minRanksPerNvlDomain,
                             call.nvlDomainInfo->maxRanksPerNvlDomain};
  }
  return comm;
}

// The engine edits a copy; NCCL's constants change only when the whole edit succeeded.
void tuneConstants(Engine& engine, ncclTunerConstants_v5_t* nccl) {
  if (nccl == nullptr) return;
  CostModelConstants ours;
  std::memcpy(&ours, nccl, sizeof(ours));
  engine.tuneConstants(ours);
  std::memcpy(nccl, &ours, sizeof(ours));
}

std::unique_ptr<TunerContext> buildContext(const InitCall& call, const Log& log) {
  auto ctx = std::make_unique<TunerContext>(log);
  ctx->abiVersion = call.abiVersion;
  ctx->comm = describeComm(call);
  injectFaultAt(FaultSite::TunerInit);
  const TunerConfig config = loadConfigurationOrThrowProblem();
  ctx->configText = config.describe();
  ctx->engine = makeEngine(ctx->comm, config, reinterpret_cast<const CostModelConstants*>(call.constants), log);
  tuneConstants(*ctx->engine, call.constants);
  return ctx;
}

ncclResult_t initFailed(const InitCall& call, const Log& log, bool strict, const char* reason,
                        bool configurationProblem = false) {
  if (strict) {
    RT_WARN(log, NCCL_INIT | kFlags, "init failed: %s; RAILTUNE_STRICT=1, so NCCL fails the communicator", reason);
    return ncclInternalError;
  }
  if (!configurationProblem || firstInProcess(reason)) {
    RT_WARN(log, NCCL_INIT | kFlags, "init failed: %s; NCCL keeps its own tuning for this communicator", reason);
  } else {
    RT_INFO(log, NCCL_INIT | kFlags,
            "init failed: %s; NCCL keeps its own tuning for this communicator (reported at WARN once per process)",
            reason);
  }
  auto* ctx = new (std::nothrow) TunerContext(log);  // may be NULL: a NULL context also means "NCCL decides"
  if (ctx != nullptr) {
    ctx->abiVersion = call.abiVersion;
    ctx->disabled.store(true, std::memory_order_relaxed);
  }
  *call.context = ctx;
  return ncclSuccess;
}

// Disables the context; the first caller logs the one WARN.
void disable(TunerContext& ctx, const char* entry, const char* reason) {
  if (!ctx.disabled.exchange(true, std::memory_order_acq_rel)) {
    RT_WARN(ctx.log, kFlags, "%s failed: %s; tuner disabled for this communicator, NCCL decides", entry, reason);
  }
}

bool knownCollective(int f) {
  return f >= ncclFuncBroadcast && f <= ncclFuncAllReduce;
}

const char* collCallMisuse(const CollCall& call) {
  if (call.collCostTable == nullptr) return "NULL cost table (ABI misuse)";
  if (call.nChannels == nullptr) return "NULL nChannels (ABI misuse)";
  if (call.numAlgo != NCCL_NUM_ALGORITHMS || call.numProto != NCCL_NUM_PROTOCOLS) {
    return "cost table is not 7 algorithms x 3 protocols (ABI misuse)";
  }
  return nullptr;
}

// Runs the engine on a copy of NCCL's table so that a failure halfway leaves NCCL's untouched.
void decide(TunerContext& ctx, const CollCall& call) {
  injectFaultAt(FaultSite::TunerGetCollInfo);
  float(*nccl)[NCCL_NUM_PROTOCOLS] = reinterpret_cast<float(*)[NCCL_NUM_PROTOCOLS]>(call.collCostTable);
  float work[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS];
  std::memcpy(work, nccl, sizeof(work));
  const CollQuery query{static_cast<Collective>(call.collType), call.nBytes, call.numPipeOps, call.regBuff != 0};
  CollDecision decision;
  ctx.engine->decide(query, CostTableView(work), decision);
  std::memcpy(nccl, work, sizeof(work));
  if (decision.nChannels > 0) *call.nChannels = decision.nChannels;
}

}  // namespace

ncclResult_t init(const InitCall& call) noexcept {
  const Log log("tuner", call.logger);
  if (call.context == nullptr) {
    RT_WARN(log, NCCL_INIT | kFlags, "init called with a NULL context pointer (ABI misuse)");
    return ncclInvalidArgument;
  }
  *call.context = nullptr;
  ConfigReport config;
  try {
    config = readConfiguration(log);
    if (config.strict && config.problems > 0) return ncclInvalidUsage;  // each problem was logged
    std::unique_ptr<TunerContext> ctx = buildContext(call, log);
    RT_INFO(log, NCCL_INIT | kFlags, "ABI v%d, comm 0x%llx, engine %s, %zu ranks on %zu nodes; %s", call.abiVersion,
            static_cast<unsigned long long>(call.commId.value_or(0)), ctx->engine->name(), call.nRanks, call.nNodes,
            ctx->configText.c_str());
    *call.context = ctx.release();
    return ncclSuccess;
  } catch (const TunerConfigurationProblem& e) {
    return initFailed(call, log, config.strict, e.what(), true);
  } catch (const std::exception& e) {
    return initFailed(call, log, config.strict, e.what());
  } catch (...) {
    return initFailed(call, log, config.strict, "unknown exception");
  }
}

ncclResult_t getCollInfo(void* context, const CollCall& call) noexcept {
  auto* ctx = static_cast<TunerContext*>(context);
  if (ctx == nullptr || ctx->disabled.load(std::memory_order_relaxed)) return ncclSuccess;
  try {
    if (const char* misuse = collCallMisuse(call)) {
      disable(*ctx, "getCollInfo", misuse);
    } else if (!knownCollective(call.collType)) {
      if (ctx->warnedUnknownCollective.first()) {
        RT_WARN(ctx->log, kFlags, "getCollInfo: collective %d is not one a tuner handles; NCCL decides", call.collType);
      }
    } else {
      decide(*ctx, call);
    }
  } catch (const std::exception& e) {
    disable(*ctx, "getCollInfo", e.what());
  } catch (...) {
    disable(*ctx, "getCollInfo", "unknown exception");
  }
  return ncclSuccess;
}

ncclResult_t getChunkSize(void* context, const ChunkCall& call) noexcept {
  auto* ctx = static_cast<TunerContext*>(context);
  if (ctx == nullptr || ctx->disabled.load(std::memory_order_relaxed)) return ncclSuccess;
  try {
    if (call.chunkSize == nullptr) {
      disable(*ctx, "getChunkSize", "NULL chunkSize (ABI misuse)");
    } else if (!knownCollective(call.collType) || call.algorithm < 0 || call.algorithm >= NCCL_NUM_ALGORITHMS ||
               call.protocol < 0 || call.protocol >= NCCL_NUM_PROTOCOLS) {
      disable(*ctx, "getChunkSize", "collective, algorithm or protocol out of range (ABI misuse)");
    } else {
      injectFaultAt(FaultSite::TunerGetChunkSize);
      const ChunkQuery query{static_cast<Collective>(call.collType), call.nBytes,
                             static_cast<Algorithm>(call.algorithm), static_cast<Protocol>(call.protocol),
                             call.nChannels};
      if (const std::optional<size_t> chunk = ctx->engine->chunkSize(query)) *call.chunkSize = *chunk;
    }
  } catch (const std::exception& e) {
    disable(*ctx, "getChunkSize", e.what());
  } catch (...) {
    disable(*ctx, "getChunkSize", "unknown exception");
  }
  return ncclSuccess;
}

ncclResult_t finalize(void* context) noexcept {
  std::unique_ptr<TunerContext> ctx(static_cast<TunerContext*>(context));  // freed however we leave
  if (!ctx) return ncclSuccess;
  try {
    injectFaultAt(FaultSite::TunerFinalize);
    if (ctx->engine) {
      if (const std::string summary = ctx->engine->summary(); !summary.empty())
        RT_INFO(ctx->log, kFlags, "model advice where it differs from NCCL's pick (NCCL's stood): %s", summary.c_str());
    }
    ctx->engine.reset();
  } catch (const std::exception& e) {
    RT_WARN(ctx->log, kFlags, "finalize failed: %s; context released anyway", e.what());
  } catch (...) {
    RT_WARN(ctx->log, kFlags, "finalize failed: unknown exception; context released anyway");
  }
  return ncclSuccess;
}

}  // namespace railtune::tuner::boundary
