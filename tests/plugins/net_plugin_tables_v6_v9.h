/* Entry points and exported tables of the test net plugin, versions 6..9 (included by net_plugin.c). */

#if defined(RT_NET_V6)
static rtResult v6CloseSend(void* c) {
  return closeAny(6, "net.closeSend", c);
}
static rtResult v6CloseRecv(void* c) {
  return closeAny(6, "net.closeRecv", c);
}
static rtResult v6CloseListen(void* c) {
  return closeAny(6, "net.closeListen", c);
}
static rtResult v6Devices(int* n) {
  return devicesAny(6, n);
}
static rtResult v6DeregMr(void* comm, void* mh) {
  return deregMrAny(6, comm, mh);
}
static rtResult v6RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(6, comm, data, size, type, off, fd, mh);
}
static rtResult v6Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(6, rc, n, data, sizes, mh, req);
}
static rtResult v6Test(void* req, int* done, int* sizes) {
  return testAny(6, req, done, sizes);
}

static rtResult v6Init(rtLogger log) {
  return initLog(6, log, NULL);
}
static rtResult v6Listen(int dev, void* handle, void** lc) {
  return listenAny(6, NULL, dev, handle, lc);
}
static rtResult v6Connect(int dev, void* handle, void** sc) {
  return connectAny(6, NULL, dev, NULL, handle, sc, NULL);
}
static rtResult v6Accept(void* lc, void** rc) {
  return acceptAny(6, lc, rc, NULL);
}
static rtResult v6RegMr(void* comm, void* data, int size, int type, void** mh) {
  return regMrAny(6, comm, data, (uint64_t)size, type, mh);
}
static rtResult v6Isend(void* sc, void* data, int size, int tag, void* mh, void** req) {
  return isendAny(6, sc, data, (uint64_t)(int64_t)size, tag, mh, NULL, req);
}
static rtResult v6Irecv(void* rc, int n, void** data, int* sizes, int* tags, void** mh, void** req) {
  return irecvInt(6, rc, n, data, sizes, tags, mh, req);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(rtLogger);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps6*);
  rtResult (*listen)(int, void*, void**);
  rtResult (*connect)(int, void*, void**);
  rtResult (*accept)(void*, void**);
  rtResult (*regMr)(void*, void*, int, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, int, int, void*, void**);
  rtResult (*irecv)(void*, int, void**, int*, int*, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
} ncclNetPlugin_v6 = {RT_NET_NAME, v6Init,  v6Devices,     getProps6,   v6Listen,     v6Connect,
                      v6Accept,    v6RegMr, v6RegMrDmaBuf, v6DeregMr,   v6Isend,      v6Irecv,
                      v6Iflush,    v6Test,  v6CloseSend,   v6CloseRecv, v6CloseListen};
#endif

#if defined(RT_NET_V7)
static rtResult v7CloseSend(void* c) {
  return closeAny(7, "net.closeSend", c);
}
static rtResult v7CloseRecv(void* c) {
  return closeAny(7, "net.closeRecv", c);
}
static rtResult v7CloseListen(void* c) {
  return closeAny(7, "net.closeListen", c);
}
static rtResult v7Devices(int* n) {
  return devicesAny(7, n);
}
static rtResult v7DeregMr(void* comm, void* mh) {
  return deregMrAny(7, comm, mh);
}
static rtResult v7RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(7, comm, data, size, type, off, fd, mh);
}
static rtResult v7Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(7, rc, n, data, sizes, mh, req);
}
static rtResult v7Test(void* req, int* done, int* sizes) {
  return testAny(7, req, done, sizes);
}

static rtResult v7GetDeviceMr(void* comm, void* mh, void** dptr) {
  rtEchoCall* c = rtEchoBegin("net.getDeviceMr", 7);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mh);
  RT_ARG_PTR(c, dptr);
  return 0;
}
static rtResult v7IrecvConsumed(void* rc, int n, void* req) {
  rtEchoCall* c = rtEchoBegin("net.irecvConsumed", 7);
  RT_ARG_PTR(c, rc);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, req);
  return 0;
}

static rtResult v7Init(rtLogger log) {
  return initLog(7, log, NULL);
}
static rtResult v7Listen(int dev, void* handle, void** lc) {
  return listenAny(7, NULL, dev, handle, lc);
}
static rtResult v7Connect(int dev, void* handle, void** sc, rtDevHandle** dc) {
  return connectAny(7, NULL, dev, NULL, handle, sc, dc);
}
static rtResult v7Accept(void* lc, void** rc, rtDevHandle** dc) {
  return acceptAny(7, lc, rc, dc);
}
static rtResult v7RegMr(void* comm, void* data, int size, int type, void** mh) {
  return regMrAny(7, comm, data, (uint64_t)size, type, mh);
}
static rtResult v7Isend(void* sc, void* data, int size, int tag, void* mh, void** req) {
  return isendAny(7, sc, data, (uint64_t)(int64_t)size, tag, mh, NULL, req);
}
static rtResult v7Irecv(void* rc, int n, void** data, int* sizes, int* tags, void** mh, void** req) {
  return irecvInt(7, rc, n, data, sizes, tags, mh, req);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(rtLogger);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps7*);
  rtResult (*listen)(int, void*, void**);
  rtResult (*connect)(int, void*, void**, rtDevHandle**);
  rtResult (*accept)(void*, void**, rtDevHandle**);
  rtResult (*regMr)(void*, void*, int, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, int, int, void*, void**);
  rtResult (*irecv)(void*, int, void**, int*, int*, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
  rtResult (*getDeviceMr)(void*, void*, void**);
  rtResult (*irecvConsumed)(void*, int, void*);
} ncclNetPlugin_v7 = {RT_NET_NAME, v7Init,        v7Devices,     getProps7,     v7Listen,       v7Connect, v7Accept,
                      v7RegMr,     v7RegMrDmaBuf, v7DeregMr,     v7Isend,       v7Irecv,        v7Iflush,  v7Test,
                      v7CloseSend, v7CloseRecv,   v7CloseListen, v7GetDeviceMr, v7IrecvConsumed};
#endif

#if defined(RT_NET_V8)
static rtResult v8CloseSend(void* c) {
  return closeAny(8, "net.closeSend", c);
}
static rtResult v8CloseRecv(void* c) {
  return closeAny(8, "net.closeRecv", c);
}
static rtResult v8CloseListen(void* c) {
  return closeAny(8, "net.closeListen", c);
}
static rtResult v8Devices(int* n) {
  return devicesAny(8, n);
}
static rtResult v8DeregMr(void* comm, void* mh) {
  return deregMrAny(8, comm, mh);
}
static rtResult v8RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(8, comm, data, size, type, off, fd, mh);
}
static rtResult v8Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(8, rc, n, data, sizes, mh, req);
}
static rtResult v8Test(void* req, int* done, int* sizes) {
  return testAny(8, req, done, sizes);
}

static rtResult v8GetDeviceMr(void* comm, void* mh, void** dptr) {
  rtEchoCall* c = rtEchoBegin("net.getDeviceMr", 8);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mh);
  RT_ARG_PTR(c, dptr);
  return 0;
}
static rtResult v8IrecvConsumed(void* rc, int n, void* req) {
  rtEchoCall* c = rtEchoBegin("net.irecvConsumed", 8);
  RT_ARG_PTR(c, rc);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, req);
  return 0;
}

static rtResult v8Init(rtLogger log) {
  return initLog(8, log, NULL);
}
static rtResult v8Listen(int dev, void* handle, void** lc) {
  return listenAny(8, NULL, dev, handle, lc);
}
static rtResult v8Connect(int dev, void* handle, void** sc, rtDevHandle** dc) {
  return connectAny(8, NULL, dev, NULL, handle, sc, dc);
}
static rtResult v8Accept(void* lc, void** rc, rtDevHandle** dc) {
  return acceptAny(8, lc, rc, dc);
}
static rtResult v8RegMr(void* comm, void* data, size_t size, int type, void** mh) {
  return regMrAny(8, comm, data, (uint64_t)size, type, mh);
}
static rtResult v8Isend(void* sc, void* data, int size, int tag, void* mh, void** req) {
  return isendAny(8, sc, data, (uint64_t)(int64_t)size, tag, mh, NULL, req);
}
static rtResult v8Irecv(void* rc, int n, void** data, int* sizes, int* tags, void** mh, void** req) {
  return irecvInt(8, rc, n, data, sizes, tags, mh, req);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(rtLogger);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps8*);
  rtResult (*listen)(int, void*, void**);
  rtResult (*connect)(int, void*, void**, rtDevHandle**);
  rtResult (*accept)(void*, void**, rtDevHandle**);
  rtResult (*regMr)(void*, void*, size_t, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, int, int, void*, void**);
  rtResult (*irecv)(void*, int, void**, int*, int*, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
  rtResult (*getDeviceMr)(void*, void*, void**);
  rtResult (*irecvConsumed)(void*, int, void*);
} ncclNetPlugin_v8 = {RT_NET_NAME, v8Init,        v8Devices,     getProps8,     v8Listen,       v8Connect, v8Accept,
                      v8RegMr,     v8RegMrDmaBuf, v8DeregMr,     v8Isend,       v8Irecv,        v8Iflush,  v8Test,
                      v8CloseSend, v8CloseRecv,   v8CloseListen, v8GetDeviceMr, v8IrecvConsumed};
#endif

#if defined(RT_NET_V9)
static rtResult v9CloseSend(void* c) {
  return closeAny(9, "net.closeSend", c);
}
static rtResult v9CloseRecv(void* c) {
  return closeAny(9, "net.closeRecv", c);
}
static rtResult v9CloseListen(void* c) {
  return closeAny(9, "net.closeListen", c);
}
static rtResult v9Devices(int* n) {
  return devicesAny(9, n);
}
static rtResult v9DeregMr(void* comm, void* mh) {
  return deregMrAny(9, comm, mh);
}
static rtResult v9RegMrDmaBuf(void* comm, void* data, size_t size, int type, uint64_t off, int fd, void** mh) {
  return regMrDmaBufAny(9, comm, data, size, type, off, fd, mh);
}
static rtResult v9Iflush(void* rc, int n, void** data, int* sizes, void** mh, void** req) {
  return iflushAny(9, rc, n, data, sizes, mh, req);
}
static rtResult v9Test(void* req, int* done, int* sizes) {
  return testAny(9, req, done, sizes);
}

static rtResult v9GetDeviceMr(void* comm, void* mh, void** dptr) {
  rtEchoCall* c = rtEchoBegin("net.getDeviceMr", 9);
  RT_ARG_PTR(c, comm);
  RT_ARG_PTR(c, mh);
  RT_ARG_PTR(c, dptr);
  return 0;
}
static rtResult v9IrecvConsumed(void* rc, int n, void* req) {
  rtEchoCall* c = rtEchoBegin("net.irecvConsumed", 9);
  RT_ARG_PTR(c, rc);
  RT_ARG_INT(c, n);
  RT_ARG_PTR(c, req);
  return 0;
}

static rtResult v9MakeVDevice(int* d, rtVProps4* props) {
  rtEchoCall* c = rtEchoBegin("net.makeVDevice", 9);
  RT_ARG_PTR(c, d);
  RT_ARG_PTR(c, props);
  RT_ARG_INT(c, props->ndevs);
  RT_ARG_INT(c, props->devs[0]);
  RT_ARG_INT(c, props->devs[1]);
  return 0;
}

static rtResult v9Init(rtLogger log) {
  return initLog(9, log, NULL);
}
static rtResult v9Listen(int dev, void* handle, void** lc) {
  return listenAny(9, NULL, dev, handle, lc);
}
static rtResult v9Connect(int dev, void* handle, void** sc, rtDevHandle** dc) {
  return connectAny(9, NULL, dev, NULL, handle, sc, dc);
}
static rtResult v9Accept(void* lc, void** rc, rtDevHandle** dc) {
  return acceptAny(9, lc, rc, dc);
}
static rtResult v9RegMr(void* comm, void* data, size_t size, int type, void** mh) {
  return regMrAny(9, comm, data, (uint64_t)size, type, mh);
}
static rtResult v9Isend(void* sc, void* data, size_t size, int tag, void* mh, void** req) {
  return isendAny(9, sc, data, size, tag, mh, NULL, req);
}
static rtResult v9Irecv(void* rc, int n, void** data, size_t* sizes, int* tags, void** mh, void** req) {
  return irecvAny(9, rc, n, data, sizes[0], tags, mh, NULL, req);
}
EXPORT const struct {
  const char* name;
  rtResult (*init)(rtLogger);
  rtResult (*devices)(int*);
  rtResult (*getProperties)(int, rtProps9*);
  rtResult (*listen)(int, void*, void**);
  rtResult (*connect)(int, void*, void**, rtDevHandle**);
  rtResult (*accept)(void*, void**, rtDevHandle**);
  rtResult (*regMr)(void*, void*, size_t, int, void**);
  rtResult (*regMrDmaBuf)(void*, void*, size_t, int, uint64_t, int, void**);
  rtResult (*deregMr)(void*, void*);
  rtResult (*isend)(void*, void*, size_t, int, void*, void**);
  rtResult (*irecv)(void*, int, void**, size_t*, int*, void**, void**);
  rtResult (*iflush)(void*, int, void**, int*, void**, void**);
  rtResult (*test)(void*, int*, int*);
  rtResult (*closeSend)(void*);
  rtResult (*closeRecv)(void*);
  rtResult (*closeListen)(void*);
  rtResult (*getDeviceMr)(void*, void*, void**);
  rtResult (*irecvConsumed)(void*, int, void*);
  rtResult (*makeVDevice)(int*, rtVProps4*);
} ncclNetPlugin_v9 = {RT_NET_NAME, v9Init,        v9Devices,     getProps9,     v9Listen,        v9Connect,    v9Accept,
                      v9RegMr,     v9RegMrDmaBuf, v9DeregMr,     v9Isend,       v9Irecv,         v9Iflush,     v9Test,
                      v9CloseSend, v9CloseRecv,   v9CloseListen, v9GetDeviceMr, v9IrecvConsumed, v9MakeVDevice};
#endif
