// Net ABI v9..v12: one table each from adapter::virtualDeviceNet (adapter_tables.h). Beside each, what it changed
// from the version before, in NCCL's own header (src/include/plugin/net/net_vN.h@v2.30.7).
#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "nccl/net_v12.h"
#include "nccl/net_v9.h"
#include "net_plugin/adapter_tables.h"

using railtune::net::adapter::virtualDeviceNet;

static_assert(sizeof(ncclNet_v9_t) == 20 * sizeof(void*), "ncclNet_v9_t: name + 19 function pointers");
static_assert(sizeof(ncclNet_v10_t) == 20 * sizeof(void*), "ncclNet_v10_t: name + 19 function pointers");
static_assert(sizeof(ncclNet_v11_t) == 22 * sizeof(void*), "ncclNet_v11_t: name + 21 function pointers");
static_assert(sizeof(ncclNet_v12_t) == 22 * sizeof(void*), "ncclNet_v12_t: name + 21 function pointers");

// v9: isend/irecv sizes become size_t; makeVDevice, 4 devices per virtual NIC (net_v9.h:69,72,92,13; net_v11.h:11).
extern "C" __attribute__((visibility("default"))) constinit const ncclNet_v9_t ncclNetPlugin_v9 =
    virtualDeviceNet<ncclNet_v9_t, 9>();
// v10: init takes the profiler callback, isend/irecv a profiler handle, connect a traffic-class config
// (net_v10.h:47,77,80,61).
extern "C" __attribute__((visibility("default"))) constinit const ncclNet_v10_t ncclNetPlugin_v10 =
    virtualDeviceNet<ncclNet_v10_t, 10>();
// v11 (native in NCCL 2.28): a context per communicator from init(ctx, commId, config), taken by listen and connect,
// and finalize and setNetAttr (net_v11.h:76,85,91,132,134).
extern "C" __attribute__((visibility("default"))) constinit const ncclNet_v11_t ncclNetPlugin_v11 =
    virtualDeviceNet<ncclNet_v11_t, 11>();
// v12 (NCCL 2.30), the boundary's own interface: 8 devices per virtual NIC, properties with rail and plane ids
// (net_v12.h:11,44-45).
extern "C" __attribute__((visibility("default"))) constinit const ncclNet_v12_t ncclNetPlugin_v12 =
    virtualDeviceNet<ncclNet_v12_t, 12>();
