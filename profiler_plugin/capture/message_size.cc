// See message_size.h. Names are NCCL's (ncclDatatypeToString, ncclFuncToString in collectives.cc).
#include "profiler_plugin/capture/message_size.h"

namespace railtune::profiler {
namespace {

struct TypeSize {
  std::string_view name;
  size_t bytes;
};

constexpr TypeSize kTypeSizes[] = {
    {"ncclInt8", 1},    {"ncclUint8", 1},    {"ncclInt32", 4},      {"ncclUint32", 4},
    {"ncclInt64", 8},   {"ncclUint64", 8},   {"ncclFloat16", 2},    {"ncclFloat32", 4},
    {"ncclFloat64", 8}, {"ncclBfloat16", 2}, {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1},
};

bool countIsPerRank(std::string_view operation) {
  return operation == "AllGather" || operation == "ReduceScatter" || operation == "AlltoAll" || operation == "Gather" ||
         operation == "Scatter";
}

}  // namespace

size_t datatypeSize(std::string_view datatype) {
  for (const TypeSize& entry : kTypeSizes) {
    if (entry.name == datatype) return entry.bytes;
  }
  return 0;
}

uint64_t messageBytes(std::string_view operation, size_t count, std::string_view datatype, int nRanks) {
  const uint64_t perRank = static_cast<uint64_t>(count) * datatypeSize(datatype);
  if (countIsPerRank(operation) && nRanks > 0) return perRank * static_cast<uint64_t>(nRanks);
  return perRank;
}

}  // namespace railtune::profiler
