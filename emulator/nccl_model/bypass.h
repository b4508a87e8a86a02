// What the tuner never sees: the collectives NCCL routes to a symmetric-memory kernel or to the copy
// engines without letting a tuner plugin change the choice. One pure function of the communicator, the
// call (collective, size, datatype, reduction), how its buffers are registered, the communicator's CTA
// policy and NCCL's variables returns the path NCCL takes and the conditions that held, each with the
// NCCL source line it comes from (docs/tuning.md, "What the tuner never sees").
//
// Read from NCCL 2.28.9, 2.30.7 and 2.31.2 (default enqueue path, NCCL_ENQUEUE_REARCH_ENABLE=0):
//  - the copy-engine path is chosen when the collective is enqueued (taskAppend in enqueue.cc), before
//    any tuning: AllGather into a symmetric receive window with CTA policy ZERO, or (2.30+) an
//    AllGather larger than NCCL_SYM_CE_THRESHOLD elements per rank on Blackwell over direct NVLink;
//  - symmetric kernels are picked at group end (ncclMakeSymmetricTaskList) before the tuned path: 2.28
//    and 2.30 by ncclSymkPickKernel, 2.31 by ncclTuningCompute restricted to the symmetric kernels,
//    which calls the tuner's getCollInfo with every cell IGNORE, so its answer changes nothing.
// The emulated communicator is one NVLink domain when NCCL's nNodes is 1 (under MNNVL a rack): then every
// rank reaches every other over direct NVLink, one process drives each GPU and no buffer lies in system
// memory. Over several nodes no symmetric kernel qualifies (they need every GPU over direct NVLink) nor does the
// single-domain CE path; the hierarchical CE AllGather of CTA policy ZERO depends on NCCL's RMA proxy, which is not
// emulated, and such a row is tuned with a caveat.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "formats/nccl_enums.h"

namespace railtune::ncclmodel {

enum class BypassRelease { V2_28, V2_30, V2_31 };
std::optional<BypassRelease> parseBypassRelease(const std::string& version);  // "2.28", "2.30", "2.31"
const char* bypassReleaseName(BypassRelease r);

// How the application registered its send and receive buffers: nccl-tests -R 0, 1, 2.
//   None: no registration; Local: ncclCommRegister (user buffers, not windows);
//   Symmetric: ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC on both buffers.
enum class Registration { None, Local, Symmetric };
std::optional<Registration> parseRegistration(const std::string& text);  // none|local|symmetric or 0|1|2
const char* registrationName(Registration r);

// ncclConfig_t.CTAPolicy (nccl.h: DEFAULT 0, EFFICIENCY 1, ZERO 2, combinable with | from 2.30).
struct CtaPolicy {
  bool efficiency = false;
  bool zero = false;
  bool operator==(const CtaPolicy&) const = default;
};
// NCCL_CTA_POLICY's syntax (init.cc getEnvCtaPolicyOnce): a digit 0/1/2, or names joined by '|'
// (DEFAULT, EFFICIENCY, ZERO, any case). nullopt when nothing in it is a policy.
std::optional<CtaPolicy> parseCtaPolicy(const std::string& text);
std::string ctaPolicyName(CtaPolicy p);  // "default", "zero", "efficiency|zero"

// NCCL's datatypes, by nccl-tests' names (-d): int8 uint8 int32 uint32 int64 uint64 half float double
// bfloat16 f8e4m3 f8e5m2 (NCCL's float16/float32/float64 are accepted too).
enum class DataType { Int8, Uint8, Int32, Uint32, Int64, Uint64, Half, Float, Double, Bfloat16, F8e4m3, F8e5m2 };
std::optional<DataType> parseDataType(const std::string& name);
const char* dataTypeName(DataType t);
uint64_t dataTypeSize(DataType t);

enum class RedOp { Sum, Prod, Max, Min, Avg };
std::optional<RedOp> parseRedOp(const std::string& name);  // nccl-tests' -o names: sum prod max min avg
const char* redOpName(RedOp op);

// NCCL's variables that move these paths; unset = NCCL's default.
struct BypassEnv {
  std::optional<int64_t> symCeThreshold;  // NCCL_SYM_CE_THRESHOLD (elements per rank; default 8 Mi)
  bool winEnable = true;                  // NCCL_WIN_ENABLE
  bool cuMemEnable = true;                // NCCL_CUMEM_ENABLE (cuMem itself is assumed available)
  bool symNoWinEnable = false;            // NCCL_SYM_NOWIN_ENABLE
  std::optional<bool> symTmaEnable;       // NCCL_SYM_TMA_ENABLE (default 0 in 2.30, 1 in 2.31)
  std::string symKernel;                  // NCCL_SYM_KERNEL: one kernel name forces it; "" or "^" = all
};
// Reads the variables above through `get` (getenv, or a test's map). Throws std::invalid_argument naming
// the variable when a value is not a number NCCL would read.
BypassEnv readBypassEnv(const std::function<const char*(const char*)>& get);

// The communicator as NCCL's init leaves it (emulated: nccl_model.h TopologyFacts and CommShape).
struct BypassComm {
  int nRanks = 1;
  int nNodes = 1;  // NCCL's nNodes: NVLink domains under MNNVL
  int minCompCap = 0;
  bool nvlsSupport = false;
};

struct BypassQuery {
  BypassRelease release = BypassRelease::V2_30;
  formats::Collective collective = formats::Collective::AllReduce;
  uint64_t nBytes = 0;  // NCCL's nBytes (nccl-tests' size column): the whole AllGather/ReduceScatter buffer
  DataType dataType = DataType::Float;
  RedOp op = RedOp::Sum;
  Registration registration = Registration::None;
  CtaPolicy cta;
  BypassEnv env;
  // The protocol NCCL's tuned path picks for this call (the tuner consulted): with NCCL_SYM_NOWIN_ENABLE=1
  // an unregistered call runs the symmetric LL kernel only when that pick is LL. nullopt = unknown.
  std::optional<formats::Protocol> tunedProtocol;
};

enum class BypassPath { Tuned, Symmetric, CopyEngine };
const char* bypassPathName(BypassPath p);  // "tuned", "symmetric", "copy_engine" (the profiler's `path` names)

struct BypassVerdict {
  BypassPath path = BypassPath::Tuned;
  // "NCCL decides without a tuner: symmetric kernel", "... copy engine (...)", or "tuned: ..." saying the
  // first condition that failed.
  std::string summary;
  // Every condition NCCL tested, in its order, "holds"/"fails", with file:line@release.
  std::vector<std::string> conditions;
  bool tunerAsked = false;  // 2.31's symmetric path calls getCollInfo with an all-IGNORE table
  // Tuned only as far as the emulation knows: "unless NCCL's RMA proxy is up: then copy engine (hierarchical, ...)"
  // where a condition NCCL tests is not emulated. Empty when the verdict is certain.
  std::string caveat;
};

BypassVerdict ncclBypass(const BypassComm& comm, const BypassQuery& query);

}  // namespace railtune::ncclmodel
