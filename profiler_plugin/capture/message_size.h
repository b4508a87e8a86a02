// The size of an operation as nccl-tests reports it ("size" column), from the count and datatype
// name NCCL puts in the Coll/P2p event descriptor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace railtune::profiler {

// Bytes per element of NCCL's datatype names ("ncclFloat32" -> 4); 0 for a name NCCL does not have.
size_t datatypeSize(std::string_view datatype);

// count x datatype size, times nRanks for the operations whose NCCL count is per rank:
//   AllReduce, Broadcast, Reduce, Send, Recv: count is the whole message;
//   AllGather: count is what each rank sends, the message is nRanks of them;
//   ReduceScatter: count is what each rank receives, likewise;
//   AlltoAll, Gather, Scatter: count is per peer. (NCCL 2.28 and 2.30 split these into one Send and
//   one Recv P2p event per peer, so a Coll event with these names only comes from other versions.)
// nRanks < 1 (profiler v1..v3 do not give it): the per-rank size. 0 when the datatype is unknown.
uint64_t messageBytes(std::string_view operation, size_t count, std::string_view datatype, int nRanks);

}  // namespace railtune::profiler
