/* A stand-in libibverbs for the loader's tests (net_ib_verbs_table_test.cc): every function NCCL 2.30 requires,
 * exported in rdma-core's version nodes by fake_ibverbs.map, answering as a library with one device "fake_0".
 * Built without ibv_modify_qp (FAKE_WITHOUT_MODIFY_QP) to be refused, and without version nodes to be accepted. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fake_device {
  void* ops[2];
  int node_type, transport_type;
  char name[64];
};

static struct fake_device device0 = {{0, 0}, 1, 0, "fake_0"};
static struct fake_device* list[2] = {&device0, 0};

void* ibv_get_device_list(int* n) {
  if (n) *n = 1;
  return list;
}
void ibv_free_device_list(void* l) {
  (void)l;
}
const char* ibv_get_device_name(struct fake_device* d) {
  return d->name;
}
void* ibv_open_device(void* d) {
  (void)d;
  return 0;
}
int ibv_close_device(void* c) {
  (void)c;
  return 0;
}
int ibv_get_async_event(void* c, void* e) {
  (void)c;
  (void)e;
  return -1;
}
void ibv_ack_async_event(void* e) {
  (void)e;
}
int ibv_query_device(void* c, void* a) {
  (void)c;
  (void)a;
  return 0;
}
int ibv_query_port(void* c, uint8_t p, void* a) {
  (void)c;
  (void)p;
  (void)a;
  return 0;
}
int ibv_query_gid(void* c, uint8_t p, int i, void* g) {
  (void)c;
  (void)p;
  (void)i;
  (void)g;
  return 0;
}
int ibv_query_qp(void* q, void* a, int m, void* i) {
  (void)q;
  (void)a;
  (void)m;
  (void)i;
  return 0;
}
void* ibv_alloc_pd(void* c) {
  (void)c;
  return 0;
}
int ibv_dealloc_pd(void* p) {
  (void)p;
  return 0;
}
void* ibv_reg_mr(void* p, void* a, size_t l, int f) {
  (void)p;
  (void)a;
  (void)l;
  (void)f;
  return 0;
}
int ibv_dereg_mr(void* m) {
  (void)m;
  return 0;
}
void* ibv_create_cq(void* c, int n, void* x, void* ch, int v) {
  (void)c;
  (void)n;
  (void)x;
  (void)ch;
  (void)v;
  return 0;
}
int ibv_destroy_cq(void* c) {
  (void)c;
  return 0;
}
void* ibv_create_qp(void* p, void* i) {
  (void)p;
  (void)i;
  return 0;
}
#ifndef FAKE_WITHOUT_MODIFY_QP
int ibv_modify_qp(void* q, void* a, int m) {
  (void)q;
  (void)a;
  (void)m;
  return 0;
}
#endif
int ibv_destroy_qp(void* q) {
  (void)q;
  return 0;
}
int ibv_fork_init(void) {
  return 0;
}
const char* ibv_event_type_str(int e) {
  (void)e;
  return "fake event";
}
void* ibv_reg_dmabuf_mr(void* p, uint64_t o, size_t l, uint64_t i, int fd, int a) {
  (void)p;
  (void)o;
  (void)l;
  (void)i;
  (void)fd;
  (void)a;
  return 0;
}
