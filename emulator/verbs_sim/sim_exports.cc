// libibverbs' C API over the simulator (sim_verbs.h), exported by libibverbs.so.1 in rdma-core's version
// nodes (libibverbs.map). Only this file goes into the shared library beyond the core, so the names below
// are the library's whole interface: ibv_* as rdma-core declares them, plus the control API.
#include <cerrno>
#include <cstring>

#include "emulator/verbs_sim/sim_verbs.h"

namespace vs = railtune::verbs_sim;
namespace ib = railtune::net::ib;

#define RAILTUNE_SIM_EXPORT extern "C" __attribute__((visibility("default")))

RAILTUNE_SIM_EXPORT ib::IbvDevice** ibv_get_device_list(int* n) {
  return vs::getDeviceList(n);
}
RAILTUNE_SIM_EXPORT void ibv_free_device_list(ib::IbvDevice** list) {
  vs::freeDeviceList(list);
}
RAILTUNE_SIM_EXPORT const char* ibv_get_device_name(ib::IbvDevice* d) {
  return vs::getDeviceName(d);
}
RAILTUNE_SIM_EXPORT uint64_t ibv_get_device_guid(ib::IbvDevice* d) {
  return vs::getDeviceGuid(d);
}
RAILTUNE_SIM_EXPORT ib::IbvContext* ibv_open_device(ib::IbvDevice* d) {
  return vs::openDevice(d);
}
RAILTUNE_SIM_EXPORT int ibv_close_device(ib::IbvContext* c) {
  return vs::closeDevice(c);
}
RAILTUNE_SIM_EXPORT int ibv_get_async_event(ib::IbvContext* c, ib::IbvAsyncEvent* e) {
  return vs::getAsyncEvent(c, e);
}
RAILTUNE_SIM_EXPORT void ibv_ack_async_event(ib::IbvAsyncEvent* e) {
  vs::ackAsyncEvent(e);
}
RAILTUNE_SIM_EXPORT int ibv_query_device(ib::IbvContext* c, ib::IbvDeviceAttr* a) {
  return vs::queryDevice(c, a);
}
// The exported symbol is rdma-core's compat entry: it fills struct _compat_ibv_port_attr, 48 bytes.
RAILTUNE_SIM_EXPORT int ibv_query_port(ib::IbvContext* c, uint8_t port, ib::IbvPortAttr* a) {
  return vs::queryPort(c, port, a, 48);
}
RAILTUNE_SIM_EXPORT int ibv_query_gid(ib::IbvContext* c, uint8_t port, int index, ib::IbvGid* gid) {
  return vs::queryGid(c, port, index, gid);
}
RAILTUNE_SIM_EXPORT int ibv_query_pkey(ib::IbvContext* c, uint8_t port, int index, uint16_t* pkey) {
  return vs::queryPkey(c, port, index, pkey);
}
RAILTUNE_SIM_EXPORT int ibv_query_qp(ib::IbvQp* qp, ib::IbvQpAttr* a, int mask, ib::IbvQpInitAttr* init) {
  return vs::queryQp(qp, a, mask, init);
}
RAILTUNE_SIM_EXPORT ib::IbvPd* ibv_alloc_pd(ib::IbvContext* c) {
  return vs::allocPd(c);
}
RAILTUNE_SIM_EXPORT int ibv_dealloc_pd(ib::IbvPd* pd) {
  return vs::deallocPd(pd);
}
RAILTUNE_SIM_EXPORT ib::IbvMr* ibv_reg_mr(ib::IbvPd* pd, void* addr, size_t length, int access) {
  return vs::regMr(pd, addr, length, reinterpret_cast<uintptr_t>(addr), static_cast<unsigned>(access));
}
RAILTUNE_SIM_EXPORT ib::IbvMr* ibv_reg_mr_iova2(ib::IbvPd* pd, void* addr, size_t length, uint64_t iova,
                                                unsigned access) {
  return vs::regMr(pd, addr, length, iova, access);
}
RAILTUNE_SIM_EXPORT ib::IbvMr* ibv_reg_dmabuf_mr(ib::IbvPd* pd, uint64_t offset, size_t length, uint64_t iova, int fd,
                                                 int access) {
  return vs::regDmabufMr(pd, offset, length, iova, fd, access);
}
RAILTUNE_SIM_EXPORT int ibv_dereg_mr(ib::IbvMr* mr) {
  return vs::deregMr(mr);
}
RAILTUNE_SIM_EXPORT ib::IbvCq* ibv_create_cq(ib::IbvContext* c, int cqe, void* cqContext, ib::IbvCompChannel* ch,
                                             int vector) {
  return vs::createCq(c, cqe, cqContext, ch, vector);
}
RAILTUNE_SIM_EXPORT int ibv_destroy_cq(ib::IbvCq* cq) {
  return vs::destroyCq(cq);
}
RAILTUNE_SIM_EXPORT ib::IbvQp* ibv_create_qp(ib::IbvPd* pd, ib::IbvQpInitAttr* init) {
  return vs::createQp(pd, init);
}
RAILTUNE_SIM_EXPORT int ibv_modify_qp(ib::IbvQp* qp, ib::IbvQpAttr* a, int mask) {
  return vs::modifyQp(qp, a, mask);
}
RAILTUNE_SIM_EXPORT int ibv_destroy_qp(ib::IbvQp* qp) {
  return vs::destroyQp(qp);
}
RAILTUNE_SIM_EXPORT int ibv_fork_init() {
  return 0;
}
RAILTUNE_SIM_EXPORT const char* ibv_event_type_str(int event) {
  return vs::eventTypeString(event);
}
RAILTUNE_SIM_EXPORT const char* ibv_wc_status_str(int status) {
  return vs::wcStatusString(status);
}
RAILTUNE_SIM_EXPORT int ibv_query_port_speed(ib::IbvContext* c, uint32_t port, uint64_t* speed) {
  return vs::queryPortSpeed(c, port, speed);
}
// Enhanced Connection Establishment: "unsupported", which NCCL takes as such.
RAILTUNE_SIM_EXPORT int ibv_query_ece(ib::IbvQp*, void*) {
  return EOPNOTSUPP;
}
RAILTUNE_SIM_EXPORT int ibv_set_ece(ib::IbvQp*, void*) {
  return EOPNOTSUPP;
}

// --- the control API (unversioned-safe names, in their own node) --------------------------------------
RAILTUNE_SIM_EXPORT int railtune_verbs_sim_control(const char* command) {
  return vs::control(command);
}
RAILTUNE_SIM_EXPORT size_t railtune_verbs_sim_stats(char* buf, size_t len) {
  return vs::stats(buf, len);
}
RAILTUNE_SIM_EXPORT const char* railtune_verbs_sim_gid_type(ib::IbvContext* c, uint8_t port, int index) {
  return vs::gidType(c, port, index);
}
