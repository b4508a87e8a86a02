// libibverbs opened with dlopen and its functions in one table (as NCCL's src/misc/ibvsymbols.cc does): the verbs
// transport calls verbs only through it, so that the real library and the strict simulator
// (emulator/verbs_sim) are interchangeable and nothing links libibverbs. Symbols are looked up in the
// version nodes NCCL 2.30 asks for (dlvsym), else as dlsym finds them (a library without version nodes): the
// required ones in IBVERBS_1.1, where one missing makes the table unusable (the transport is then off, and the
// reason says which); the optional ones in their later nodes, NULL where absent.
#pragma once

#include <string>
#include <vector>

#include "net_plugin/transports/ib/verbs_abi.h"

namespace railtune::net::ib {

struct VerbsTable {
  // Required (IBVERBS_1.1).
  IbvDevice** (*getDeviceList)(int* numDevices) = nullptr;
  void (*freeDeviceList)(IbvDevice** list) = nullptr;
  const char* (*getDeviceName)(IbvDevice* device) = nullptr;
  IbvContext* (*openDevice)(IbvDevice* device) = nullptr;
  int (*closeDevice)(IbvContext* context) = nullptr;
  int (*getAsyncEvent)(IbvContext* context, IbvAsyncEvent* event) = nullptr;
  void (*ackAsyncEvent)(IbvAsyncEvent* event) = nullptr;
  int (*queryDevice)(IbvContext* context, IbvDeviceAttr* attr) = nullptr;
  int (*queryPort)(IbvContext* context, uint8_t port, IbvPortAttr* attr) = nullptr;  // fills 48 bytes or more
  int (*queryGid)(IbvContext* context, uint8_t port, int index, IbvGid* gid) = nullptr;
  int (*queryQp)(IbvQp* qp, IbvQpAttr* attr, int mask, IbvQpInitAttr* init) = nullptr;
  IbvPd* (*allocPd)(IbvContext* context) = nullptr;
  int (*deallocPd)(IbvPd* pd) = nullptr;
  IbvMr* (*regMr)(IbvPd* pd, void* addr, size_t length, int access) = nullptr;
  int (*deregMr)(IbvMr* mr) = nullptr;
  IbvCq* (*createCq)(IbvContext* context, int cqe, void* cqContext, IbvCompChannel* channel, int vector) = nullptr;
  int (*destroyCq)(IbvCq* cq) = nullptr;
  IbvQp* (*createQp)(IbvPd* pd, IbvQpInitAttr* init) = nullptr;
  int (*modifyQp)(IbvQp* qp, IbvQpAttr* attr, int mask) = nullptr;
  int (*destroyQp)(IbvQp* qp) = nullptr;
  int (*forkInit)() = nullptr;
  const char* (*eventTypeStr)(int event) = nullptr;
  // Optional.
  IbvMr* (*regMrIova2)(IbvPd* pd, void* addr, size_t length, uint64_t iova, unsigned access) = nullptr;  // 1.8
  IbvMr* (*regDmabufMr)(IbvPd* pd, uint64_t offset, size_t length, uint64_t iova, int fd,
                        int access) = nullptr;  // 1.12
  // rdma-core declares the port uint32_t here (verbs.h, ibv_query_port_speed), unlike ibv_query_port's uint8_t.
  int (*queryPortSpeed)(IbvContext* context, uint32_t port, uint64_t* speed) = nullptr;  // 1.16, units of 100 Mb/s
};

struct LoadedVerbs {
  VerbsTable table;
  void* handle = nullptr;  // dlopen's; NULL when not loaded
  std::string library;     // the name that opened ("libibverbs.so.1")
  std::string reason;      // "" when loaded; else why not, naming the library or the symbol
  bool ok() const { return handle != nullptr; }
};

// Tries each name in order (dlopen, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: never unmapped once loaded, as in
// NCCL) and fills the table from the first that opens.
// Never throws; a library missing a required symbol is closed again and reported.
LoadedVerbs loadVerbs(const std::vector<std::string>& candidates);

// The names NCCL tries, in its order: libibverbs.so, then libibverbs.so.1 (ibvsymbols.cc:79-87@v2.30.7).
std::vector<std::string> defaultVerbsLibraries();

// dlclose; the table is cleared.
void unloadVerbs(LoadedVerbs& verbs);

}  // namespace railtune::net::ib
