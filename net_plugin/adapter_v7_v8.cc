// Net ABI v7 and v8: one table each from adapter::intSizeNet (adapter_tables.h). Beside each, what it changed from
// the version before, in NCCL's own header (src/include/plugin/net/net_vN.h@v2.30.7).
#include "nccl/net_v7.h"
#include "nccl/net_v8.h"
#include "net_plugin/adapter_tables.h"

using railtune::net::adapter::intSizeNet;

static_assert(sizeof(ncclNet_v7_t) == 19 * sizeof(void*), "ncclNet_v7_t: name + 18 function pointers");
static_assert(sizeof(ncclNet_v8_t) == 19 * sizeof(void*), "ncclNet_v8_t: name + 18 function pointers");

// v7: as v6 plus device offload: connect and accept take a device handle, properties the device type
// (net_v7.h:44,50,22); regMr's size is an int (net_v7.h:53).
extern "C" __attribute__((visibility("default"))) constinit const ncclNet_v7_t ncclNetPlugin_v7 =
    intSizeNet<ncclNet_v7_t, 7>();
// v8: regMr's size is a size_t and the properties say regIsGlobal (net_v8.h:54,17); isend/irecv sizes stay int
// (net_v8.h:60,63).
extern "C" __attribute__((visibility("default"))) constinit const ncclNet_v8_t ncclNetPlugin_v8 =
    intSizeNet<ncclNet_v8_t, 8>();
