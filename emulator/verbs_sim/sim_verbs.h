// The simulator's verbs as C++ functions over verbs_abi.h's types: what sim_exports.cc exports as
// libibverbs' C API (same arguments, same return and errno conventions), usable in-process too. Each
// validates its pointers against the live objects and fails with EINVAL (or EBUSY, ENOMEM, ...) where
// hardware or the kernel would, never by crashing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "net_plugin/transports/ib/verbs_abi.h"

namespace railtune::verbs_sim {

namespace ib = railtune::net::ib;

ib::IbvDevice** getDeviceList(int* numDevices);
void freeDeviceList(ib::IbvDevice** list);
const char* getDeviceName(ib::IbvDevice* device);
uint64_t getDeviceGuid(ib::IbvDevice* device);  // big-endian, as __be64
ib::IbvContext* openDevice(ib::IbvDevice* device);
int closeDevice(ib::IbvContext* context);
int getAsyncEvent(ib::IbvContext* context, ib::IbvAsyncEvent* event);
void ackAsyncEvent(ib::IbvAsyncEvent* event);
int queryDevice(ib::IbvContext* context, ib::IbvDeviceAttr* attr);
// Writes `length` bytes of the attributes (48 from the exported compat ibv_query_port).
int queryPort(ib::IbvContext* context, uint8_t port, ib::IbvPortAttr* attr, size_t length);
int queryGid(ib::IbvContext* context, uint8_t port, int index, ib::IbvGid* gid);
int queryPkey(ib::IbvContext* context, uint8_t port, int index, uint16_t* pkey);
int queryPortSpeed(ib::IbvContext* context, uint32_t port, uint64_t* speed);
ib::IbvPd* allocPd(ib::IbvContext* context);
int deallocPd(ib::IbvPd* pd);
ib::IbvMr* regMr(ib::IbvPd* pd, void* addr, size_t length, uint64_t iova, unsigned access);
ib::IbvMr* regDmabufMr(ib::IbvPd* pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access);
int deregMr(ib::IbvMr* mr);
ib::IbvCq* createCq(ib::IbvContext* context, int cqe, void* cqContext, ib::IbvCompChannel* channel, int vector);
int destroyCq(ib::IbvCq* cq);
int pollCq(ib::IbvCq* cq, int entries, ib::IbvWc* wc);
ib::IbvQp* createQp(ib::IbvPd* pd, ib::IbvQpInitAttr* init);
int modifyQp(ib::IbvQp* qp, ib::IbvQpAttr* attr, int mask);
int queryQp(ib::IbvQp* qp, ib::IbvQpAttr* attr, int mask, ib::IbvQpInitAttr* init);
int destroyQp(ib::IbvQp* qp);
int postSend(ib::IbvQp* qp, ib::IbvSendWr* wr, ib::IbvSendWr** badWr);
int postRecv(ib::IbvQp* qp, ib::IbvRecvWr* wr, ib::IbvRecvWr** badWr);
const char* eventTypeString(int event);
const char* wcStatusString(int status);

// The control API (README.md, "Control"): 0, or -1 with the reason on stderr.
int control(const char* command);
// Statistics as JSON into buf (NUL-terminated, truncated to len); returns the full length.
size_t stats(char* buf, size_t len);
// The GID's type as sysfs names it ("IB/RoCE v1", "RoCE v2"), nullptr for a bad port or index.
const char* gidType(ib::IbvContext* context, uint8_t port, int index);

}  // namespace railtune::verbs_sim
