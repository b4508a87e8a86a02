// The bandwidth arithmetic of record.h (nccl-tests' formulas) and the timing source names.
#include "formats/profile_record.h"

namespace railtune::formats::profile {
namespace {

// nccl-tests' bus bandwidth factor per operation (src/*.cu, "getBw"): what a ring moves over each
// link relative to the message size, so that busbw is comparable across operations and rank counts.
// An operation nccl-tests does not know counts as 1 (its bytes crossed once); 0 when the factor
// depends on a rank count we do not have.
double busFactor(std::string_view op, int nRanks) {
  // NCCL spells it "AlltoAll" (ncclFuncAlltoAll); "AllToAll" is accepted as nccl-tests writes it.
  const bool perRank = op == "AllGather" || op == "ReduceScatter" || op == "AlltoAll" || op == "AllToAll" ||
                       op == "Gather" || op == "Scatter";
  if (op != "AllReduce" && !perRank) return 1.0;
  if (nRanks < 1) return 0.0;
  const double n = static_cast<double>(nRanks);
  return op == "AllReduce" ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

}  // namespace

const char* timingSourceName(TimingSource source) {
  switch (source) {
    case TimingSource::Kernel:
      return "kernel";
    case TimingSource::Proxy:
      return "proxy";
    case TimingSource::Enqueue:
      return "enqueue";
  }
  return "unknown";
}

const char* operationPathName(OperationPath path) {
  switch (path) {
    case OperationPath::Tuned:
      return "tuned";
    case OperationPath::Symmetric:
      return "symmetric";
    case OperationPath::CopyEngine:
      return "copy_engine";
  }
  return "unknown";
}

const char* closeReasonName(CloseReason reason) {
  switch (reason) {
    case CloseReason::Events:
      return "events";
    case CloseReason::Enqueued:
      return "enqueued";
    case CloseReason::Overtaken:
      return "overtaken";
    case CloseReason::Age:
      return "age";
    case CloseReason::Evicted:
      return "evicted";
    case CloseReason::Finalize:
      return "finalize";
  }
  return "unknown";
}

double algorithmBandwidthGBps(const OperationRecord& record) {
  int64_t ns = 0;  // a record read back may hold any two times: no overflow, 0 when they make no sense
  if (__builtin_sub_overflow(record.end.monotonicNs, record.start.monotonicNs, &ns) || ns <= 0) return 0.0;
  // bytes / (ns * 1e-9) / 1e9 = bytes / ns
  return static_cast<double>(record.bytes) / static_cast<double>(ns);
}

double busBandwidthGBps(const OperationRecord& record) {
  return algorithmBandwidthGBps(record) * busFactor(record.operation.view(), record.nRanks);
}

}  // namespace railtune::formats::profile
