// Drives a bound net plugin of any version (v6..v12) through NCCL's call sites, presenting it as
// the newest interface (v12 semantics) the way NCCL's net_vN.cc adapters do: per-communicator
// init with ctx/commId/config, properties widened to v12, int/size_t size conversions, the
// profiler callback from v10, finalize. 2.28's finalize-after-failed-init is in NetList below.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "emulator/loader.h"
#include "emulator/poison.h"
#include "nccl/net_v10.h"
#include "nccl/net_v12.h"

namespace railtune::emu {

class NetDriver {
 public:
  explicit NetDriver(const Binding& binding);
  ~NetDriver();
  int version() const { return version_; }
  const char* pluginName() const;

  ncclResult_t init(uint64_t commId, int trafficClass, ncclDebugLogger_t logger, ncclProfilerCallback_t prof);
  ncclResult_t devices(int* ndev);
  ncclResult_t getProperties(int dev, ncclNetProperties_v12_t* props);  // widened from the plugin's version
  ncclResult_t listen(int dev, void* handle, void** listenComm);
  ncclResult_t connect(int dev, void* handle, void** sendComm, ncclNetDeviceHandle_v12_t** sendDevComm);
  ncclResult_t accept(void* listenComm, void** recvComm, ncclNetDeviceHandle_v12_t** recvDevComm);
  ncclResult_t regMr(void* comm, void* data, size_t size, int type, void** mhandle);
  ncclResult_t deregMr(void* comm, void* mhandle);
  ncclResult_t isend(void* sendComm, void* data, size_t size, int tag, void* mhandle, void* phandle, void** request);
  ncclResult_t irecv(void* recvComm, int n, void** data, size_t* sizes, int* tags, void** mhandles, void** phandles,
                     void** request);
  ncclResult_t iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request);
  ncclResult_t test(void* request, int* done, int* sizes);
  ncclResult_t closeSend(void* sendComm);
  ncclResult_t closeRecv(void* recvComm);
  ncclResult_t closeListen(void* listenComm);
  // Optional members (NULL in a plugin or absent from its version): NCCL checks before each call.
  bool hasRegMrDmaBuf() const;
  ncclResult_t regMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t offset, int fd, void** mhandle);
  bool hasGetDeviceMr() const;  // v7+
  ncclResult_t getDeviceMr(void* comm, void* mhandle, void** dptrMhandle);
  bool hasIrecvConsumed() const;  // v7+
  ncclResult_t irecvConsumed(void* recvComm, int n, void* request);
  bool hasMakeVDevice() const;  // v9+; v9..v11 take at most 4 physical devices
  ncclResult_t makeVDevice(int* d, ncclNetVDeviceProps_v12_t* props);
  bool hasSetNetAttr() const;
  ncclResult_t setNetAttr(ncclNetAttr_v12_t* attr);
  ncclResult_t finalize();  // v11+: finalize(ctx); older: the adapter's reference-counted close

  void* context() const { return context_; }  // what init left in NCCL's comm->netContext
  const std::vector<std::string>& violations() const { return violations_; }

 private:
  ncclResult_t initWithContext(uint64_t commId, int trafficClass, ncclDebugLogger_t logger,
                               ncclProfilerCallback_t prof);
  ncclResult_t initOnce(int trafficClass, ncclDebugLogger_t logger, ncclProfilerCallback_t prof);
  ncclResult_t violation(const std::string& call, const char* structName);

  Binding binding_;
  int version_ = 0;
  void* context_ = nullptr;
  // v10's adapter keeps the communicator's config in the context and hands it to every connect.
  std::unique_ptr<Poisoned<ncclNetCommConfig_v10_t>> v10Config_;
  std::vector<std::string> violations_;
};

// NCCL's per-communicator net selection: each candidate in order: init, devices() > 0,
// getProperties(0) device type HOST (or UNPACK v7), first success wins. Records each step; on a
// failed init 2.28 still calls finalize (with a possibly NULL context), 2.30 does not.
struct NetSelection {
  int chosen = -1;         // index into the candidate list, -1 = none ("Failed to initialize any NET plugin")
  std::string chosenName;  // plugin's name, or "IB"/"Socket" for NCCL's internal transports
  std::shared_ptr<NetDriver> driver;  // the chosen external plugin, initialised for this communicator
  std::vector<std::string> log;
};
NetSelection selectNet(Loader& loader, std::vector<NetCandidate>& candidates, uint64_t commId,
                       int trafficClass = NCCL_NET_TRAFFIC_CLASS_UNDEF);

}  // namespace railtune::emu
