// ncclBypass (bypass.h): NCCL's own tests, in NCCL's order, each written down with where it comes from.
// Where 2.31.2 is cited by function, the line numbers of that release were not at hand; its logic was read
// at the release commit (docs/tuning.md lists the files).
#include "emulator/nccl_model/bypass.h"

#include <algorithm>
#include <string>

namespace railtune::ncclmodel {
namespace {

using formats::Collective;
using R = BypassRelease;

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr int64_t kDefaultCeThreshold = 8 * 1024 * 1024;  // NCCL_PARAM(SymCeThreshold, ..., 8 * 1024 * 1024)
constexpr uint64_t kSymCellBytes = 1024;                  // NCCL_SYM_KERNEL_CELL_SIZE (2.31)

const char* cite(R r, const char* v228, const char* v230, const char* v231) {
  return r == R::V2_28 ? v228 : r == R::V2_30 ? v230 : v231;
}

// Records one of NCCL's tests and returns whether it held.
class Trail {
 public:
  explicit Trail(BypassVerdict& v) : v_(v) {}
  bool test(bool holds, const std::string& what, const char* where) {
    const std::string line = std::string(holds ? "holds: " : "fails: ") + what + " [" + where + "]";
    if (std::find(v_.conditions.begin(), v_.conditions.end(), line) == v_.conditions.end())
      v_.conditions.push_back(line);  // the copy-engine and symmetric tests share symmetric support
    if (!holds && firstFailure_.empty()) firstFailure_ = what;
    return holds;
  }
  const std::string& firstFailure() const { return firstFailure_; }
  void forgetFailure() { firstFailure_.clear(); }

 private:
  BypassVerdict& v_;
  std::string firstFailure_;
};

// comm->symmetricSupport: the GPUs of each node CUDA peers (isAllCudaP2p, src/transport.cc:85-117@v2.30.7: true on
// these profiles' NVLink nodes), windows and cuMem on; 2.30+ also GIN or one NVLink team, assumed.
bool symmetricSupport(const BypassQuery& q, Trail& t) {
  const char* where = cite(q.release, "src/init.cc:1376@v2.28.9", "src/init.cc:1674-1675@v2.30.7",
                           "src/init.cc initTransportsRank@v2.31.2");
  return t.test(q.env.winEnable, "NCCL_WIN_ENABLE=1",
                cite(q.release, "src/init.cc:58@v2.28.9", "src/init.cc:62@v2.30.7", where)) &&
         t.test(q.env.cuMemEnable, "NCCL_CUMEM_ENABLE on", where);
}

// One NVLink domain: NCCL's nNodes is 1 (under MNNVL a rack); across nodes the network is in the way.
bool oneNvlinkDomain(const BypassComm& comm, const std::string& why, const char* where, Trail& t) {
  return t.test(comm.nNodes == 1, why + " (NCCL's nNodes is " + std::to_string(comm.nNodes) + ")", where);
}

bool ceImplemented(const BypassQuery& q, Trail& t) {
  return t.test(q.collective == Collective::AllGather,
                "AllGather (of these collectives, the copy engines implement AllGather only)",
                cite(q.release, "src/ce_coll.cc:82-97@v2.28.9", "src/ce_coll.cc:93-110@v2.30.7",
                     "src/ce_coll.cc ncclCeImplemented@v2.31.2"));
}

// ncclCeAvailable (2.30+): implemented, all ranks in the NVLink team, symmetric support, and the receive
// buffer in a symmetric window.
bool ceAvailable(const BypassComm& comm, const BypassQuery& q, Trail& t) {
  const char* where = cite(q.release, "", "src/ce_coll.cc:112-131@v2.30.7", "src/ce_coll.cc ncclCeAvailable@v2.31.2");
  return ceImplemented(q, t) && oneNvlinkDomain(comm, "every rank in the NVLink (LSA) team", where, t) &&
         symmetricSupport(q, t) &&
         t.test(q.registration == Registration::Symmetric, "receive buffer in a symmetric window (-R 2)", where);
}

// symCeAllGatherThreshold (2.31): NCCL_SYM_CE_THRESHOLD, four times higher when unset and TMA kernels
// without NVLink multicast would otherwise win.
int64_t ceThreshold(const BypassComm& comm, const BypassQuery& q) {
  if (q.env.symCeThreshold) return *q.env.symCeThreshold;
  if (q.release != R::V2_31) return kDefaultCeThreshold;
  const bool lsaMultimem = comm.nvlsSupport && comm.nRanks > 2;
  const bool tma = comm.minCompCap >= 100 && q.env.symTmaEnable.value_or(true);
  return !lsaMultimem && tma ? 4 * kDefaultCeThreshold : kDefaultCeThreshold;
}

std::optional<std::string> copyEngine228(const BypassComm& comm, const BypassQuery& q, Trail& t) {
  const char* where = "src/enqueue.cc:2580@v2.28.9";
  if (oneNvlinkDomain(comm, "one node", where, t) && symmetricSupport(q, t) &&
      t.test(q.registration == Registration::Symmetric, "both buffers in symmetric windows (-R 2)", where) &&
      t.test(q.cta.zero && !q.cta.efficiency, "CTA policy ZERO", where) && ceImplemented(q, t))
    return "copy engine (zero-SM CTA policy)";
  return std::nullopt;
}

// ncclHierCeAvailable (2.30+): an AllGather across nodes, both buffers in windows, takes the hierarchical copy
// engines under CTA policy ZERO when NCCL's RMA proxy is up (hostRmaSupport, config.numRmaCtx > 0), which depends
// on the RMA plugin and the network and is not emulated: the row says so instead of claiming either path.
std::string hierarchicalCaveat(const BypassComm& comm, const BypassQuery& q) {
  if (comm.nNodes <= 1 || q.collective != Collective::AllGather || q.registration != Registration::Symmetric ||
      !q.env.winEnable || !q.env.cuMemEnable)
    return "";
  return std::string("unless NCCL's RMA proxy is up: then copy engine (hierarchical, zero-SM CTA policy) [") +
         cite(q.release, "", "src/ce_coll.cc:719-761, src/enqueue.cc:3054@v2.30.7",
              "src/ce_coll.cc ncclHierCeAvailable@v2.31.2") +
         "]";
}

// taskAppend: CTA policy ZERO sends every CE-capable collective to the copy engines; otherwise a large
// AllGather on Blackwell over direct NVLink goes there too (2.30+).
std::optional<std::string> copyEngine(const BypassComm& comm, const BypassQuery& q, Trail& t, std::string& caveat) {
  if (q.release == R::V2_28) return copyEngine228(comm, q, t);
  const char* where = cite(q.release, "", "src/enqueue.cc:3054@v2.30.7", "src/enqueue/enqueue.cc taskAppend@v2.31.2");
  if (q.cta.zero) {
    if (ceAvailable(comm, q, t)) {
      t.test(true, "CTA policy ZERO", where);
      return "copy engine (zero-SM CTA policy)";
    }
    caveat = hierarchicalCaveat(comm, q);
    return std::nullopt;
  }
  const char* large = cite(q.release, "", "src/enqueue.cc:31,3110-3113@v2.30.7",
                           "src/enqueue/enqueue.cc symCeAllGatherThreshold, taskAppend@v2.31.2");
  const uint64_t count = q.nBytes / static_cast<uint64_t>(comm.nRanks) / dataTypeSize(q.dataType);
  const int64_t threshold = ceThreshold(comm, q);
  if (ceAvailable(comm, q, t) &&
      t.test(count > static_cast<uint64_t>(threshold),
             std::to_string(count) + " elements per rank > NCCL_SYM_CE_THRESHOLD " + std::to_string(threshold),
             large) &&
      t.test(comm.minCompCap >= 100, "Blackwell or newer (minCompCap " + std::to_string(comm.minCompCap) + " >= 100)",
             large))
    return "copy engine (AllGather above NCCL_SYM_CE_THRESHOLD)";
  return std::nullopt;
}

bool isFloat(DataType d) {
  return d == DataType::Half || d == DataType::Float || d == DataType::Double || d == DataType::Bfloat16 ||
         d == DataType::F8e4m3 || d == DataType::F8e5m2;
}

// ncclSymkImplemented: AllGather any type; AllReduce and ReduceScatter sum (2.30+: or avg) on floats
// other than double.
bool symImplemented(const BypassQuery& q, Trail& t) {
  const char* where = cite(q.release, "src/sym_kernels.cc:248-272@v2.28.9", "src/sym_kernels.cc:511-538@v2.30.7",
                           "src/sym_kernels.cc ncclSymkImplemented@v2.31.2");
  if (q.collective == Collective::AllGather) return t.test(true, "AllGather has symmetric kernels", where);
  if (!t.test(q.collective == Collective::AllReduce || q.collective == Collective::ReduceScatter,
              "AllGather, AllReduce or ReduceScatter", where))
    return false;
  const bool opOk = q.op == RedOp::Sum || (q.op == RedOp::Avg && q.release != R::V2_28);
  return t.test(opOk,
                std::string("reduction ") + redOpName(q.op) + (q.release == R::V2_28 ? " is sum" : " is sum or avg"),
                where) &&
         t.test(isFloat(q.dataType) && q.dataType != DataType::Double,
                std::string("datatype ") + dataTypeName(q.dataType) + " is a float other than double", where);
}

// The bytes ncclSymkMask limits: per-rank bytes (2.31: rounded up to 1 KiB cells), times nRanks for
// AllGather and ReduceScatter.
uint64_t busBytes(const BypassComm& comm, const BypassQuery& q) {
  const bool allReduce = q.collective == Collective::AllReduce;
  uint64_t perRank = allReduce ? q.nBytes : q.nBytes / static_cast<uint64_t>(comm.nRanks);
  if (q.release == R::V2_31) perRank = (perRank + kSymCellBytes - 1) / kSymCellBytes * kSymCellBytes;
  return allReduce ? perRank : perRank * static_cast<uint64_t>(comm.nRanks);
}

bool kernelNamedFor(const BypassQuery& q) {
  const std::string& k = q.env.symKernel;
  return k.rfind(formats::collectiveName(q.collective), 0) == 0;
}

bool forcedKernel(const BypassQuery& q) {
  return !q.env.symKernel.empty() && q.env.symKernel != "^";
}

// Without both buffers in symmetric windows only the LL kernels qualify, and NCCL falls back to the tuned
// path unless NCCL_SYM_KERNEL forces one or NCCL_SYM_NOWIN_ENABLE=1 and the tuned pick is LL itself.
std::optional<std::string> unregisteredSymmetric(const BypassQuery& q, uint64_t bus, Trail& t) {
  const char* mask = cite(q.release, "", "src/sym_kernels.cc:608-615@v2.30.7", "symmetric-kernel cost model@v2.31.2");
  const char* fallback = cite(q.release, "", "src/scheduler/symmetric_sched.cc:158-172@v2.30.7",
                              "src/tuning/tuning.cc ncclTuningCompute@v2.31.2");
  if (!t.test(bus < 2 * kGiB, "LL kernels only (buffers not in symmetric windows), under 2 GiB of bus bytes", mask))
    return std::nullopt;
  if (forcedKernel(q)) {
    const bool ll = q.env.symKernel.find("LL") != std::string::npos;
    if (t.test(ll, "NCCL_SYM_KERNEL=" + q.env.symKernel + " is an LL kernel", fallback))
      return "symmetric kernel (forced by NCCL_SYM_KERNEL, LL without windows)";
    return std::nullopt;
  }
  if (!t.test(q.env.symNoWinEnable, "NCCL_SYM_NOWIN_ENABLE=1 (else NCCL falls back to the tuned path)", fallback))
    return std::nullopt;
  if (!q.tunedProtocol) {
    t.test(false, "the tuned pick is LL (not known here)", fallback);
    return std::nullopt;
  }
  if (t.test(*q.tunedProtocol == formats::Protocol::LL, "the tuned pick (the tuner consulted) is LL", fallback))
    return "symmetric kernel (LL, NCCL_SYM_NOWIN_ENABLE=1)";
  return std::nullopt;
}

std::optional<std::string> symmetricKernel(const BypassComm& comm, const BypassQuery& q, Trail& t) {
  const char* list = cite(q.release, "src/enqueue.cc:360-362@v2.28.9", "src/enqueue.cc:400-403@v2.30.7",
                          "src/scheduler/symmetric_sched.cc ncclMakeSymmetricTaskList@v2.31.2");
  const char* limits = cite(q.release, "src/sym_kernels.cc:309-312@v2.28.9", "src/sym_kernels.cc:576-579@v2.30.7",
                            "src/sym_kernels.cc ncclSymkMask@v2.31.2");
  if (!symmetricSupport(q, t)) return std::nullopt;
  if (q.release == R::V2_28) {
    if (!t.test(q.registration == Registration::Symmetric, "both buffers in symmetric windows (-R 2)",
                "src/scheduler/symmetric_sched.cc:30@v2.28.9") ||
        !oneNvlinkDomain(comm, "one node (every kernel is an NVLink one, dropped when nNodes > 1)",
                         "src/sym_kernels.cc:314@v2.28.9", t))
      return std::nullopt;
  } else {
    t.test(true, "one NVLink clique (MNNVL's clique is the rack)", list);
    if (!oneNvlinkDomain(
            comm, "every GPU directly over NVLink (isAllDirectNvlink)",
            cite(q.release, "", "src/sym_kernels.cc:593@v2.30.7", "src/sym_kernels.cc ncclSymkAvailable@v2.31.2"), t))
      return std::nullopt;
  }
  if (!symImplemented(q, t)) return std::nullopt;
  const uint64_t bus = busBytes(comm, q);
  if (!t.test(bus < 64 * kGiB, std::to_string(bus) + " bus bytes < 64 GiB", limits)) return std::nullopt;
  if (forcedKernel(q) &&
      !t.test(kernelNamedFor(q), "NCCL_SYM_KERNEL=" + q.env.symKernel + " names a kernel of this collective",
              cite(q.release, "src/sym_kernels.cc:79-100@v2.28.9", "src/sym_kernels.cc:106-127@v2.30.7",
                   "NCCL_SYM_KERNEL parsing@v2.31.2")))
    return std::nullopt;
  if (q.registration == Registration::Symmetric || q.release == R::V2_28) {
    t.test(true, "both buffers in symmetric windows: no fallback",
           cite(q.release, "src/sym_kernels.cc:327-362@v2.28.9", "src/scheduler/symmetric_sched.cc:158@v2.30.7",
                "src/tuning/tuning.cc ncclTuningCompute@v2.31.2"));
    return "symmetric kernel";
  }
  return unregisteredSymmetric(q, bus, t);
}

}  // namespace

BypassVerdict ncclBypass(const BypassComm& comm, const BypassQuery& query) {
  BypassVerdict verdict;
  Trail trail(verdict);
  if (comm.nRanks <= 1) {
    trail.test(false, "more than one rank (one rank copies locally)", "ncclLaunchOneRank");
    verdict.summary = "tuned: a single rank";
    return verdict;
  }
  std::string caveat;
  if (std::optional<std::string> ce = copyEngine(comm, query, trail, caveat)) {
    verdict.path = BypassPath::CopyEngine;
    verdict.summary = "NCCL decides without a tuner: " + *ce;
    return verdict;
  }
  trail.forgetFailure();  // a tuned row says why no symmetric kernel runs
  if (std::optional<std::string> sym = symmetricKernel(comm, query, trail)) {
    verdict.path = BypassPath::Symmetric;
    verdict.summary = "NCCL decides without a tuner: " + *sym;
    verdict.tunerAsked = query.release == R::V2_31;
    if (verdict.tunerAsked)
      verdict.conditions.push_back(
          "note: 2.31 calls the tuner's getCollInfo for this batch with every cell IGNORE and numPipeOps 0; its answer "
          "cannot change the kernel [src/tuning/tuning.cc ncclTuningCompute@v2.31.2]");
    return verdict;
  }
  verdict.caveat = caveat;
  if (!caveat.empty()) verdict.conditions.push_back("note: tuned " + caveat);
  verdict.summary =
      "tuned: " + (trail.firstFailure().empty() ? std::string("no bypass applies") : trail.firstFailure() + " fails");
  return verdict;
}

}  // namespace railtune::ncclmodel
