// The exported profiler tables, v1..v7: one Adapter (adapter.h) per version, each version's traits
// being all it changes. The line above each says what that is, citing NCCL 2.30.7's declaration of
// it in src/include/plugin/profiler/profiler_vN.h (v7: NCCL 2.31.2's; our copies: nccl/profiler_vN.h, pinned by
// tests/abi).
#include "nccl/profiler_v1.h"
#include "nccl/profiler_v2.h"
#include "nccl/profiler_v3.h"
#include "nccl/profiler_v4.h"
#include "nccl/profiler_v6.h"  // and v5, which it includes
#include "nccl/profiler_v7.h"
#include "profiler_plugin/adapter.h"
#include "profiler_plugin/descr_convert.h"

namespace {
using namespace railtune::profiler;
using namespace railtune::profiler::adapter;

// v1: init(context, mask) (profiler_v1.h:80); func, datatype, algo, proto are numbers, named here (:20,25,30-31).
struct V1 {
  using Table = ncclProfiler_v1_t;
  using Descr = ncclProfilerEventDescr_v1_t;
  using StateArgs = ncclProfilerEventStateArgs_v1_t;
  static constexpr auto init = initWithoutComm<1>;
  static constexpr auto convert = convertDescriptorV1;
};

// v2: v1 with func, datatype, algo and proto as NCCL's strings (profiler_v2.h:20,25,29-30).
struct V2 {
  using Table = ncclProfiler_v2_t;
  using Descr = ncclProfilerEventDescr_v2_t;
  using StateArgs = ncclProfilerEventStateArgs_v2_t;
  static constexpr auto init = initWithoutComm<2>;
  static constexpr auto convert = convertDescriptor<Descr>;
};

// v3: v2 plus kernel-channel events, without a GPU timer, and net-plugin events (profiler_v3.h:55-62).
struct V3 {
  using Table = ncclProfiler_v3_t;
  using Descr = ncclProfilerEventDescr_v3_t;
  using StateArgs = ncclProfilerEventStateArgs_v3_t;
  static constexpr auto init = initWithoutComm<3>;
  static constexpr auto convert = convertDescriptor<Descr>;
};

// v4: init learns the comm, hash after name (profiler_v4.h:96); kernelCh.pTimer (:54); state args per step (:64-80).
struct V4 {
  using Table = ncclProfiler_v4_t;
  using Descr = ncclProfilerEventDescr_v4_t;
  using StateArgs = ncclProfilerEventStateArgs_v4_t;
  static constexpr auto init = initCommHashAfterName<4>;
  static constexpr auto convert = convertDescriptor<Descr>;
};

// v5: commId first in init (profiler_v5.h:124); 64-bit type, API and kernel-launch events (:12,16-40).
struct V5 {
  using Table = ncclProfiler_v5_t;
  using Descr = ncclProfilerEventDescr_v5_t;
  using StateArgs = ncclProfilerEventStateArgs_v5_t;
  static constexpr auto init = initCommIdFirst<5>;
  static constexpr auto convert = convertDescriptor<Descr>;
};

// v6 (native): v5 plus copy-engine events (profiler_v6.h:95-120), with v5's state arguments (:126).
struct V6 {
  using Table = ncclProfiler_v6_t;
  using Descr = ncclProfilerEventDescr_v6_t;
  using StateArgs = ncclProfilerEventStateArgs_v6_t;
  static constexpr auto init = initCommIdFirst<6>;
  static constexpr auto convert = convertDescriptor<Descr>;
};

// v7: v6 plus userTag (collApi, p2pApi, coll, p2p, ceColl), coll.kernelVariant and isSymColl, the KernelPhase
// event (profiler_v7.h:31,40,60-62,73,114,129-134@v2.31.2) and its own state arguments (:138-157).
struct V7 {
  using Table = ncclProfiler_v7_t;
  using Descr = ncclProfilerEventDescr_v7_t;
  using StateArgs = ncclProfilerEventStateArgs_v7_t;
  static constexpr auto init = initCommIdFirst<7>;
  static constexpr auto convert = convertDescriptor<Descr>;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v1_t ncclProfiler_v1 =
    Adapter<V1>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v2_t ncclProfiler_v2 =
    Adapter<V2>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v3_t ncclProfiler_v3 =
    Adapter<V3>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v4_t ncclProfiler_v4 =
    Adapter<V4>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v5_t ncclProfiler_v5 =
    Adapter<V5>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v6_t ncclProfiler_v6 =
    Adapter<V6>::table();
extern "C" __attribute__((visibility("default"))) constinit const ncclProfiler_v7_t ncclProfiler_v7 =
    Adapter<V7>::table();
